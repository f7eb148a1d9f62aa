package prio

import (
	"fmt"

	"golang.org/x/sys/windows"
)

// Unpacker puts this process in background mode: Windows lowers its
// processor scheduling, I/O and memory priority until it ends. The
// process's priority class, BELOW_NORMAL_PRIORITY_CLASS, is set by the
// parent when it creates it; background mode can only be entered by a
// process on itself.
func Unpacker() error {
	if err := windows.SetPriorityClass(windows.CurrentProcess(), windows.PROCESS_MODE_BACKGROUND_BEGIN); err != nil {
		return fmt.Errorf("enter background mode: %w", err)
	}
	return nil
}

// Installer does nothing on Windows: the unpacker alone runs in the
// background there.
func Installer() error { return nil }

// Do runs fn: on Windows the installing process keeps its priority (see
// Installer).
func Do(fn func()) { fn() }
