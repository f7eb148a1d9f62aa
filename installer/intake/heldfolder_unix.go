//go:build unix

package intake

import (
	"errors"
	"fmt"
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// heldFolder is a staging folder held open, so that a file is created in
// it with one system call. Here it is the folder's descriptor, and a file
// is created by openat(2) on it and wrapped with os.NewFile: os.Root's
// OpenFile then asks the runtime's poller to take the file, which a
// regular file refuses, at four fcntl and one epoll_ctl a file, five of
// the eight system calls of a small file's whole write (strace -c -f,
// small.zip of scripts/bench-extract.sh).
type heldFolder struct{ dir *os.File }

// openHeld opens the folder name (a native path under root) to create
// files in it. The folder was made by this extraction; os.Root refuses a
// link on the way all the same.
func openHeld(root *os.Root, name string) (*heldFolder, error) {
	dir, err := root.Open(name)
	if err != nil {
		return nil, err
	}
	return &heldFolder{dir: dir}, nil
}

// create creates the new file base, one name with no separator, in h for
// writing with mode perm: O_EXCL, and O_NOFOLLOW besides, so that nothing
// in the folder (a link there has not been made by this extraction) is
// written through; name is the file's name for errors.
func (h *heldFolder) create(base, name string, perm os.FileMode) (*os.File, error) {
	if !singleName(base) {
		return nil, fmt.Errorf("create %s: not a name in its folder", name)
	}
	const flags = unix.O_WRONLY | unix.O_CREAT | unix.O_EXCL | unix.O_NOFOLLOW | unix.O_CLOEXEC
	for {
		fd, err := unix.Openat(int(h.dir.Fd()), base, flags, uint32(perm.Perm()))
		runtime.KeepAlive(h.dir)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "open", Path: name, Err: err}
		}
		return os.NewFile(uintptr(fd), name), nil
	}
}

func (h *heldFolder) close() error { return h.dir.Close() }
