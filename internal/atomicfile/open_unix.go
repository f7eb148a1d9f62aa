//go:build unix

package atomicfile

import (
	"os"
	"syscall"
)

// openNoWait opens path for reading without waiting for a writer, should
// it have become a FIFO since it was checked.
func openNoWait(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
