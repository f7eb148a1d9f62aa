package filelock

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestAcquireWaitsForTheHolder: a second Acquire of a held lock says it
// waits, takes the lock once the holder lets go, and gives up with ErrHeld
// when its context ends first.
func TestAcquireWaitsForTheHolder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	first, err := Acquire(t.Context(), path, func() { t.Error("the first Acquire waited") })
	if err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(t.Context())
	_, err = Acquire(ctx, path, cancel)
	if !errors.Is(err, ErrHeld) {
		t.Fatalf("Acquire of a held lock, given up = %v; want ErrHeld", err)
	}

	waiting := make(chan struct{})
	got := make(chan error, 1)
	go func() {
		l, err := Acquire(t.Context(), path, func() { close(waiting) })
		if err == nil {
			err = l.Unlock()
		}
		got <- err
	}()
	select {
	case <-waiting:
	case err := <-got:
		t.Fatalf("the second Acquire returned %v while the first held the lock", err)
	case <-time.After(10 * time.Second):
		t.Fatal("the second Acquire neither waited nor returned")
	}
	if err := first.Unlock(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-got:
		if err != nil {
			t.Fatalf("the second Acquire = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the second Acquire did not take the lock once it was free")
	}
}

// TestAcquireShared: readers share the lock with each other, never with a
// writer, either way round, and a missing lock file is an error that
// creates nothing.
func TestAcquireShared(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	if _, err := AcquireShared(t.Context(), path, nil); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("AcquireShared of a missing file = %v; want fs.ErrNotExist", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("AcquireShared of a missing file made it: %v", err)
	}
	w, err := Acquire(t.Context(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	if _, err := AcquireShared(ctx, path, cancel); !errors.Is(err, ErrHeld) {
		t.Fatalf("AcquireShared beside a writer, given up = %v; want ErrHeld", err)
	}
	w.Unlock()
	r1, err := AcquireShared(t.Context(), path, func() { t.Error("the first reader waited") })
	if err != nil {
		t.Fatal(err)
	}
	r2, err := AcquireShared(t.Context(), path, func() { t.Error("the second reader waited for the first") })
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel = context.WithCancel(t.Context())
	if _, err := Acquire(ctx, path, cancel); !errors.Is(err, ErrHeld) {
		t.Fatalf("Acquire beside two readers, given up = %v; want ErrHeld", err)
	}
	r1.Unlock()
	r2.Unlock()
	if l, err := Acquire(t.Context(), path, func() { t.Error("the writer waited after the readers let go") }); err != nil {
		t.Fatal(err)
	} else {
		l.Unlock()
	}
}
