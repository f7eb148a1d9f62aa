//go:build !unix

package rendertest

import "time"

// CPUTime reports false: this platform's CPU time is not read here.
func CPUTime() (time.Duration, bool) { return 0, false }
