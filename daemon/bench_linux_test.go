package daemon

import (
	"fmt"

	"golang.org/x/sys/unix"
)

const canLowerThreadPriority = true

// lowerThreadPriority sets the calling OS thread's nice value to 10 (on
// Linux, PRIO_PROCESS with a thread id names one thread).
func lowerThreadPriority() error {
	if err := unix.Setpriority(unix.PRIO_PROCESS, unix.Gettid(), 10); err != nil {
		return fmt.Errorf("setpriority of thread %d: %w", unix.Gettid(), err)
	}
	return nil
}
