//go:build unix

package intake

import (
	"io/fs"
	"syscall"
)

// linkCount returns how many names the file at p has (info is its Lstat).
func linkCount(_ string, info fs.FileInfo) (uint64, error) {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink), nil
	}
	return 1, nil
}
