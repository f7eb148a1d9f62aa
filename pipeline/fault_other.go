//go:build !windows

package pipeline

// platformFault reports the platform's own errors of the machine's
// condition; syscall's cover them here.
func platformFault(error) bool { return false }

// platformDiskFull: ENOSPC and EDQUOT cover it here.
func platformDiskFull(error) bool { return false }
