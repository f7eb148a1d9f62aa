// Package installer owns everything that puts pack files on disk: the safe
// intake of pack archives and pack folders (SPEC §2: entry names, layout,
// extraction limits, a private staging folder written only through an
// os.Root), the pack store, placing and removing content, and deploying the
// embedded scripts and module files.
//
// Intake has one implementation of the rules, shared by [Extract] (an
// archive in the drop folder, `forgesync install`, `forgesync scan ARCHIVE`)
// and by [ListPack] and [CheckDir] (`forgesync scan DIR`, `forgesync pack
// DIR`). It decides whether bytes are a safe pack; it knows nothing of what
// forgepack.json says, which is the job of package inventory.
//
// Caveats: the limits bound what reaches the disk and how much the
// decoders produce, and memory stays under 64 MiB because every decoder's
// window is bounded (zstd 16 MiB, xz and rar 16 MiB dictionaries; larger
// ones are refused with a reason). The 7z decoder chooses its own
// dictionary: 7-Zip's default (16 MiB) measured 59 MiB resident; 7z -mx9
// (64 MiB) was not measured and will likely go past the budget. For
// compressed streams the compression ratio of one entry is measured from
// the archive bytes the decoder consumed while it streamed (see [Limits]).
package installer
