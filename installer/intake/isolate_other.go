//go:build !linux && !windows

package intake

import (
	"os"
	"os/exec"
	"time"
)

// prepareChild has nothing to do on this system.
func prepareChild(*exec.Cmd, bool) {}

// limitChild cannot limit another process here: the child still runs
// apart, with its wall-clock budget, but without memory or time limits.
func limitChild(*os.Process, int64, bool) (confinement, error) {
	return confinement{release: func() {}, cpu: func(time.Duration) error { return nil }}, nil
}

func outOfMemory(*os.ProcessState) bool { return false }

func cpuExceeded(*os.ProcessState, time.Duration) bool { return false }

func watchData(int) func() int64 { return func() int64 { return 0 } }
