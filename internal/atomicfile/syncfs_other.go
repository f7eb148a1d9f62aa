//go:build !linux

package atomicfile

import "os"

// FlushesFileSystem says that [SyncFileSystem] does nothing here.
const FlushesFileSystem = false

// SyncFileSystem reports false: there is no such call here (Windows
// flushes a volume only for an administrator), so each file is flushed.
func SyncFileSystem(*os.File) (bool, error) { return false, nil }
