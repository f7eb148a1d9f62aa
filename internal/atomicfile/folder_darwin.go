package atomicfile

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// moveNoReplace renames oldpath to newpath with renamex_np's RENAME_EXCL,
// or, where the volume has no such flag (ENOTSUP, EINVAL), through a
// folder of its own at newpath (see [moveIntoMadeFolder]).
func moveNoReplace(oldpath, newpath string) error {
	for {
		err := unix.RenamexNp(oldpath, newpath, unix.RENAME_EXCL)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.ENOTSUP), errors.Is(err, unix.EINVAL):
			return moveIntoMadeFolder(oldpath, newpath)
		}
		return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: err}
	}
}
