//go:build !linux && !windows

package prio

// Unpacker does nothing on this system.
func Unpacker() error { return nil }

// Installer does nothing on this system.
func Installer() error { return nil }

// Thread does nothing on this system.
func Thread() error { return nil }
