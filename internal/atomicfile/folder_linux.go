package atomicfile

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// moveNoReplace renames oldpath to newpath with renameat2's
// RENAME_NOREPLACE, or, where the file system has no such flag (EINVAL:
// some FUSE and network volumes; ENOSYS: a kernel before 3.15), through a
// folder of its own at newpath (see [moveIntoMadeFolder]).
func moveNoReplace(oldpath, newpath string) error {
	for {
		err := unix.Renameat2(unix.AT_FDCWD, oldpath, unix.AT_FDCWD, newpath, unix.RENAME_NOREPLACE)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.EINVAL), errors.Is(err, unix.ENOSYS):
			return moveIntoMadeFolder(oldpath, newpath)
		}
		return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: err}
	}
}
