package watch

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

// fakeClock is a Clock that moves only when a test advances it.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
	fired  int // timer fires so far
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) NewTimer(d time.Duration) Timer {
	t := &fakeTimer{c: c, ch: make(chan time.Time, 1)}
	c.mu.Lock()
	c.timers = append(c.timers, t)
	c.mu.Unlock()
	t.Reset(d)
	return t
}

// AdvanceTo moves the clock to at, if that is later, and fires the timers
// that are due.
func (c *fakeClock) AdvanceTo(at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if at.After(c.now) {
		c.now = at
	}
	for _, t := range c.timers {
		if t.active && !t.at.After(c.now) {
			t.fireLocked()
		}
	}
}

// Fired returns how many times a timer of c fired.
func (c *fakeClock) Fired() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.fired
}

type fakeTimer struct {
	c      *fakeClock
	ch     chan time.Time
	at     time.Time
	active bool
}

func (t *fakeTimer) C() <-chan time.Time { return t.ch }

func (t *fakeTimer) Reset(d time.Duration) {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	t.drainLocked()
	t.at, t.active = t.c.now.Add(d), true
	if d <= 0 {
		t.fireLocked()
	}
}

func (t *fakeTimer) Stop() {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	t.active = false
	t.drainLocked()
}

func (t *fakeTimer) drainLocked() {
	select {
	case <-t.ch:
	default:
	}
}

func (t *fakeTimer) fireLocked() {
	t.active = false
	t.c.fired++
	select {
	case t.ch <- t.c.now:
	default:
	}
}

// fakeSource is an EventSource whose events and errors a test pushes.
type fakeSource struct {
	events chan fsnotify.Event
	errs   chan error
	mu     sync.Mutex
	added  []string
	closed int
}

func newFakeSource() *fakeSource {
	return &fakeSource{events: make(chan fsnotify.Event), errs: make(chan error)}
}

func (s *fakeSource) Add(path string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.added = append(s.added, path)
	return nil
}
func (s *fakeSource) Events() <-chan fsnotify.Event { return s.events }
func (s *fakeSource) Errors() <-chan error          { return s.errs }
func (s *fakeSource) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed++
	return nil
}

// testIgnored is SPEC §2's list of unfinished-download and temp names, the
// rule the pipeline's Ignored implements; the watcher takes it as a value.
func testIgnored(name string) bool {
	n := strings.ToLower(name)
	for _, suf := range []string{".part", ".crdownload", ".download", ".tmp"} {
		if strings.HasSuffix(n, suf) {
			return true
		}
	}
	return strings.HasPrefix(n, "~") || strings.HasPrefix(n, ".")
}

const (
	testSettle = 750 * time.Millisecond
	testRescan = 60 * time.Second
	testWait   = 20 * time.Second // real-time guard against a hang; never reached when things work
)

// harness runs a Watcher on a temp drop folder with a fake clock and records
// what it does. OnBatch moves each reported file out of drop, as the
// pipeline's claim does.
type harness struct {
	t       *testing.T
	drop    string
	claimed string
	clock   *fakeClock
	w       *Watcher
	cancel  context.CancelFunc
	done    chan error

	sig chan struct{} // pinged on every recorded change

	mu          sync.Mutex // guards the fields below
	next        time.Time  // the watcher's next wake-up, as of its last idle
	fresh       bool       // the watcher is idle and nothing it reported since changed next
	idles       int        // how many times the watcher went idle
	watched     int        // how many times drop was (re)watched
	seen        map[string]int64
	batches     [][]string
	batchAt     []time.Time
	reported    map[string]int
	claimedSize map[string]int64
}

type harnessOptions struct {
	drop      string // default: <tmp>/drop
	openCheck func(h *harness, path string) error
	newSource func(h *harness) (EventSource, error)
	onBatch   func(h *harness, ctx context.Context, names []string) error // replaces the claiming OnBatch
	beforeRun func(h *harness)
}

func newHarness(t *testing.T, o harnessOptions) *harness {
	t.Helper()
	tmp := t.TempDir()
	h := &harness{
		t:           t,
		drop:        o.drop,
		claimed:     filepath.Join(tmp, "claimed"),
		clock:       newFakeClock(),
		sig:         make(chan struct{}, 1),
		seen:        make(map[string]int64),
		reported:    make(map[string]int),
		claimedSize: make(map[string]int64),
	}
	if h.drop == "" {
		h.drop = filepath.Join(tmp, "drop")
	}
	if err := os.MkdirAll(h.drop, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(h.claimed, 0o755); err != nil {
		t.Fatal(err)
	}
	onBatch := h.claim
	if o.onBatch != nil {
		onBatch = func(ctx context.Context, names []string) error { return o.onBatch(h, ctx, names) }
	}
	var openCheck func(string) error
	if o.openCheck != nil {
		openCheck = func(path string) error { return o.openCheck(h, path) }
	}
	var newSource func() (EventSource, error)
	if o.newSource != nil {
		newSource = func() (EventSource, error) { return o.newSource(h) }
	}
	w, err := New(Options{
		Drop:      h.drop,
		Settle:    testSettle,
		Rescan:    testRescan,
		Ignore:    testIgnored,
		OnBatch:   onBatch,
		OpenCheck: openCheck,
		Clock:     h.clock,
		NewSource: newSource,
		Logger:    testLogger(t),
	})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	w.hookWake = func() {
		h.update(func() { h.fresh = false })
	}
	w.hookIdle = func(next time.Time) {
		h.update(func() { h.next, h.fresh = next, true; h.idles++ })
	}
	w.hookSeen = func(name string, size int64) {
		h.update(func() { h.seen[name], h.fresh = size, false })
	}
	w.hookWatched = func() {
		h.update(func() { h.watched++; h.fresh = false })
	}
	h.w = w
	if o.beforeRun != nil {
		o.beforeRun(h)
	}
	ctx, cancel := context.WithCancel(t.Context())
	h.cancel = cancel
	h.done = make(chan error, 1)
	go func() { h.done <- w.Run(ctx) }()
	t.Cleanup(func() { h.stop() })
	h.waitFor("first idle", func() bool { return h.idles > 0 })
	return h
}

func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}

// stop cancels Run and checks that it returns nil.
func (h *harness) stop() {
	h.t.Helper()
	if h.cancel == nil {
		return
	}
	h.cancel()
	h.cancel = nil
	select {
	case err := <-h.done:
		if err != nil {
			h.t.Errorf("Run = %v after cancel; want nil", err)
		}
	case <-time.After(testWait):
		h.t.Fatalf("Run did not return within %v of cancel", testWait)
	}
}

func (h *harness) update(f func()) {
	h.mu.Lock()
	f()
	h.mu.Unlock()
	select {
	case h.sig <- struct{}{}:
	default:
	}
}

// claim is the default OnBatch: it records the batch and moves its files
// out of drop.
func (h *harness) claim(ctx context.Context, names []string) error {
	now := h.clock.Now()
	sizes := make(map[string]int64)
	for _, name := range names {
		src := filepath.Join(h.drop, name)
		if fi, err := os.Stat(src); err == nil {
			sizes[name] = fi.Size()
		}
		if err := os.Rename(src, filepath.Join(h.claimed, name)); err != nil {
			h.t.Errorf("claim %s: %v", name, err)
		}
	}
	h.update(func() {
		h.batches = append(h.batches, append([]string(nil), names...))
		h.batchAt = append(h.batchAt, now)
		for _, name := range names {
			h.reported[name]++
			h.claimedSize[name] = sizes[name]
		}
	})
	return nil
}

// waitFor waits, in real time with a guard, until cond holds; cond runs with
// h.mu held.
func (h *harness) waitFor(what string, cond func() bool) {
	h.t.Helper()
	guard := time.NewTimer(testWait)
	defer guard.Stop()
	for {
		h.mu.Lock()
		ok := cond()
		h.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-h.sig:
		case <-guard.C:
			h.t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func (h *harness) waitSeen(name string, size int64) {
	h.t.Helper()
	h.waitFor("watcher to see "+name, func() bool { s, ok := h.seen[name]; return ok && s == size })
}

// runUntil advances the fake clock from one wake-up of the watcher to the
// next until cond holds; cond runs with h.mu held.
//
// The clock is advanced only to a next wake-up the watcher posted after the
// last change it reported, so it never jumps past a deadline the watcher is
// still computing. Something that makes the watcher act without a hook (an
// injected source error) must be followed by waiting for its next idle.
func (h *harness) runUntil(what string, cond func() bool) {
	h.t.Helper()
	h.drive(what, cond, time.Time{})
}

// runThrough advances the fake clock from one wake-up of the watcher to the
// next until its next wake-up is after limit. The clock ends at or before
// limit.
func (h *harness) runThrough(limit time.Time) {
	h.t.Helper()
	h.drive("clock to reach "+limit.String(), func() bool { return h.fresh && h.next.After(limit) }, limit)
}

func (h *harness) drive(what string, cond func() bool, limit time.Time) {
	h.t.Helper()
	guard := time.NewTimer(testWait)
	defer guard.Stop()
	for {
		h.mu.Lock()
		ok, next := cond(), h.next
		// Advancing under h.mu keeps the watcher from waking (its wake-up
		// hook takes h.mu) between reading the clock and arming its timer.
		if !ok && h.fresh && next.After(h.clock.Now()) && (limit.IsZero() || !next.After(limit)) {
			h.clock.AdvanceTo(next)
		}
		h.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-h.sig:
		case <-guard.C:
			h.t.Fatalf("timed out waiting for %s (fake clock %v, next wake-up %v)", what, h.clock.Now(), next)
		}
	}
}

// advance moves the fake clock on by d once the watcher is idle and up to
// date, whether or not that reaches its next wake-up.
func (h *harness) advance(d time.Duration) {
	h.t.Helper()
	h.waitFor("the watcher to be idle", func() bool {
		if !h.fresh {
			return false
		}
		h.clock.AdvanceTo(h.clock.Now().Add(d))
		return true
	})
}

func (h *harness) batchCount() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.batches)
}

func (h *harness) snapshot() (batches [][]string, at []time.Time, reported map[string]int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	reported = make(map[string]int, len(h.reported))
	for k, v := range h.reported {
		reported[k] = v
	}
	return append([][]string(nil), h.batches...), append([]time.Time(nil), h.batchAt...), reported
}

func (h *harness) idleCount() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.idles
}

var errSimulatedLock = errors.New("simulated sharing violation")
