package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// stdinTerminal reports whether stdin is a terminal, where setup may ask
// for what its flags do not say (/dev/null and pipes are not).
func stdinTerminal() bool {
	_, err := unix.IoctlGetTermios(int(os.Stdin.Fd()), unix.TCGETS)
	return err == nil
}
