//go:build windows

package watch

import (
	"errors"

	"golang.org/x/sys/windows"

	"github.com/mjolnir-forge/forgesync/internal/longpath"
)

// sourcePath is the form of the drop folder's path that fsnotify gets: the
// \\?\ form for one longer than MAX_PATH, since its CreateFile does not
// lengthen paths as package os does.
func sourcePath(p string) string { return longpath.Extend(p) }

// eventPath is an event's path as the rest of the watcher spells it:
// without the \\?\ prefix that [sourcePath] added.
func eventPath(p string) string { return longpath.Strip(p) }

// isInUse reports whether err from opening a file says that another program
// holds it open without sharing it: a browser still writing a download, a
// copy in progress, an antivirus scanner.
func isInUse(err error) bool {
	return errors.Is(err, windows.ERROR_SHARING_VIOLATION) || errors.Is(err, windows.ERROR_LOCK_VIOLATION)
}
