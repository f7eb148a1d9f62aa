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
// decompressors produce; the 7z and rar decoders choose their own dictionary
// sizes, so their memory use is bounded by the archive's dictionary size, not
// by this package.
package installer
