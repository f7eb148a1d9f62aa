package cli

import (
	"os"

	"golang.org/x/sys/windows"
)

// OSArgs returns the process's arguments after the program's name, read
// as meant where a quoted folder ended in a backslash (repairWindowsArgs).
func OSArgs() []string {
	return repairWindowsArgs(windows.UTF16PtrToString(windows.GetCommandLine()), os.Args)
}
