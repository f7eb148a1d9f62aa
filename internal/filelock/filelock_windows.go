package filelock

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// lockOffset places the locked byte far past anything a holder may write
// into the file: Windows locks are mandatory, and others may still read it.
const lockOffset = 1 << 30

func tryLock(f *os.File) error { return lockFile(f, windows.LOCKFILE_EXCLUSIVE_LOCK) }

func tryLockShared(f *os.File) error { return lockFile(f, 0) }

// lockFile locks the byte at lockOffset with flags (exclusive, or 0 for
// shared), failing at once when another holds it.
func lockFile(f *os.File, flags uint32) error {
	ol := &windows.Overlapped{Offset: lockOffset}
	err := windows.LockFileEx(windows.Handle(f.Fd()), flags|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, ol)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) || errors.Is(err, windows.ERROR_IO_PENDING) {
		return errWouldBlock
	}
	return err
}

func unlock(f *os.File) error {
	ol := &windows.Overlapped{Offset: lockOffset}
	return windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, ol)
}
