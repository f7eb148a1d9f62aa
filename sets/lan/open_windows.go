package lan

import (
	"os"

	"golang.org/x/sys/windows"
)

// openShared opens a file to serve so that it does not hold it: with
// FILE_SHARE_DELETE as well as read and write sharing, the cache may
// evict it and the store rename or remove it while a peer reads it (the
// peer's transfer then reads the old bytes to their end, or fails and is
// retried elsewhere: the bytes are checked against their digest anyway).
func openShared(name string) (*os.File, error) {
	p, err := windows.UTF16PtrFromString(name)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: name, Err: err}
	}
	h, err := windows.CreateFile(p, windows.GENERIC_READ,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil,
		windows.OPEN_EXISTING, windows.FILE_ATTRIBUTE_NORMAL, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: name, Err: err}
	}
	return os.NewFile(uintptr(h), name), nil
}
