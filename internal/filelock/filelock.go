// Package filelock owns a cross-process lock held on a file: flock on
// Unix, LockFileEx on Windows. A lock is released by Unlock, or by the
// end of the process that holds it; another process that asks for it
// waits, trying again, until it is free or the caller gives up.
package filelock

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"
)

// retry is how often a held lock is tried again.
const retry = 50 * time.Millisecond

// errWouldBlock is returned by tryLock when another holds the lock.
var errWouldBlock = errors.New("filelock: lock held")

// ErrHeld is returned, wrapped with the file's path, when ctx ends while
// another holds the lock.
var ErrHeld = errors.New("filelock: held by another process")

// Lock is a lock held on a file.
type Lock struct{ f *os.File }

// Acquire opens path (created empty, mode 0600, when missing) and takes an
// exclusive lock on it, trying again while another holds it: it calls
// waiting once, when the first try finds the lock held, and fails with
// [ErrHeld] when ctx ends first.
func Acquire(ctx context.Context, path string, waiting func()) (*Lock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("filelock: open %s: %w", path, err)
	}
	return acquire(ctx, f, path, waiting, tryLock)
}

// AcquireShared takes a shared lock on the existing file path, as a
// reader does: any number of readers hold it together, none while
// another holds it exclusively ([Acquire]). It creates nothing: a missing
// file fails with an error matching fs.ErrNotExist. It waits as Acquire
// does.
func AcquireShared(ctx context.Context, path string, waiting func()) (*Lock, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("filelock: open %s: %w", path, err)
	}
	return acquire(ctx, f, path, waiting, tryLockShared)
}

// acquire takes the lock on f, open at path, with try, waiting as
// Acquire says; f is closed unless the lock is taken.
func acquire(ctx context.Context, f *os.File, path string, waiting func(), try func(*os.File) error) (*Lock, error) {
	t := time.NewTimer(0)
	defer t.Stop()
	for tries := 0; ; tries++ {
		err := try(f)
		if err == nil {
			return &Lock{f: f}, nil
		}
		if !errors.Is(err, errWouldBlock) {
			f.Close()
			return nil, fmt.Errorf("filelock: lock %s: %w", path, err)
		}
		if tries == 0 && waiting != nil {
			waiting()
		}
		t.Reset(retry)
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("%s: %w", path, ErrHeld)
		case <-t.C:
		}
	}
}

// File returns the locked file, for its holder to write who it is: the
// lock covers no byte a reader needs, so others may read it.
func (l *Lock) File() *os.File { return l.f }

// Unlock releases the lock and closes the file.
func (l *Lock) Unlock() error {
	err := unlock(l.f)
	return errors.Join(err, l.f.Close())
}
