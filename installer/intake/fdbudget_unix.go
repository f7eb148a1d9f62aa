//go:build unix

package intake

import "syscall"

// openFileBudget is how many descriptors this process may hold (the soft
// RLIMIT_NOFILE, which Go raises to the hard one at start), or 0 when
// unknown.
func openFileBudget() uint64 {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return 0
	}
	return uint64(l.Cur)
}
