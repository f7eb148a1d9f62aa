//go:build unix

package pipeline

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time (user and system) this process used so far,
// for benchmarks on a shared machine where wall time measures the others.
// The extraction children's time is included once they have been waited for.
func cpuTime() time.Duration {
	var self, children syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children)
	tv := func(t syscall.Timeval) time.Duration { return time.Duration(t.Nano()) }
	return tv(self.Utime) + tv(self.Stime) + tv(children.Utime) + tv(children.Stime)
}
