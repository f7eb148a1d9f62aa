package daemon

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
)

// errDeniedByFolder is returned, wrapped with a sentence naming the
// folder, when the OS refuses a client access to the status socket: on
// Windows the folder's ACL admits only SYSTEM, Administrators and the user
// who installed the service; on Linux the socket is 0600.
var errDeniedByFolder = errors.New("refused by the status socket's folder")

// errNoACL is matched by the error of [secureFolder] on a file system that
// keeps no ACLs (FAT, exFAT): the folder cannot be made private, and a
// caller warns and goes on rather than stop the daemon.
var errNoACL = errors.New("the file system keeps no permissions (FAT or exFAT), so the folder stays open to every account that can reach the drive")

// refused wraps a permission error of a dial to the socket at path.
func refused(path string, err error) error {
	if !errors.Is(err, fs.ErrPermission) && !isAccessDenied(err) {
		return err
	}
	return fmt.Errorf("%w %s, which admits only SYSTEM, Administrators and the user who installed the service (root and the daemon's user on Linux): run this as that user, or as an administrator: %w",
		errDeniedByFolder, filepath.Dir(path), err)
}
