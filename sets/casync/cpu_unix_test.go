//go:build unix

package casync

import (
	"syscall"
	"testing"
	"time"
)

// cpuClock measures the process's CPU time (user and system) over a
// benchmark's loop.
type cpuClock struct{ start time.Duration }

func cpuNow() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func startCPU() cpuClock { return cpuClock{cpuNow()} }

// report adds the CPU seconds per operation to the benchmark's figures.
func (c cpuClock) report(b *testing.B) {
	b.ReportMetric((cpuNow()-c.start).Seconds()/float64(b.N), "cpu-s/op")
}
