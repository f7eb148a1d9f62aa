//go:build unix

package atomicfile

import (
	"os"
	"syscall"
)

// renameFile renames the file oldpath over newpath with one rename(2).
// os.Rename first looks newpath up to refuse a folder there, a second
// system call per file (3,000 in a pack of small files); a rename here is
// of a file over a file, or of a file or folder to a free name, and
// rename(2) refuses a file over a folder itself (EISDIR). A network or FUSE file system may interrupt it (EINTR).
func renameFile(oldpath, newpath string) error {
	for {
		err := syscall.Rename(oldpath, newpath)
		switch {
		case err == nil:
			return nil
		case err != syscall.EINTR:
			return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: err}
		}
	}
}
