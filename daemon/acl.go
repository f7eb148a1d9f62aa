package daemon

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
)

// ErrRefusedByFolder is returned, wrapped with a sentence naming the
// folder, when the OS refuses a client access to the status socket: on
// Windows the folder's ACL admits only SYSTEM, Administrators and the user
// who installed the service; on Linux the socket is 0600.
var ErrRefusedByFolder = errors.New("refused by the status socket's folder")

// refused wraps a permission error of a dial to the socket at path.
func refused(path string, err error) error {
	if !errors.Is(err, fs.ErrPermission) && !isAccessDenied(err) {
		return err
	}
	return fmt.Errorf("%w %s, which admits only SYSTEM, Administrators and the user who installed the service (root and the daemon's user on Linux): run this as that user, or as an administrator: %w",
		ErrRefusedByFolder, filepath.Dir(path), err)
}
