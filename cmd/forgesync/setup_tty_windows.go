package main

import (
	"os"

	"golang.org/x/sys/windows"
)

// stdinTerminal reports whether stdin is a console, where setup may ask
// for what its flags do not say (NUL and pipes are not).
func stdinTerminal() bool {
	var mode uint32
	return windows.GetConsoleMode(windows.Handle(os.Stdin.Fd()), &mode) == nil
}
