package daemon

import (
	"os"

	"github.com/mjolnir-forge/forgesync/config"
	"github.com/mjolnir-forge/forgesync/installer/intake"
)

// SelfExtractor returns the Extractor of every archive this program
// unpacks, the daemon's and the CLI's: the program itself, re-run with
// intake.ChildCommand (its main runs the child). Should the program's path
// be unknown, its name as started is tried; a child that cannot start is
// then this machine's fault, reported as such, and no archive is unpacked
// without its child. The child runs in the background unless cfg's
// [performance] priority is "normal".
func SelfExtractor(cfg *config.Config) *intake.Extractor {
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	x, err := intake.NewExtractor(intake.Isolation{Command: []string{exe, intake.ChildCommand},
		Background: cfg.Performance.Priority != config.PriorityNormal})
	if err != nil {
		panic(err) // the command is never empty
	}
	return x
}
