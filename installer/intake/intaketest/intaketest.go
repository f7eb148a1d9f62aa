// Package intaketest owns the one way the tests of other packages unpack
// archives as the program does, in a child process: the test binary is
// its own unpacking child, re-run with an environment variable set. No
// command uses it.
package intaketest

import (
	"os"

	"github.com/mjolnir-forge/forgesync/installer/intake"
)

// envChild makes a test binary the unpacking child of the Isolation that
// [Isolation] returns.
const envChild = "FORGESYNC_TEST_UNPACK_CHILD"

// RunChildIfAsked unpacks and exits when this process was started as the
// unpacking child; a TestMain calls it first.
func RunChildIfAsked() {
	if os.Getenv(envChild) != "" {
		os.Exit(intake.RunChild(os.Stdin, os.Stdout))
	}
}

// Isolation returns iso with this test binary as its child command.
func Isolation(iso intake.Isolation) intake.Isolation {
	iso.Command = []string{os.Args[0]}
	iso.Env = append(append([]string{}, iso.Env...), envChild+"=1")
	return iso
}

// Extractor returns an Extractor that runs this test binary as the child,
// without a memory limit (the race detector's shadow memory would count
// against it; the limits are intake's tests' business). It panics when
// the Extractor cannot be made, as TestMain has no test to fail.
func Extractor() *intake.Extractor {
	x, err := intake.NewExtractor(Isolation(intake.Isolation{Memory: 1 << 40}))
	if err != nil {
		panic(err)
	}
	return x
}
