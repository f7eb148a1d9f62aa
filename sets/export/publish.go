package export

import (
	"context"
	"path/filepath"
	"time"

	"aead.dev/minisign"

	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// NewLock returns the lock of packs (see lockFor) as `forgesync lock`
// writes it: stamped (see [lock.Lock.Stamp]) at now with lifetime, its
// serial following the lock at path when path is not "" (the lock it
// replaces there).
func NewLock(name string, packs []Kept, template, path string, now time.Time, lifetime time.Duration) (*lock.Lock, error) {
	l, err := lockFor(name, packs, template)
	if err != nil {
		return nil, err
	}
	var prev *lock.Lock
	if path != "" {
		prev = lock.PreviousLock(path)
	}
	l.Stamp(prev, now, lifetime)
	return l, nil
}

// Publish writes the folder dir of packs (see [ExportWith]) and, with
// prune, then removes from it what the new lock no longer pins: archives
// and their indexes (see pruneExport) and chunks (see pruneChunks). It
// returns what it wrote and removed.
func Publish(ctx context.Context, dir string, packs []Kept, opt ExportOptions, prune bool) (Written, error) {
	if opt.Stats == nil {
		opt.Stats = &ExportStats{}
	}
	l, err := ExportWith(ctx, dir, packs, opt)
	if err != nil {
		return Written{}, err
	}
	var removed, indexes []string
	pruned := 0
	if prune {
		if removed, indexes, err = pruneExport(dir, l); err != nil {
			return Written{}, err
		}
		if pruned, err = pruneChunks(dir, l); err != nil {
			return Written{}, err
		}
	}
	w := WrittenOf(filepath.Join(dir, lock.LockName), l, opt.Key, removed...)
	w.RemovedIndexes = indexes
	st := opt.Stats
	w.Indexed, w.ChunksWritten, w.ChunksPruned, w.Repaired = st.Indexed, st.ChunksWritten, pruned, st.Repaired
	return w, nil
}

// WrittenOf is what writing the lock l to path says: its fingerprint, how
// many packs it pins, its serial and expiry, the key that signed it (nil:
// none), and the archives removed beside it.
func WrittenOf(path string, l *lock.Lock, key *minisign.PrivateKey, removed ...string) Written {
	w := Written{Lock: path, Fingerprint: l.Fingerprint(), Packs: len(l.Packs), Removed: removed, Serial: l.Serial}
	if !l.Expires.IsZero() {
		w.Expires = &l.Expires
	}
	if key != nil {
		w.SignedBy = lock.KeyID(key.ID())
	}
	return w
}
