package cli

import (
	"os"

	"golang.org/x/sys/unix"
)

// StdinTerminal reports whether stdin is a terminal, where setup may ask
// for what its flags do not say (/dev/null and pipes are not).
func StdinTerminal() bool {
	_, err := unix.IoctlGetTermios(int(os.Stdin.Fd()), unix.TCGETS)
	return err == nil
}
