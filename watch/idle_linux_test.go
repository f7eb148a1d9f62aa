//go:build linux

package watch

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// TestWatcherIdleCPU measures what a Watcher costs on an idle drop folder,
// with the real clock and inotify, over FORGESYNC_IDLE_SECONDS of wall time:
//
//	FORGESYNC_IDLE_SECONDS=20 go test -run TestWatcherIdleCPU -v ./watch/
//
// It reports the process's CPU time (utime+stime from /proc/self/stat, and
// getrusage for finer resolution) and the watcher's wake-ups. It is skipped
// unless the variable is set: it takes real time, and CPU figures are for a
// person to read, not for a test to assert.
func TestWatcherIdleCPU(t *testing.T) {
	secs, err := strconv.Atoi(os.Getenv("FORGESYNC_IDLE_SECONDS"))
	if err != nil || secs <= 0 {
		t.Skip("set FORGESYNC_IDLE_SECONDS to measure the idle cost")
	}
	idle := time.Duration(secs) * time.Second
	drop := filepath.Join(t.TempDir(), "drop")
	w, err := New(Options{
		Drop: drop, Settle: 750 * time.Millisecond, Rescan: 60 * time.Second,
		Ignore: testIgnored, OnBatch: func(context.Context, []string) error { return nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	var wakeups atomic.Int64
	watched := make(chan struct{})
	w.hookWatched = func() { close(watched) }
	w.hookIdle = func(time.Time) { wakeups.Add(1) }
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	waitChan(t, watched, "drop to be watched")
	waitIdle := wakeups.Load()

	ticks0, ru0 := procCPUTicks(t), rusageCPU(t)
	time.Sleep(idle) // the measurement itself: nothing is awaited
	ticks1, ru1 := procCPUTicks(t), rusageCPU(t)
	n := wakeups.Load() - waitIdle

	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run = %v after cancel; want nil", err)
	}
	t.Logf("idle %v: /proc/self/stat utime+stime %d ticks (%v at 100 Hz); getrusage %v; %d watcher wake-ups; %s",
		idle, ticks1-ticks0, time.Duration(ticks1-ticks0)*10*time.Millisecond, ru1-ru0, n, vmRSS(t))
	if limit := int64(idle/(60*time.Second)) + 1; n > limit {
		t.Errorf("%d wake-ups in %v of idle time; want at most %d (one per rescan)", n, idle, limit)
	}
}

// procCPUTicks returns utime+stime of this process, in clock ticks.
func procCPUTicks(t *testing.T) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		t.Fatal(err)
	}
	// The command name, field 2, is in parentheses and may hold spaces.
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	// fields[0] is field 3 (state); utime and stime are fields 14 and 15.
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		t.Fatalf("parse /proc/self/stat: %v %v", err1, err2)
	}
	return utime + stime
}

func rusageCPU(t *testing.T) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func vmRSS(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "VmRSS unknown"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			return "test process " + strings.Join(strings.Fields(line), " ")
		}
	}
	return "VmRSS unknown"
}
