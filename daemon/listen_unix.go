//go:build !windows

package daemon

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"syscall"
)

// socketExample is the short socket path, in a folder of its own, that
// errors offer as the fix.
const socketExample = `/run/forgesync/forgesync.sock`

// prepareDir creates the socket's folder 0700. An existing folder is made
// 0700 only when it is empty or already private; one that holds other
// files is left as it is (the socket's own 0600 guards it), and a shared
// one (/, /run, /tmp, a home folder, a sticky or world-writable folder,
// one owned by another user) is refused with [errSharedFolder]: forgesync
// never changes a folder it does not own.
func prepareDir(dir string) error {
	_, err := os.Stat(dir)
	created := errors.Is(err, fs.ErrNotExist)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create status socket folder %s: %w", dir, err)
	}
	f, err := unixFolderFacts(dir, created, true)
	if err != nil {
		return fmt.Errorf("check status socket folder %s: %w", dir, err)
	}
	tighten, err := decideFolder("status socket", f)
	if err != nil || !tighten || f.Private {
		return err
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return fmt.Errorf("set mode 0700 on status socket folder %s: %w", dir, err)
	}
	return nil
}

// unixFolderFacts reads what [decideFolder] needs about dir; owner says
// whether a folder owned by another user counts against it.
func unixFolderFacts(dir string, created, owner bool) (folderFacts, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return folderFacts{}, err
	}
	f := folderFacts{Path: dir, GOOS: runtime.GOOS, Created: created, Shared: sharedHere(),
		Private: fi.Mode().Perm() == 0o700, Sticky: fi.Mode()&fs.ModeSticky != 0, WorldWritable: fi.Mode().Perm()&0o002 != 0}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && owner && int(st.Uid) != os.Geteuid() {
		f.OtherOwner = fmt.Sprintf("uid %d", st.Uid)
	}
	d, err := os.Open(dir)
	if err != nil {
		return folderFacts{}, err
	}
	defer d.Close()
	names, err := d.Readdirnames(1)
	if err != nil && !errors.Is(err, io.EOF) {
		return folderFacts{}, err
	}
	f.Empty = len(names) == 0
	return f, nil
}

// chmodSocket sets the socket file's mode to 0600.
func chmodSocket(path string) error {
	if err := os.Chmod(path, 0o600); err != nil {
		return fmt.Errorf("set mode 0600 on status socket %s: %w", path, err)
	}
	return nil
}

// isStaleDial reports whether a dial error proves that nobody listens on the
// socket file (or that the file went away meanwhile).
func isStaleDial(err error) bool {
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ENOENT)
}
