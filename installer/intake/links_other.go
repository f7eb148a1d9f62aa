//go:build !unix && !windows

package intake

import "io/fs"

// linkCount returns 1: this platform has no hard links forgesync knows of.
func linkCount(string, fs.FileInfo) (uint64, error) { return 1, nil }
