// Package casefold owns a case-insensitive, case-preserving file system
// for tests, served over FUSE from a folder: names are compared without
// letter case and kept as they were made, as NTFS and APFS (so Windows and
// macOS players' disks) treat them, on a Linux machine whose kernel has no
// case folding of its own. The kernel caches no name (every look-up asks
// the server), so two spellings of one file are one file at every step, and
// a file's identity (its inode number) is the backing file's: os.SameFile
// works across spellings. Linux only; elsewhere [Mount] reports
// errors.ErrUnsupported.
package casefold
