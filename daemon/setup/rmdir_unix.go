//go:build !windows

package setup

import "golang.org/x/sys/unix"

// removeDir removes the empty folder dir, and nothing else: never a file
// or a link of the same name.
func removeDir(dir string) error { return unix.Rmdir(dir) }
