package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// MoveFolder renames the folder oldpath to newpath, where nothing may
// stand: it never replaces a file or a folder there, however it came
// (another program making one between a look and the rename). It is one
// rename, atomic on one volume; across volumes it fails (its error is
// [IsCrossDevice]) and moves nothing. On Linux it is renameat2 with
// RENAME_NOREPLACE, on macOS renamex_np with RENAME_EXCL, on Windows
// MoveFileEx without MOVEFILE_REPLACE_EXISTING. Where the file system has
// no such rename (an older kernel, a FUSE volume without it) an empty
// folder is made at newpath first, which fails when anything stands
// there, and the rename goes over that folder of its own, which fails
// (rather than replace) should something have been put in it meanwhile.
// Something standing at newpath fails it with an error that is
// [fs.ErrExist]. It does not wait for a held file: one call, for the
// caller to decide ([Renamer.Retry]).
func (r Renamer) MoveFolder(oldpath, newpath string) error {
	move := r.RenameFolder
	if move == nil {
		move = moveNoReplace
	}
	if err := move(oldpath, newpath); err != nil {
		return fmt.Errorf("move folder %s to %s: %w", oldpath, newpath, err)
	}
	return nil
}

// moveIntoMadeFolder is [Renamer.MoveFolder] where the file system has no
// rename that refuses to replace: mkdir claims newpath (EEXIST when
// anything stands there), then the rename goes over that empty folder, and
// fails if something was put in it (ENOTEMPTY, taken for "exists"). The
// folder it made is removed again when the rename fails.
func moveIntoMadeFolder(oldpath, newpath string) error {
	if err := os.Mkdir(newpath, 0o700); err != nil {
		return err
	}
	err := renameFile(oldpath, newpath)
	if err == nil {
		return nil
	}
	os.Remove(newpath) // empty and ours, or holding what another put there, which stays
	if errors.Is(err, syscall.ENOTEMPTY) {
		return fmt.Errorf("%w: %w", fs.ErrExist, err)
	}
	return err
}
