package watch

import "time"

// Clock is the time source of a [Watcher]. Production code uses
// [systemClock]; tests pass a fake they advance by hand, so that nothing
// waits on the wall clock.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// NewTimer returns a stopped-or-running timer that fires once, d from
	// now, as time.NewTimer does.
	NewTimer(d time.Duration) Timer
}

// Timer is a one-shot timer made by a [Clock]. Its semantics are those of a
// time.Timer since Go 1.23: after Reset or Stop returns, no value sent for
// the earlier deadline is received from C.
type Timer interface {
	// C returns the channel the timer sends the time on when it fires.
	C() <-chan time.Time
	// Reset makes the timer fire d from now, whether or not it was running.
	Reset(d time.Duration)
	// Stop stops the timer.
	Stop()
}

// osClock returns the [Clock] of the operating system.
func osClock() Clock { return systemClock{} }

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

func (systemClock) NewTimer(d time.Duration) Timer { return systemTimer{time.NewTimer(d)} }

type systemTimer struct{ t *time.Timer }

func (t systemTimer) C() <-chan time.Time   { return t.t.C }
func (t systemTimer) Reset(d time.Duration) { t.t.Reset(d) }
func (t systemTimer) Stop()                 { t.t.Stop() }
