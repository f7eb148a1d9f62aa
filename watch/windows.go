//go:build windows

package watch

import (
	"errors"

	"golang.org/x/sys/windows"
)

// isInUse reports whether err from opening a file says that another program
// holds it open without sharing it: a browser still writing a download, a
// copy in progress, an antivirus scanner.
func isInUse(err error) bool {
	return errors.Is(err, windows.ERROR_SHARING_VIOLATION) || errors.Is(err, windows.ERROR_LOCK_VIOLATION)
}
