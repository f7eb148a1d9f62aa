//go:build !windows

package daemon

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
)

// osSecureFolder creates dir (mode 0700), which holds forgesync's what
// ("state" or "status socket"). Outside Windows the socket's own mode
// (0600, set by [Listen]) and the peer check guard it, so an existing
// folder's mode is left as it is; a shared folder (/, /run, /tmp, a home
// folder, a sticky or world-writable one) is refused with
// [errSharedFolder], as [Listen] refuses it. The owner is a Windows notion
// and is ignored.
func osSecureFolder(what, dir, _ string) error {
	_, err := os.Stat(dir)
	created := errors.Is(err, fs.ErrNotExist)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("secure %s folder %s: %w", what, dir, err)
	}
	f, err := unixFolderFacts(dir, created, false)
	if err != nil {
		return fmt.Errorf("secure %s folder %s: %w", what, dir, err)
	}
	_, err = decideFolder(what, f)
	return err
}

// currentUserSID returns the user's id: the uid outside Windows.
func currentUserSID() (string, error) { return strconv.Itoa(os.Getuid()), nil }

func isAccessDenied(error) bool { return false }
