package filelock

import (
	"context"
	"errors"
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
