//go:build !linux

package intake

import "os"

// startWriteback does nothing here: the fsync at the file's end writes it.
func startWriteback(*os.File, int64, int64) {}

// syncFileSystem reports false: there is no such call here (Windows
// flushes a volume only for administrators), so each file is flushed.
func syncFileSystem(*os.File) (bool, error) { return false, nil }
