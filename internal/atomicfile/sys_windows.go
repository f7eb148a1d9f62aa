package atomicfile

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// isBusy reports whether err is one of the errors Windows returns while
// another process (the game, an antivirus scanner) holds the target open.
func isBusy(err error) bool {
	return errors.Is(err, windows.ERROR_SHARING_VIOLATION) ||
		errors.Is(err, windows.ERROR_LOCK_VIOLATION) ||
		errors.Is(err, windows.ERROR_ACCESS_DENIED)
}

func syncDir(string) error { return nil }

// isCrossDevice reports whether err is a rename across volumes.
func isCrossDevice(err error) bool { return errors.Is(err, windows.ERROR_NOT_SAME_DEVICE) }

// openNoWait opens path for reading; Windows has no FIFO in the file
// system, and the path was checked to be a regular file before.
func openNoWait(path string) (*os.File, error) { return os.Open(path) }
