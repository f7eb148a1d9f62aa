//go:build !unix

package zstd

import "time"

// cpuTime returns 0: the benchmarks report CPU time on Unix only.
func cpuTime() time.Duration { return 0 }
