package watch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// realWatcher runs a Watcher with the system clock and real fsnotify on a
// temp drop folder; batches arrive on the returned channel.
func realWatcher(tb testing.TB, settle, quiet time.Duration) (drop string, batches <-chan []string) {
	tb.Helper()
	return realWatcherAt(tb, filepath.Join(tb.TempDir(), "drop"), settle, quiet)
}

// realWatcherAt is [realWatcher] on the drop folder drop.
func realWatcherAt(tb testing.TB, drop string, settle, quiet time.Duration) (string, <-chan []string) {
	tb.Helper()
	ch := make(chan []string)
	w, err := New(Options{
		Drop: drop, Settle: settle, Rescan: time.Minute, BatchQuiet: quiet, Ignore: testIgnored,
		OnBatch: func(ctx context.Context, names []string) error {
			for _, name := range names {
				if err := os.Remove(filepath.Join(drop, name)); err != nil {
					return err
				}
			}
			select {
			case ch <- names:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		},
	})
	if err != nil {
		tb.Fatal(err)
	}
	watched := make(chan struct{})
	w.hookWatched = func() {
		select {
		case <-watched:
		default:
			close(watched)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	tb.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			tb.Errorf("Run = %v after cancel; want nil", err)
		}
	})
	select {
	case <-watched:
	case err := <-done:
		tb.Fatalf("Run = %v before watching", err)
	}
	return drop, ch
}

// With the system clock and a real timer, a .part renamed to .zip is
// reported once (this exercises SystemClock, which the other tests fake).
func TestWatcherSystemClock(t *testing.T) {
	drop, batches := realWatcher(t, 20*time.Millisecond, time.Millisecond)
	part := filepath.Join(drop, "real.zip.part")
	writeFile(t, part, 100)
	if err := os.Rename(part, filepath.Join(drop, "real.zip")); err != nil {
		t.Fatal(err)
	}
	select {
	case names := <-batches:
		if len(names) != 1 || names[0] != "real.zip" {
			t.Fatalf("batch = %q; want [real.zip]", names)
		}
	case <-time.After(testWait):
		t.Fatal("no batch with the system clock")
	}
}

// BenchmarkWatcherRenameToBatch measures, with the system clock and real
// inotify, the time from an archive's final rename into drop to OnBatch,
// and reports it less Settle and BatchQuiet as overhead-ns/op:
//
//	go test -run '^$' -bench WatcherRenameToBatch -benchtime 200x ./watch/
func BenchmarkWatcherRenameToBatch(b *testing.B) {
	const settle, quiet = 10 * time.Millisecond, time.Millisecond
	drop, batches := realWatcher(b, settle, quiet)
	staging := b.TempDir()
	var total time.Duration
	for i := 0; b.Loop(); i++ {
		name := fmt.Sprintf("pack-%d.zip", i)
		src := filepath.Join(staging, name)
		if err := os.WriteFile(src, make([]byte, 1<<20), 0o644); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		if err := os.Rename(src, filepath.Join(drop, name)); err != nil {
			b.Fatal(err)
		}
		select {
		case names := <-batches:
			if len(names) != 1 || names[0] != name {
				b.Fatalf("batch = %q; want [%s]", names, name)
			}
		case <-time.After(testWait):
			b.Fatal("no batch")
		}
		total += time.Since(start)
	}
	b.ReportMetric(float64((total/time.Duration(b.N))-settle-quiet), "overhead-ns/op")
}
