//go:build !linux && !windows

package prio

// Unpacker does nothing on this system.
func Unpacker() error { return nil }

// Installer does nothing on this system.
func Installer() error { return nil }

// Do runs fn at this process's priority.
func Do(fn func()) { fn() }
