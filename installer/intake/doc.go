// Package intake owns the safe intake of pack archives and pack folders
// (SPEC §2): identifying the format by content, the bounded decoders,
// entry-name rules, layout, extraction limits, a private staging folder
// written only through an os.Root, the isolated child that unpacks, and
// writing a pack folder as a pack zip. It knows nothing of the pack store,
// of the game's folders, of the wire (api) or of what forgepack.json says,
// which is the job of package inventory.
//
// Intake has one implementation of the rules, shared by
// [Extractor.Extract] (an archive in the drop folder, `forgesync install`,
// `forgesync scan ARCHIVE`) and by [ListPack] and [CheckDir] (`forgesync
// scan DIR`, `forgesync pack DIR`). It decides whether bytes are a safe pack; it knows nothing of what
// forgepack.json says, which is the job of package inventory.
//
// Isolation by construction: the only way to extract an archive is an
// [Extractor], built from an [Isolation] that names the child's command
// (the program: the same binary re-run with [ChildCommand]); the decoders
// run in process only inside [RunChild], the child's entry point. Every
// extraction runs in that child under hard limits of memory (Linux:
// RLIMIT_DATA, which the Go runtime fills in 64 MiB arenas; Windows: a Job
// Object) and processor time, with a wall-clock budget scaled by the archive's size. A
// crash, a limit or a timeout there is the archive's rejection. The parent
// hashes the archive itself and checks what the child left in staging
// against the rules before handing it on. Measured on 2 shared cores
// (BenchmarkIsolationCost): a 10 KB pack takes 11 ms in a child against
// 5 ms in process, about 6 ms per archive; every archive is isolated,
// small ones too, since a small archive can hold the same decoder bugs.
//
// Caveats: the limits bound what reaches the disk and how much the
// decoders produce, and memory stays bounded because every decoder is
// chosen and sized by rule before it runs (decoders.go): formats are
// identified from their first 512 bytes; zip entries may use Store,
// Deflate or zstd (window at most 16 MiB); every 7z folder's coder ids are
// read from the header (an encoded header decoded by our own bounded
// decoders) and checked against an allowlist before the 7z reader builds
// any coder: Copy, LZMA, LZMA2 (dictionary at most 64 MiB), Deflate and
// the x86 BCJ filter; every other coder, encryption included, is refused
// by name and id without running or deriving a key; xz and rar dictionaries
// are at most 16 MiB; sparse tar entries are refused. Larger ones are
// refused with a reason. For
// compressed streams the compression ratio of one entry is measured from
// the archive bytes the decoder consumed while it streamed (see [Limits]).
package intake
