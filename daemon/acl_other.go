//go:build !windows

package daemon

import (
	"fmt"
	"os"
	"strconv"
)

// SecureFolder creates dir (mode 0700). Outside Windows the socket's own
// mode (0600, set by [Listen]) and the peer check guard it; the owner is a
// Windows notion and is ignored.
func SecureFolder(dir, _ string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("secure folder %s: %w", dir, err)
	}
	return nil
}

// CurrentUserSID returns the user's id: the uid outside Windows.
func CurrentUserSID() (string, error) { return strconv.Itoa(os.Getuid()), nil }

func isAccessDenied(error) bool { return false }
