package cli

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// Profiling for the benchmarks (scripts/bench-extract.sh): a CPU profile of
// this process is written to the file named by ProfileEnv, and one of
// each unpacking child to the file named by ChildProfileEnv (read only in
// the child, so a parent with both set profiles each process once; every
// child overwrites the last child's profile). Unset, nothing is profiled.
const (
	ProfileEnv      = "FORGESYNC_CPUPROFILE"
	ChildProfileEnv = "FORGESYNC_UNPACK_CPUPROFILE"
)

// StartProfile starts a CPU profile into the file named by the environment
// variable env and returns what stops it and closes the file; without the
// variable it does nothing. A profile that cannot start is said on stderr
// and the command runs on unprofiled.
func StartProfile(env string) (stop func()) {
	name := os.Getenv(env)
	if name == "" {
		return func() {}
	}
	f, err := os.Create(name)
	if err != nil {
		fmt.Fprintf(os.Stderr, "forgesync: %s: %v\n", env, err)
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		fmt.Fprintf(os.Stderr, "forgesync: %s: profile %s: %v\n", env, name, err)
		f.Close()
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			fmt.Fprintf(os.Stderr, "forgesync: %s: write %s: %v\n", env, name, err)
		}
	}
}
