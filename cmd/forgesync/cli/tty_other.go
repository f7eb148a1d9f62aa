//go:build !linux && !windows

package cli

import (
	"io/fs"
	"os"
)

// StdinTerminal reports whether stdin is a character device, where setup
// may ask for what its flags do not say.
func StdinTerminal() bool {
	fi, err := os.Stdin.Stat()
	return err == nil && fi.Mode()&fs.ModeCharDevice != 0
}
