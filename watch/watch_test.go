package watch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

func writeFile(t *testing.T, path string, size int) {
	t.Helper()
	if err := os.WriteFile(path, make([]byte, size), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestNewWatcherRejectsBadOptions(t *testing.T) {
	good := Options{
		Drop:    "drop",
		Settle:  time.Second,
		Rescan:  time.Minute,
		Ignore:  testIgnored,
		OnBatch: func(context.Context, []string) error { return nil },
	}
	tests := []struct {
		name   string
		modify func(*Options)
		want   string // in the error; "" for success
	}{
		{"good", func(*Options) {}, ""},
		{"no drop", func(o *Options) { o.Drop = "" }, "Drop is empty"},
		{"zero settle", func(o *Options) { o.Settle = 0 }, "Settle = 0s"},
		{"negative rescan", func(o *Options) { o.Rescan = -time.Second }, "Rescan = -1s"},
		{"negative quiet", func(o *Options) { o.BatchQuiet = -1 }, "BatchQuiet"},
		{"negative max wait", func(o *Options) { o.BatchMaxWait = -1 }, "BatchMaxWait"},
		{"no ignore", func(o *Options) { o.Ignore = nil }, "Ignore is nil"},
		{"no onbatch", func(o *Options) { o.OnBatch = nil }, "OnBatch is nil"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := good
			tt.modify(&o)
			w, err := New(o)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("New(%+v) = %v; want nil", o, err)
				}
				if !filepath.IsAbs(w.drop) {
					t.Errorf("Drop() = %q; want an absolute path", w.drop)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("New(%+v) = %v; want an error containing %q", o, err, tt.want)
			}
		})
	}
}

// A file written in chunks, with the clock advanced by less than Settle
// after each, is reported once, complete, and not before Settle has passed
// since its last chunk.
func TestWatcherSlowWriteReportedOnceAfterSettle(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	path := filepath.Join(h.drop, "slow.zip")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	const chunk, chunks = 4096, 12
	var lastWrite time.Time
	for i := 1; i <= chunks; i++ {
		if _, err := f.Write(make([]byte, chunk)); err != nil {
			t.Fatal(err)
		}
		lastWrite = h.clock.Now()
		h.waitSeen("slow.zip", int64(i*chunk))
		h.advance(testSettle / 2)
		if n := h.batchCount(); n != 0 {
			t.Fatalf("after chunk %d of %d: %d batches; want none while the file is written", i, chunks, n)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	h.runUntil("the batch", func() bool { return len(h.batches) > 0 })
	// Go on for two rescans: the name must not come again.
	h.runThrough(h.clock.Now().Add(2 * testRescan))

	batches, at, reported := h.snapshot()
	if want := [][]string{{"slow.zip"}}; !slices.EqualFunc(batches, want, slices.Equal) {
		t.Fatalf("batches = %q; want %q", batches, want)
	}
	if at[0].Before(lastWrite.Add(testSettle)) {
		t.Errorf("reported at %v; want no earlier than Settle (%v) after the last chunk at %v", at[0], testSettle, lastWrite)
	}
	if got, want := h.claimedSize["slow.zip"], int64(chunk*chunks); got != want {
		t.Errorf("size when reported = %d; want %d (complete)", got, want)
	}
	if reported["slow.zip"] != 1 {
		t.Errorf("slow.zip reported %d times; want 1", reported["slow.zip"])
	}
}

// A download under a .part name is not tracked; once renamed to .zip it is
// reported once.
func TestWatcherPartRenamedReportedOnce(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	part := filepath.Join(h.drop, "pack.zip.part")
	f, err := os.Create(part)
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		if _, err := f.Write(make([]byte, 1000)); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	// Events come in order: once marker.zip is seen, the watcher has had
	// every event of the .part file.
	writeFile(t, filepath.Join(h.drop, "marker.zip"), 1)
	h.waitSeen("marker.zip", 1)
	// Several settle periods and a rescan pass with the .part in place.
	h.runThrough(h.clock.Now().Add(testRescan + 5*testSettle))
	if batches, _, _ := h.snapshot(); !slices.EqualFunc(batches, [][]string{{"marker.zip"}}, slices.Equal) {
		t.Fatalf("batches = %q while pack.zip.part is in drop; want only marker.zip", batches)
	}
	h.mu.Lock()
	_, tracked := h.seen["pack.zip.part"]
	h.mu.Unlock()
	if tracked {
		t.Fatalf("the watcher tracked pack.zip.part; want ignored names untracked")
	}

	if err := os.Rename(part, filepath.Join(h.drop, "pack.zip")); err != nil {
		t.Fatal(err)
	}
	renamedAt := h.clock.Now()
	h.waitSeen("pack.zip", 5000)
	h.runUntil("the batch", func() bool { return len(h.batches) > 1 })
	h.runThrough(h.clock.Now().Add(2 * testRescan))

	batches, at, _ := h.snapshot()
	if want := [][]string{{"marker.zip"}, {"pack.zip"}}; !slices.EqualFunc(batches, want, slices.Equal) {
		t.Fatalf("batches = %q; want %q", batches, want)
	}
	if at[1].Before(renamedAt.Add(testSettle)) {
		t.Errorf("reported at %v; want no earlier than Settle after the rename at %v", at[1], renamedAt)
	}
}

// A file that does not open for reading (a browser holding it on Windows;
// here an injected failure) is held until it opens, then reported once.
func TestWatcherLockedFileHeldUntilUnlocked(t *testing.T) {
	var locked atomic.Bool
	var attempts atomic.Int32
	locked.Store(true)
	h := newHarness(t, harnessOptions{openCheck: func(_ *harness, path string) error {
		if locked.Load() {
			attempts.Add(1)
			return &fs.PathError{Op: "open", Path: path, Err: errSimulatedLock}
		}
		return openForReading(path)
	}})
	writeFile(t, filepath.Join(h.drop, "locked.zip"), 100)
	h.waitSeen("locked.zip", 100)
	h.runUntil("three open attempts", func() bool { return attempts.Load() >= 3 })
	if n := h.batchCount(); n != 0 {
		t.Fatalf("%d batches while the file is locked; want none", n)
	}

	locked.Store(false)
	h.runUntil("the batch", func() bool { return len(h.batches) > 0 })
	h.runThrough(h.clock.Now().Add(2 * testRescan))
	batches, _, _ := h.snapshot()
	if want := [][]string{{"locked.zip"}}; !slices.EqualFunc(batches, want, slices.Equal) {
		t.Fatalf("batches = %q; want %q", batches, want)
	}
}

// 200 archives dropped at once come in one batch, each name once.
func TestWatcherManyFilesOneBatch(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	const n = 200
	var names []string
	for i := range n {
		name := fmt.Sprintf("pack-%03d.zip", i)
		names = append(names, name)
		writeFile(t, filepath.Join(h.drop, name), 64+i)
	}
	for i, name := range names {
		h.waitSeen(name, int64(64+i))
	}
	h.runUntil("all 200 reported", func() bool { return len(h.reported) == n })
	h.runThrough(h.clock.Now().Add(2 * testRescan))

	batches, _, reported := h.snapshot()
	for _, name := range names {
		if reported[name] != 1 {
			t.Errorf("%s reported %d times; want 1", name, reported[name])
		}
	}
	if len(reported) != n {
		t.Errorf("%d names reported; want %d", len(reported), n)
	}
	// All 200 were seen before the clock moved, so they settle together.
	if len(batches) != 1 {
		t.Errorf("%d batches; want 1", len(batches))
	}
	for i, b := range batches {
		if !slices.IsSorted(b) {
			t.Errorf("batch %d is not sorted: %q", i, b)
		}
	}
}

// Files in drop/rejected/ (or any subfolder) are never reported, whether
// there at the start or put there later.
func TestWatcherIgnoresSubfolders(t *testing.T) {
	h := newHarness(t, harnessOptions{beforeRun: func(h *harness) {
		rej := filepath.Join(h.drop, "rejected")
		if err := os.Mkdir(rej, 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(rej, "old.zip"), 10)
	}})
	writeFile(t, filepath.Join(h.drop, "rejected", "new.zip"), 10)
	if err := os.Mkdir(filepath.Join(h.drop, "other"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(h.drop, "other", "x.zip"), 10)
	writeFile(t, filepath.Join(h.drop, "good.zip"), 10)
	h.waitSeen("good.zip", 10)
	h.runUntil("the batch", func() bool { return len(h.batches) > 0 })
	h.runThrough(h.clock.Now().Add(3 * testRescan))

	batches, _, _ := h.snapshot()
	if want := [][]string{{"good.zip"}}; !slices.EqualFunc(batches, want, slices.Equal) {
		t.Fatalf("batches = %q; want %q", batches, want)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for name := range h.seen {
		if name != "good.zip" {
			t.Errorf("the watcher tracked %q; want only good.zip", name)
		}
	}
}

// Archives already in drop when Run starts are reported, together.
func TestWatcherStartupScan(t *testing.T) {
	h := newHarness(t, harnessOptions{beforeRun: func(h *harness) {
		for _, name := range []string{"b.zip", "a.7z", "c.tar.gz", "skip.tmp", ".hidden", "~lock.zip"} {
			writeFile(t, filepath.Join(h.drop, name), 10)
		}
	}})
	start := h.clock.Now()
	h.runUntil("the batch", func() bool { return len(h.batches) > 0 })
	h.runThrough(h.clock.Now().Add(testRescan))
	batches, at, _ := h.snapshot()
	if want := [][]string{{"a.7z", "b.zip", "c.tar.gz"}}; !slices.EqualFunc(batches, want, slices.Equal) {
		t.Fatalf("batches = %q; want %q", batches, want)
	}
	if !at[0].Before(start.Add(testRescan)) {
		t.Errorf("reported at %v; want before the first periodic rescan at %v", at[0], start.Add(testRescan))
	}
}

// An error from the event source, an overflow or any other, makes the
// watcher rescan drop at once: a file whose events were lost is found well
// before the periodic rescan.
func TestWatcherRescansAfterSourceError(t *testing.T) {
	for _, sourceErr := range []error{fsnotify.ErrEventOverflow, errors.New("read inotify: input/output error")} {
		t.Run(sourceErr.Error(), func(t *testing.T) {
			src := newFakeSource()
			h := newHarness(t, harnessOptions{newSource: func(*harness) (EventSource, error) { return src, nil }})
			start := h.clock.Now()
			// The fake source delivers no events: this file's are lost.
			writeFile(t, filepath.Join(h.drop, "lost.zip"), 10)
			h.runThrough(start.Add(testRescan / 2))
			if n := h.batchCount(); n != 0 {
				t.Fatalf("%d batches before the error; want none", n)
			}
			idles := h.idleCount()
			select {
			case src.errs <- sourceErr:
			case <-time.After(testWait):
				t.Fatal("the watcher does not read the source's errors")
			}
			h.waitFor("the watcher to handle the error", func() bool { return h.idles > idles })
			h.runUntil("the batch", func() bool { return len(h.batches) > 0 })
			batches, at, _ := h.snapshot()
			if want := [][]string{{"lost.zip"}}; !slices.EqualFunc(batches, want, slices.Equal) {
				t.Fatalf("batches = %q; want %q", batches, want)
			}
			if !at[0].Before(start.Add(testRescan)) {
				t.Errorf("reported at %v; want before the periodic rescan at %v", at[0], start.Add(testRescan))
			}
		})
	}
}

// Files in drop are found by the periodic rescan even if every event is
// lost and no error is reported.
func TestWatcherPeriodicRescan(t *testing.T) {
	src := newFakeSource()
	h := newHarness(t, harnessOptions{newSource: func(*harness) (EventSource, error) { return src, nil }})
	start := h.clock.Now()
	writeFile(t, filepath.Join(h.drop, "quiet.zip"), 10)
	h.runUntil("the batch", func() bool { return len(h.batches) > 0 })
	_, at, _ := h.snapshot()
	if at[0].Before(start.Add(testRescan)) {
		t.Errorf("reported at %v; want no earlier than the rescan at %v (no event was delivered)", at[0], start.Add(testRescan))
	}
}

// A deleted drop folder is created again and watched: files dropped into the
// new folder are reported.
func TestWatcherDropDeletedRecreated(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	if err := os.RemoveAll(h.drop); err != nil {
		t.Fatal(err)
	}
	h.waitFor("drop to be watched again", func() bool { return h.watched >= 2 })
	if fi, err := os.Stat(h.drop); err != nil || !fi.IsDir() {
		t.Fatalf("stat drop after rewatch: %v, %v; want a folder", fi, err)
	}
	writeFile(t, filepath.Join(h.drop, "after.zip"), 10)
	h.waitSeen("after.zip", 10)
	h.runUntil("the batch", func() bool { return len(h.batches) > 0 })
	batches, _, _ := h.snapshot()
	if want := [][]string{{"after.zip"}}; !slices.EqualFunc(batches, want, slices.Equal) {
		t.Fatalf("batches = %q; want %q", batches, want)
	}
}

// A drop folder replaced by another (renamed away, a new one made) is
// noticed and the new one watched.
func TestWatcherDropReplaced(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	if err := os.Rename(h.drop, h.drop+"-old"); err != nil {
		t.Fatal(err)
	}
	h.waitFor("drop to be watched again", func() bool { return h.watched >= 2 })
	writeFile(t, filepath.Join(h.drop, "new.zip"), 10)
	writeFile(t, filepath.Join(h.drop+"-old", "old.zip"), 10)
	h.waitSeen("new.zip", 10)
	h.runUntil("the batch", func() bool { return len(h.batches) > 0 })
	h.runThrough(h.clock.Now().Add(testRescan))
	batches, _, _ := h.snapshot()
	if want := [][]string{{"new.zip"}}; !slices.EqualFunc(batches, want, slices.Equal) {
		t.Fatalf("batches = %q; want %q", batches, want)
	}
}

// If drop cannot be watched again at once, the watcher retries with a
// back-off that grows and stays within Rescan, and recovers.
func TestWatcherRewatchBackoff(t *testing.T) {
	var failing atomic.Bool
	var mu sync.Mutex
	var attempts []time.Time // fake times of the failed attempts
	h := newHarness(t, harnessOptions{newSource: func(h *harness) (EventSource, error) {
		if failing.Load() {
			mu.Lock()
			attempts = append(attempts, h.clock.Now())
			mu.Unlock()
			return nil, errors.New("inotify_init1: too many open files")
		}
		return newFSNotifySource()
	}})
	failing.Store(true)
	start := h.clock.Now()
	if err := os.RemoveAll(h.drop); err != nil {
		t.Fatal(err)
	}
	h.waitFor("a failed attempt to watch drop again", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(attempts) > 0
	})
	h.runThrough(start.Add(5 * testRescan))
	h.mu.Lock()
	watched := h.watched
	h.mu.Unlock()
	if watched != 1 {
		t.Fatalf("drop watched %d times while the source fails; want 1", watched)
	}
	mu.Lock()
	got := slices.Clone(attempts)
	mu.Unlock()
	if len(got) < 5 {
		t.Fatalf("%d attempts to watch drop again in %v; want a few", len(got), 5*testRescan)
	}
	for i := 2; i < len(got); i++ {
		prev, gap := got[i-1].Sub(got[i-2]), got[i].Sub(got[i-1])
		if gap < prev || gap > testRescan {
			t.Errorf("retry %d came %v after the one before, which came %v after its own; want a non-shrinking gap of at most %v", i, gap, prev, testRescan)
		}
	}
	if gap := got[len(got)-1].Sub(got[len(got)-2]); gap != testRescan {
		t.Errorf("last retry gap = %v; want the back-off capped at Rescan (%v)", gap, testRescan)
	}

	failing.Store(false)
	h.runUntil("drop to be watched again", func() bool { return h.watched >= 2 })
	writeFile(t, filepath.Join(h.drop, "back.zip"), 10)
	h.waitSeen("back.zip", 10)
	h.runUntil("the batch", func() bool { return len(h.batches) > 0 })
	batches, _, _ := h.snapshot()
	if want := [][]string{{"back.zip"}}; !slices.EqualFunc(batches, want, slices.Equal) {
		t.Fatalf("batches = %q; want %q", batches, want)
	}
}

// A file that changes while it is being checked (a writer that shares it
// for reading, as some copy tools do) settles again before it is reported.
func TestWatcherChangeDuringOpenCheckRestartsSettle(t *testing.T) {
	var once sync.Once
	var checkedAt atomic.Pointer[time.Time]
	h := newHarness(t, harnessOptions{openCheck: func(h *harness, path string) error {
		once.Do(func() {
			now := h.clock.Now()
			checkedAt.Store(&now)
			f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Error(err)
				return
			}
			defer f.Close()
			if _, err := f.Write(make([]byte, 10)); err != nil {
				t.Error(err)
			}
		})
		return openForReading(path)
	}})
	writeFile(t, filepath.Join(h.drop, "a.zip"), 10)
	h.waitSeen("a.zip", 10)
	h.runUntil("the batch", func() bool { return len(h.batches) > 0 })

	batches, at, _ := h.snapshot()
	if want := [][]string{{"a.zip"}}; !slices.EqualFunc(batches, want, slices.Equal) {
		t.Fatalf("batches = %q; want %q", batches, want)
	}
	if min := checkedAt.Load().Add(testSettle); at[0].Before(min) {
		t.Errorf("batch at %v; want no earlier than %v, Settle after the change during the check", at[0], min)
	}
	if got := h.claimedSize["a.zip"]; got != 20 {
		t.Errorf("size when reported = %d; want 20", got)
	}
}

// A symlink (or any non-regular file) is never reported; archives beside it are.
func TestWatcherSkipsNonRegular(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	target := filepath.Join(t.TempDir(), "target.zip")
	writeFile(t, target, 10)
	if err := os.Symlink(target, filepath.Join(h.drop, "link.zip")); err != nil {
		t.Skipf("symlink: %v", err)
	}
	writeFile(t, filepath.Join(h.drop, "real.zip"), 10)
	h.waitSeen("real.zip", 10)
	h.runUntil("the batch", func() bool { return len(h.batches) > 0 })
	h.runThrough(h.clock.Now().Add(2 * testRescan))
	batches, _, _ := h.snapshot()
	if want := [][]string{{"real.zip"}}; !slices.EqualFunc(batches, want, slices.Equal) {
		t.Fatalf("batches = %q; want %q", batches, want)
	}
}

// A name the pipeline leaves in drop after OnBatch is reported again after
// the next rescan, as documented.
func TestWatcherSkippedNameReportedAgainOnRescan(t *testing.T) {
	h := newHarness(t, harnessOptions{onBatch: func(h *harness, ctx context.Context, names []string) error {
		now := h.clock.Now()
		h.update(func() { h.batches = append(h.batches, names); h.batchAt = append(h.batchAt, now) })
		return nil // leaves the file in drop
	}})
	start := h.clock.Now()
	// Moved in whole, as a browser ends a download: one event. Written in
	// place, its write's event could arrive after the first report (a
	// loaded machine, the race detector: 17 runs in 1,000) and, as
	// documented, have it reported again before the rescan.
	part := filepath.Join(filepath.Dir(h.drop), "stay.zip")
	writeFile(t, part, 10)
	if err := os.Rename(part, filepath.Join(h.drop, "stay.zip")); err != nil {
		t.Fatal(err)
	}
	h.waitSeen("stay.zip", 10)
	h.runUntil("second batch", func() bool { return len(h.batches) == 2 })
	batches, at, _ := h.snapshot()
	if want := [][]string{{"stay.zip"}, {"stay.zip"}}; !slices.EqualFunc(batches, want, slices.Equal) {
		t.Fatalf("batches = %q; want %q", batches, want)
	}
	if at[0].After(start.Add(testRescan)) {
		t.Errorf("first report at %v; want it before the first rescan at %v", at[0], start.Add(testRescan))
	}
	if at[1].Before(start.Add(testRescan)) {
		t.Errorf("reported again at %v; want no earlier than the next rescan at %v", at[1], start.Add(testRescan))
	}
}

// A failing OnBatch ends Run with its error.
func TestWatcherOnBatchErrorEndsRun(t *testing.T) {
	errInstall := errors.New("state folder is not writable")
	h := newHarness(t, harnessOptions{onBatch: func(h *harness, _ context.Context, names []string) error {
		h.update(func() { h.batches = append(h.batches, names) })
		return errInstall
	}})
	writeFile(t, filepath.Join(h.drop, "a.zip"), 10)
	h.waitSeen("a.zip", 10)
	h.runUntil("OnBatch", func() bool { return len(h.batches) > 0 })
	select {
	case err := <-h.done:
		h.cancel = nil // Run is over
		if !errors.Is(err, errInstall) || !strings.Contains(err.Error(), h.drop) {
			t.Fatalf("Run = %v; want an error that wraps %v and names %s", err, errInstall, h.drop)
		}
	case <-time.After(testWait):
		t.Fatal("Run did not end after OnBatch failed")
	}
}

// A second Run on the same Watcher while the first runs is refused.
func TestWatcherRunTwiceRefused(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	err := h.w.Run(t.Context())
	if err == nil || !strings.Contains(err.Error(), "already running") {
		t.Fatalf("second Run = %v; want an error saying it is already running", err)
	}
}

// Run fails at once, saying where, if drop cannot be created.
func TestWatcherRunFailsIfDropCannotBeCreated(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	writeFile(t, file, 1)
	w, err := New(Options{
		Drop: filepath.Join(file, "drop"), Settle: testSettle, Rescan: testRescan,
		Ignore: testIgnored, OnBatch: func(context.Context, []string) error { return nil },
		Clock: newFakeClock(),
	})
	if err != nil {
		t.Fatal(err)
	}
	err = w.Run(t.Context())
	if err == nil || !strings.Contains(err.Error(), file) {
		t.Fatalf("Run = %v; want an error naming %s", err, file)
	}
}

// Cancelling Run returns nil and leaves no goroutine behind, also when the
// cancel comes while OnBatch runs.
func TestWatcherCancelLeavesNoGoroutine(t *testing.T) {
	for _, during := range []string{"idle", "OnBatch"} {
		t.Run(during, func(t *testing.T) {
			before := runtime.NumGoroutine()
			inBatch := make(chan struct{})
			drop := filepath.Join(t.TempDir(), "drop")
			w, err := New(Options{
				Drop: drop, Settle: testSettle, Rescan: testRescan, Ignore: testIgnored,
				OnBatch: func(ctx context.Context, names []string) error {
					close(inBatch)
					<-ctx.Done()
					return ctx.Err()
				},
				Clock: osClock(),
			})
			if err != nil {
				t.Fatal(err)
			}
			watched := make(chan struct{})
			var once sync.Once
			w.hookWatched = func() { once.Do(func() { close(watched) }) }
			if during == "OnBatch" {
				if err := os.MkdirAll(drop, 0o755); err != nil {
					t.Fatal(err)
				}
				writeFile(t, filepath.Join(drop, "a.zip"), 10)
				// The real clock: a short settle lets the batch start soon.
				w.settle, w.quiet = time.Millisecond, time.Millisecond
			}
			ctx, cancel := context.WithCancel(t.Context())
			done := make(chan error, 1)
			go func() { done <- w.Run(ctx) }()
			waitChan(t, watched, "drop to be watched")
			if during == "OnBatch" {
				waitChan(t, inBatch, "OnBatch to be called")
			}
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("Run = %v after cancel; want nil", err)
				}
			case <-time.After(testWait):
				t.Fatal("Run did not return after cancel")
			}
			// The goroutine that ran Run has sent its result; let it end.
			deadline := time.Now().Add(testWait)
			for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
				runtime.Gosched()
			}
			if n := runtime.NumGoroutine(); n > before {
				buf := make([]byte, 1<<16)
				t.Fatalf("%d goroutines after Run returned; want at most %d as before\n%s", n, before, buf[:runtime.Stack(buf, true)])
			}
		})
	}
}

func waitChan(t *testing.T, c <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-c:
	case <-time.After(testWait):
		t.Fatalf("timed out waiting for %s", what)
	}
}

// When nothing happens, the watcher wakes only for the periodic rescan; a
// file that never opens costs a back-off, not a busy loop.
func TestWatcherIdleWakeups(t *testing.T) {
	const periods = 10
	t.Run("empty", func(t *testing.T) {
		h := newHarness(t, harnessOptions{})
		idles, fired := h.idleCount(), h.clock.Fired()
		h.runThrough(h.clock.Now().Add(periods*testRescan + testRescan/2))
		wakeups, fires := h.idleCount()-idles, h.clock.Fired()-fired
		t.Logf("%d wake-ups, %d timer fires over %v of idle time with Rescan = %v", wakeups, fires, periods*testRescan, testRescan)
		if wakeups != periods || fires != periods {
			t.Errorf("%d wake-ups, %d timer fires over %d rescan periods; want %d (one per rescan)", wakeups, fires, periods, periods)
		}
	})
	t.Run("locked file", func(t *testing.T) {
		// Events from the real source could come at any moment; the fake
		// one sends none, so every wake-up here is the watcher's own.
		h := newHarness(t, harnessOptions{
			newSource: func(*harness) (EventSource, error) { return newFakeSource(), nil },
			openCheck: func(_ *harness, path string) error {
				return &fs.PathError{Op: "open", Path: path, Err: errSimulatedLock}
			},
			beforeRun: func(h *harness) { writeFile(t, filepath.Join(h.drop, "held.zip"), 10) },
		})
		idles := h.idleCount()
		h.runThrough(h.clock.Now().Add(periods*testRescan + testRescan/2))
		wakeups := h.idleCount() - idles
		// Retries after 0.75s, 1.5s, 3s, … 48s (eight to reach the cap),
		// then one every Rescan, plus the rescans themselves.
		limit := periods + 8 + periods
		t.Logf("%d wake-ups over %v with a locked file", wakeups, periods*testRescan)
		if wakeups > limit {
			t.Errorf("%d wake-ups over %d rescan periods with a locked file; want at most %d", wakeups, periods, limit)
		}
		if n := h.batchCount(); n != 0 {
			t.Errorf("%d batches with the file locked; want none", n)
		}
	})
}

// An event source that stops on its own is replaced after a pause, and the
// new one is used.
func TestWatcherReplacesStoppedSource(t *testing.T) {
	var mu sync.Mutex
	var sources []*fakeSource
	h := newHarness(t, harnessOptions{newSource: func(*harness) (EventSource, error) {
		mu.Lock()
		defer mu.Unlock()
		s := newFakeSource()
		sources = append(sources, s)
		return s, nil
	}})
	mu.Lock()
	first := sources[0]
	mu.Unlock()
	close(first.events)
	h.runUntil("a new source", func() bool { return h.watched >= 2 })

	mu.Lock()
	second := sources[len(sources)-1]
	mu.Unlock()
	first.mu.Lock()
	closed := first.closed
	first.mu.Unlock()
	if closed != 1 {
		t.Errorf("stopped source closed %d times; want 1", closed)
	}
	second.mu.Lock()
	added := slices.Clone(second.added)
	second.mu.Unlock()
	if want := []string{h.drop}; !slices.Equal(added, want) {
		t.Errorf("new source watches %q; want %q", added, want)
	}
	writeFile(t, filepath.Join(h.drop, "a.zip"), 10)
	idles := h.idleCount()
	select {
	case second.errs <- fsnotify.ErrEventOverflow:
	case <-time.After(testWait):
		t.Fatal("the watcher does not read the new source")
	}
	h.waitFor("the watcher to handle the overflow", func() bool { return h.idles > idles })
	h.runUntil("the batch", func() bool { return len(h.batches) > 0 })
	batches, _, _ := h.snapshot()
	if want := [][]string{{"a.zip"}}; !slices.EqualFunc(batches, want, slices.Equal) {
		t.Fatalf("batches = %q; want %q", batches, want)
	}
}

// A change to drop's own attributes is not mistaken for its removal.
func TestWatcherDropChmodKeepsWatch(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	if err := os.Chmod(h.drop, 0o700); err != nil {
		t.Fatal(err)
	}
	// Events come in order: once a.zip is seen, the chmod was handled.
	writeFile(t, filepath.Join(h.drop, "a.zip"), 10)
	h.waitSeen("a.zip", 10)
	h.mu.Lock()
	watched := h.watched
	h.mu.Unlock()
	if watched != 1 {
		t.Errorf("drop watched %d times after a chmod; want 1", watched)
	}
}

// The batching rule: archives whose settling overlaps go out together; a
// file that keeps changing holds a batch back for BatchMaxWait at most.
func TestWatcherBatchRule(t *testing.T) {
	t.Run("overlapping arrivals", func(t *testing.T) {
		h := newHarness(t, harnessOptions{})
		t0 := h.clock.Now()
		writeFile(t, filepath.Join(h.drop, "a.zip"), 10)
		h.waitSeen("a.zip", 10)
		h.advance(testSettle / 2)
		writeFile(t, filepath.Join(h.drop, "b.zip"), 10)
		h.waitSeen("b.zip", 10)
		h.runUntil("the batch", func() bool { return len(h.batches) > 0 })
		h.runThrough(h.clock.Now().Add(testRescan))
		batches, at, _ := h.snapshot()
		if want := [][]string{{"a.zip", "b.zip"}}; !slices.EqualFunc(batches, want, slices.Equal) {
			t.Fatalf("batches = %q; want %q (a.zip waits for b.zip, still settling)", batches, want)
		}
		if min := t0.Add(testSettle/2 + testSettle); at[0].Before(min) {
			t.Errorf("batch at %v; want no earlier than %v, when b.zip settled", at[0], min)
		}
	})
	t.Run("lone archive", func(t *testing.T) {
		// Its own settling was a quiet window longer than BatchQuiet:
		// nothing else arrived meanwhile, so it goes the moment it is
		// ready, not a quiet window later. It is renamed in, written
		// whole: one event. Written in place, its write's event could
		// reach the watcher after the clock moved on, and (as any event
		// of a file's) start its settling over then.
		h := newHarness(t, harnessOptions{})
		t0 := h.clock.Now()
		whole := filepath.Join(t.TempDir(), "a.zip")
		writeFile(t, whole, 10)
		if err := os.Rename(whole, filepath.Join(h.drop, "a.zip")); err != nil {
			t.Fatal(err)
		}
		h.waitSeen("a.zip", 10)
		h.runUntil("the batch", func() bool { return len(h.batches) > 0 })
		batches, at, _ := h.snapshot()
		if want := [][]string{{"a.zip"}}; !slices.EqualFunc(batches, want, slices.Equal) {
			t.Fatalf("batches = %q; want %q", batches, want)
		}
		if want := t0.Add(testSettle); !at[0].Equal(want) {
			t.Errorf("batch at %v; want %v, the moment a.zip settled", at[0], want)
		}
	})
	t.Run("max wait", func(t *testing.T) {
		h := newHarness(t, harnessOptions{})
		t0 := h.clock.Now()
		writeFile(t, filepath.Join(h.drop, "a.zip"), 10)
		h.waitSeen("a.zip", 10)
		busy, err := os.Create(filepath.Join(h.drop, "busy.zip"))
		if err != nil {
			t.Fatal(err)
		}
		defer busy.Close()
		limit := t0.Add(testSettle + defaultBatchMaxWait + 2*testSettle)
		for size := int64(100); h.batchCount() == 0; size += 100 {
			if h.clock.Now().After(limit) {
				t.Fatalf("no batch by %v; want a.zip delivered after BatchMaxWait (%v) although busy.zip keeps changing", limit, defaultBatchMaxWait)
			}
			if _, err := busy.Write(make([]byte, 100)); err != nil {
				t.Fatal(err)
			}
			h.waitSeen("busy.zip", size)
			h.advance(testSettle / 2)
		}
		// Wait for the watcher to finish the turn that delivered.
		h.waitFor("the watcher to be idle", func() bool { return h.fresh })
		batches, at, _ := h.snapshot()
		if want := [][]string{{"a.zip"}}; !slices.EqualFunc(batches, want, slices.Equal) {
			t.Fatalf("batches = %q; want %q", batches, want)
		}
		if min := t0.Add(testSettle + defaultBatchMaxWait); at[0].Before(min) {
			t.Errorf("batch at %v; want no earlier than %v, BatchMaxWait after a.zip was ready", at[0], min)
		}
	})
}

// A drop folder replaced while its events are lost is noticed by the
// rescan (it is another folder now) and the new folder is watched.
func TestWatcherRescanNoticesReplacedDrop(t *testing.T) {
	var mu sync.Mutex
	var sources []*fakeSource
	h := newHarness(t, harnessOptions{newSource: func(*harness) (EventSource, error) {
		mu.Lock()
		defer mu.Unlock()
		s := newFakeSource()
		sources = append(sources, s)
		return s, nil
	}})
	if err := os.Rename(h.drop, h.drop+"-old"); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(h.drop, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(h.drop, "new.zip"), 10)
	mu.Lock()
	first := sources[0]
	mu.Unlock()
	idles := h.idleCount()
	select {
	case first.errs <- fsnotify.ErrEventOverflow:
	case <-time.After(testWait):
		t.Fatal("the watcher does not read the source's errors")
	}
	h.waitFor("the watcher to handle the overflow", func() bool { return h.idles > idles })
	h.mu.Lock()
	watched := h.watched
	h.mu.Unlock()
	if watched != 2 {
		t.Errorf("drop watched %d times after it was replaced; want 2", watched)
	}
	h.runUntil("the batch", func() bool { return len(h.batches) > 0 })
	batches, _, _ := h.snapshot()
	if want := [][]string{{"new.zip"}}; !slices.EqualFunc(batches, want, slices.Equal) {
		t.Fatalf("batches = %q; want %q", batches, want)
	}
}
