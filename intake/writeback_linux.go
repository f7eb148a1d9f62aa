package intake

import (
	"os"

	"golang.org/x/sys/unix"
)

// startWriteback asks the kernel to start writing the n bytes at off of f
// to disk now, without waiting: the fsync at the file's end then has
// little left to wait for.
func startWriteback(f *os.File, off, n int64) {
	unix.SyncFileRange(int(f.Fd()), off, n, unix.SYNC_FILE_RANGE_WRITE)
}

// syncFileSystem writes everything written to the file system f is on to
// stable storage (syncfs), and reports true: one journal commit and one
// cache flush of the disk for all of a pack's files, where fsync costs a
// cache flush per file (3,000 small files: a third of a second on an SSD,
// most of a minute on a hard disk). Since Linux 5.8 it reports the
// file system's write errors, as fsync reports a file's.
func syncFileSystem(f *os.File) (bool, error) {
	return true, unix.Syncfs(int(f.Fd()))
}
