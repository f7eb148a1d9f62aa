//go:build !unix

package intake

import (
	"fmt"
	"os"
)

// heldFolder is a staging folder held open, so that a file is created in
// it with one system call: an os.Root on it (on Unix, the folder's
// descriptor, which spares os.Root's poller calls).
type heldFolder struct{ root *os.Root }

// openHeld opens the folder name (a native path under root) to create
// files in it.
func openHeld(root *os.Root, name string) (*heldFolder, error) {
	r, err := root.OpenRoot(name)
	if err != nil {
		return nil, err
	}
	return &heldFolder{root: r}, nil
}

// create creates the new file base, one name with no separator, in h for
// writing with mode perm; name is the file's name for errors.
func (h *heldFolder) create(base, name string, perm os.FileMode) (*os.File, error) {
	if !singleName(base) {
		return nil, fmt.Errorf("create %s: not a name in its folder", name)
	}
	return h.root.OpenFile(base, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
}

func (h *heldFolder) close() error { return h.root.Close() }
