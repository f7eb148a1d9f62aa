package pipeline

import (
	"errors"

	"golang.org/x/sys/windows"
)

// platformFault reports the Windows errors that are the machine's condition.
func platformFault(err error) bool {
	return errors.Is(err, windows.ERROR_WRITE_PROTECT) || errors.Is(err, windows.ERROR_WRITE_FAULT) ||
		errors.Is(err, windows.ERROR_READ_FAULT) || errors.Is(err, windows.ERROR_ACCESS_DENIED) ||
		errors.Is(err, windows.ERROR_SHARING_VIOLATION) || errors.Is(err, windows.ERROR_LOCK_VIOLATION) ||
		errors.Is(err, windows.ERROR_NOT_ENOUGH_MEMORY) || errors.Is(err, windows.ERROR_TOO_MANY_OPEN_FILES)
}

// platformDiskFull reports whether err is Windows' disk full.
func platformDiskFull(err error) bool {
	return errors.Is(err, windows.ERROR_DISK_FULL) || errors.Is(err, windows.ERROR_HANDLE_DISK_FULL)
}
