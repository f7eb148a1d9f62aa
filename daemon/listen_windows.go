//go:build windows

package daemon

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/windows"
)

// socketExample is the short socket path, in a folder of its own, that
// errors offer as the fix.
const socketExample = `C:\forgesync\forgesync.sock`

// prepareDir creates the socket's folder. Windows has no Unix modes: access
// follows the folder's ACL, inherited from its parent (the user's own
// %LOCALAPPDATA% by default).
func prepareDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create status socket folder %s: %w", dir, err)
	}
	return nil
}

// chmodSocket does nothing on Windows, where a socket file's mode means
// nothing.
func chmodSocket(string) error { return nil }

// isStaleDial reports whether a dial error proves that nobody listens on the
// socket file (or that the file went away meanwhile).
func isStaleDial(err error) bool {
	return errors.Is(err, windows.WSAECONNREFUSED) || errors.Is(err, syscall.ENOENT) || errors.Is(err, windows.ERROR_FILE_NOT_FOUND)
}
