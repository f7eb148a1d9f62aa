package cli

import (
	"fmt"
	"os"
	"runtime/debug"
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

// CollectSeldom makes the garbage collector of a command that runs once
// and exits (not the daemon's) run when the heap has grown fivefold, not
// at every doubling (GOGC=400), unless GOGC says otherwise. Such a
// command's heap is a few megabytes: a sync of a pack of 3,000 small
// files allocates 8 MB and collected twice at Go's default, which cost it
// 9 ms of processor time (119 against 110 ms, 6 alternating runs each),
// and none at 400. The daemon, which lives on, keeps Go's default.
func CollectSeldom() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
}
