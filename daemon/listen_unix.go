//go:build !windows

package daemon

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// prepareDir creates the socket's folder 0700, and tightens an existing one
// the daemon's user owns to 0700, unless it is a sticky shared folder (such
// as /tmp), which must stay open to others; there the socket's own 0600
// protects it.
func prepareDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create status socket folder %s: %w", dir, err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("check status socket folder %s: %w", dir, err)
	}
	if fi.Mode().Perm() == 0o700 || fi.Mode()&fs.ModeSticky != 0 {
		return nil
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || int(st.Uid) != os.Geteuid() {
		return nil // not ours to change
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return fmt.Errorf("set mode 0700 on status socket folder %s: %w", dir, err)
	}
	return nil
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
