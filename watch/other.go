//go:build !windows

package watch

// isInUse reports whether err from opening a file says that another program
// holds it open without sharing it. Only Windows has such sharing modes.
func isInUse(error) bool { return false }

// sourcePath is the form of the drop folder's path that fsnotify gets:
// the path itself outside Windows.
func sourcePath(p string) string { return p }

// eventPath is an event's path as the rest of the watcher spells it.
func eventPath(p string) string { return p }
