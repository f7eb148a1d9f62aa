package cli

import (
	"os"

	"golang.org/x/sys/windows"
)

// StdinTerminal reports whether stdin is a console, where setup may ask
// for what its flags do not say (NUL and pipes are not).
func StdinTerminal() bool {
	var mode uint32
	return windows.GetConsoleMode(windows.Handle(os.Stdin.Fd()), &mode) == nil
}
