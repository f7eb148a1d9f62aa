//go:build !unix && !windows

package intake

import (
	"os"
	"path/filepath"
)

// statIn reads name in the folder dirPath with an Lstat; this platform
// has no hard links forgesync knows of.
func statIn(_ *os.File, dirPath, name string) (stagedFile, error) {
	fi, err := os.Lstat(filepath.Join(dirPath, name))
	if err != nil {
		return stagedFile{}, err
	}
	return stagedFile{size: fi.Size(), links: 1, mode: fi.Mode()}, nil
}
