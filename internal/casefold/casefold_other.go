//go:build !linux

package casefold

import (
	"errors"
	"time"
)

// Mount reports errors.ErrUnsupported: the file system is served on Linux
// only.
func Mount(backing, mountpoint string, wait time.Duration) (unmount func() error, err error) {
	return nil, errors.ErrUnsupported
}
