//go:build !windows

package cli

import "os"

// OSArgs returns the process's arguments after the program's name, as the
// shell split them.
func OSArgs() []string { return os.Args[1:] }
