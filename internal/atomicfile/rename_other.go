//go:build !unix

package atomicfile

import "os"

// renameFile renames the file oldpath over newpath.
func renameFile(oldpath, newpath string) error { return os.Rename(oldpath, newpath) }
