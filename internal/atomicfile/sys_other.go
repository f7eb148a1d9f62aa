//go:build !windows

package atomicfile

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

func isBusy(error) bool { return false }

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync folder %s: %w", dir, err)
	}
	defer d.Close()
	if err := Fsync(d); err != nil {
		return fmt.Errorf("sync folder %s: %w", dir, err)
	}
	return nil
}

// isCrossDevice reports whether err is a rename across file systems.
func isCrossDevice(err error) bool { return errors.Is(err, syscall.EXDEV) }
