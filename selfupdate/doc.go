// Package selfupdate owns updating forgesync itself (SPEC §14): reading
// the release feed (the SHA256SUMS and SHA256SUMS.minisig that `make
// release` writes, served from one folder), checking the signature with
// the release key built into the binary, choosing and downloading the
// archive for this OS within bounds, checking its SHA-256, unpacking the
// binary and its modules/ folder beside the running one, and swapping
// them in so that a crash at any step leaves a binary that runs; the
// previous version is kept for a rollback, and a swap a crash cut short
// is finished or undone at the next start.
//
// Everything it writes lies in the executable's folder: the binary, its
// modules/ folder, and its own work folder .forgesync-update/ (the
// download, the staged version, the previous version, the journal); on
// Windows also forgesync.exe.old, the running executable renamed aside,
// removed at the next start. An install a package manager owns (the .deb)
// is refused: apt updates it.
package selfupdate
