//go:build !linux && !windows

package main

import (
	"io/fs"
	"os"
)

// stdinTerminal reports whether stdin is a character device, where setup
// may ask for what its flags do not say.
func stdinTerminal() bool {
	fi, err := os.Stdin.Stat()
	return err == nil && fi.Mode()&fs.ModeCharDevice != 0
}
