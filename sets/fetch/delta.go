package fetch

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"sync/atomic"
	"time"

	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
	"github.com/mjolnir-forge/forgesync/sets/casync"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// errNoSeed is wrapped when the machine keeps no earlier archive of a pack
// to rebuild a newer one from: the archive is downloaded whole.
var errNoSeed = errors.New("no earlier archive of the pack is kept")

// noSeedsError is ErrNoSeed for a pack of which the machine has no earlier
// version at all (its first install), as against seeds that could not be
// read.
type noSeedsError struct{ id string }

func (e noSeedsError) Error() string { return fmt.Sprintf("%v (%s)", errNoSeed, e.id) }

func (e noSeedsError) Unwrap() error { return errNoSeed }

// Seed is an earlier archive of a pack that the machine keeps.
type Seed struct {
	// Path is the archive's file.
	Path string
	// Index is where its chunk index is kept: read when it is there and
	// adds up to the archive's size, else made by chunking the archive and
	// written there. Empty: made each time, kept nowhere.
	Index string
}

// Delta lets a [Fetcher] rebuild an archive whose pack names a chunk
// index from the chunks of an earlier archive plus the missing ones from
// the lock's chunk store (SPEC §10.2a). Whatever goes wrong, the archive
// is then fetched whole from its mirrors.
type Delta struct {
	// Chunks are the lock's chunk store references (Lock.Chunks).
	Chunks []string
	// Seeds returns the archives of earlier versions of the pack p that
	// the machine keeps; nil: none.
	Seeds func(p lock.Pack) []Seed
	// IndexPath, when set, returns where to keep the index of an archive
	// rebuilt (by its SHA-256), so that it seeds the next update without
	// being chunked.
	IndexPath func(sha string) string
	// Parallel is how many chunks are fetched at once; 0: casync's
	// default.
	Parallel int
	// Log hears why a delta update fell back; nil: discarded.
	Log *slog.Logger
	// Keep, when set, is the machine's own chunk store (casync's layout):
	// each chunk fetched lands there too, so that LAN peers can fetch it
	// from this machine (SPEC §13).
	Keep string
}

// DeltaStats say how an archive was rebuilt from chunks.
type DeltaStats struct {
	// Chunks is the number of chunks of the archive; SeedChunks were
	// copied from seeds, FetchedChunks came from the chunk store.
	Chunks, SeedChunks, FetchedChunks int
	// SeedBytes and FetchedBytes are the archive's bytes taken from seeds
	// and from the chunk store (uncompressed).
	SeedBytes, FetchedBytes int64
	// Requests and WireBytes are the HTTP requests made for the index and
	// the chunks, and the body bytes they received.
	Requests, WireBytes int64
	// PeerBytes are the bytes of FetchedBytes that LAN peers gave (SPEC
	// §13); the rest came from the lock's chunk store.
	PeerBytes int64
}

// fetchDelta rebuilds p's archive into dst from seeds and the chunk store,
// checked as a whole download is, or returns why it could not. The whole
// rebuild (its index, seeds and chunks) may take no longer than one attempt
// at the whole archive ([attemptDeadline] of its size): past that, by the
// wall clock or the Fetcher's, it ends with an error matching ErrTooSlow,
// and the caller downloads the archive whole.
func (f *Fetcher) fetchDelta(ctx context.Context, base Source, p lock.Pack, dst string) (*Result, error) {
	var seeds []Seed
	if f.Delta.Seeds != nil {
		for _, s := range f.Delta.Seeds(p) {
			if st, err := os.Stat(s.Path); err == nil && st.Mode().IsRegular() {
				seeds = append(seeds, s)
			}
		}
	}
	if len(seeds) == 0 {
		return nil, noSeedsError{p.ID}
	}
	deadline := attemptDeadline(p.Size, pos(f.MinRate, defaultMinRate))
	due := f.now().Add(deadline)
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	late := time.AfterFunc(deadline, func() { cancel(lateRebuild{deadline}) })
	defer late.Stop()
	r, err := f.rebuild(ctx, base, p, dst, seeds, due, deadline)
	if err != nil {
		if c := context.Cause(ctx); errors.Is(c, errTooSlow) {
			return nil, fmt.Errorf("rebuild from chunks: %w", c)
		}
		return nil, err
	}
	return r, nil
}

// rebuild is fetchDelta once the seeds are known; the chunk store refuses
// a chunk asked for after due, on the Fetcher's clock.
func (f *Fetcher) rebuild(ctx context.Context, base Source, p lock.Pack, dst string, seeds []Seed, due time.Time, deadline time.Duration) (*Result, error) {
	client := f.mirrorClient(base)
	var requests, wire atomic.Int64
	raw, ix, err := f.fetchIndex(ctx, client, base, p, &requests, &wire)
	if err != nil {
		return nil, err
	}
	store, err := f.NewChunkStore(base, f.Delta.Chunks)
	if err != nil {
		return nil, err
	}
	store.due, store.dueIn = due, deadline
	var cs []casync.Seed
	var seedErrs []error
	for _, s := range seeds {
		six, err := seedIndex(ctx, s, ix)
		if err != nil {
			seedErrs = append(seedErrs, err)
			continue
		}
		cs = append(cs, casync.Seed{Path: s.Path, Index: six})
	}
	if len(cs) == 0 {
		return nil, fmt.Errorf("%w: %w", errNoSeed, errors.Join(seedErrs...))
	}
	shown := "chunks"
	for i, m := range store.mirrors {
		if store.peer[i] == "" { // the lock's store, not a peer's
			shown = m.Redacted()
			break
		}
	}
	if f.Progress != nil {
		f.Progress(Progress{Pack: p.ID, URL: shown, Done: 0, Total: p.Size})
	}
	st, err := f.assemble(ctx, p, dst, ix, cs, store)
	if err != nil {
		return nil, err
	}
	if f.Delta.IndexPath != nil {
		// Every chunk of the index was checked against the archive's
		// SHA-256: it describes the archive, and seeds its next update.
		if err := atomicfile.WriteFile(f.Delta.IndexPath(p.SHA256), raw, 0o644); err != nil {
			f.deltaLog().Warn("could not keep a chunk index", "pack", p.ID, "err", err)
		}
	}
	ds := &DeltaStats{Chunks: st.Chunks, SeedChunks: st.SeedChunks, FetchedChunks: st.FetchedChunks,
		SeedBytes: st.SeedBytes, FetchedBytes: st.FetchedBytes,
		Requests: requests.Load() + store.Requests(), WireBytes: wire.Load() + store.WireBytes(), PeerBytes: store.PeerBytes()}
	if f.Progress != nil {
		f.Progress(Progress{Pack: p.ID, URL: shown, Done: p.Size, Total: p.Size, Delta: ds})
	}
	return &Result{Pack: p, Path: dst, From: shown, Delta: ds}, nil
}

// assemble writes the archive ix describes into dst from seeds and store,
// and lands it only when its size and SHA-256 are the pack's.
func (f *Fetcher) assemble(ctx context.Context, p lock.Pack, dst string, ix *casync.Index, seeds []casync.Seed, store casync.Store) (casync.Stats, error) {
	pending, err := atomicfile.Create(dst, 0o644)
	if err != nil {
		return casync.Stats{}, err
	}
	defer pending.Cleanup()
	want, err := hex.DecodeString(p.SHA256)
	if err != nil || len(want) != sha256.Size {
		return casync.Stats{}, fmt.Errorf("rebuild from chunks: the lock's SHA-256 %q is not 64 hex digits", p.SHA256)
	}
	// The same check as a whole download's, on the bytes as they are
	// written: a wrong byte never lands. Assemble checks a seed's chunks
	// by it too, and each one only when the file's digest is wrong.
	st, err := casync.Assemble(ctx, pending.File(), ix, seeds, store,
		casync.AssembleOptions{Parallel: f.Delta.Parallel, SHA256: (*[sha256.Size]byte)(want)})
	if st.Rechecked {
		f.deltaLog().Warn("a seed's bytes differ from its chunk index; the archive was rebuilt checking each chunk",
			"pack", p.ID, "seed_mismatches", st.SeedMismatches)
	}
	if errors.Is(err, casync.ErrDigest) {
		return st, fmt.Errorf("rebuild from chunks: %w: %w", lock.ErrWrongBytes, err)
	}
	if err != nil {
		return st, fmt.Errorf("rebuild from chunks: %w", err)
	}
	// The index's chunks add up to the pinned size (fetchIndex), and
	// Assemble wrote each: a fresh file is that long.
	fi, err := pending.File().Stat()
	if err != nil {
		return st, fmt.Errorf("rebuild from chunks: %w", err)
	}
	if fi.Size() != p.Size {
		return st, fmt.Errorf("rebuild from chunks: %w: %d bytes, the lock pins %d", lock.ErrWrongBytes, fi.Size(), p.Size)
	}
	if err := pending.Commit(atomicfile.Renamer{}); err != nil {
		return st, err
	}
	if err := os.Chmod(dst, 0o444); err != nil {
		return st, err
	}
	return st, atomicfile.SyncDir(f.Dir)
}

func (f *Fetcher) deltaLog() *slog.Logger {
	if f.Delta != nil && f.Delta.Log != nil {
		return f.Delta.Log
	}
	return slog.New(slog.DiscardHandler)
}

// fetchIndex returns p's chunk index, its bytes checked against the
// lock's SHA-256 and its chunks against the archive's pinned size.
func (f *Fetcher) fetchIndex(ctx context.Context, client *http.Client, base Source, p lock.Pack, requests, wire *atomic.Int64) ([]byte, *casync.Index, error) {
	lim, maxBytes := casync.LimitsFor(p.Size)
	src, err := resolve(base, p.Index.URL)
	if err != nil {
		return nil, nil, fmt.Errorf("chunk index: %w", err)
	}
	var raw []byte
	if src.Path != "" {
		raw, err = atomicfile.ReadFile(src.Path, int64(maxBytes))
	} else {
		raw, err = f.smallGet(ctx, client, src.URL, maxBytes, requests, wire)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("chunk index %s: %w", src.Redacted(), err)
	}
	sum := sha256.Sum256(raw)
	if got := hex.EncodeToString(sum[:]); got != p.Index.SHA256 {
		return nil, nil, fmt.Errorf("chunk index %s: %w: SHA-256 %s, the lock pins %s", src.Redacted(), lock.ErrWrongBytes, got, p.Index.SHA256)
	}
	ix, err := casync.ReadIndex(bytes.NewReader(raw), lim)
	if err != nil {
		return nil, nil, fmt.Errorf("chunk index %s: %w", src.Redacted(), err)
	}
	if ix.Length() != uint64(p.Size) {
		return nil, nil, fmt.Errorf("chunk index %s: %w: its chunks add up to %d bytes, the lock pins %d", src.Redacted(), lock.ErrWrongBytes, ix.Length(), p.Size)
	}
	return raw, ix, nil
}

// seedIndex returns the chunk index of a seed, cut with the chunk sizes of
// the index want (chunks cut with other sizes share next to none): the one
// kept at s.Index when it has those sizes and adds up to the archive's
// size, else one made by chunking the archive (and kept there).
func seedIndex(ctx context.Context, s Seed, want *casync.Index) (*casync.Index, error) {
	if want.Min < casync.MinChunkFloor {
		// Cutting a seed into chunks of a few bytes would take more memory
		// than the seed: an index of any chunks the publisher likes is
		// assembled, but not from seeds cut that small.
		return nil, fmt.Errorf("seed %s: the index's chunks may be as small as %d bytes, under the %d bytes a seed is cut into", s.Path, want.Min, casync.MinChunkFloor)
	}
	st, err := os.Stat(s.Path)
	if err != nil {
		return nil, fmt.Errorf("seed: %w", err)
	}
	if s.Index != "" {
		lim, maxBytes := casync.LimitsFor(st.Size())
		raw, err := atomicfile.ReadFile(s.Index, int64(maxBytes))
		if err == nil {
			if ix, err := casync.ReadIndex(bytes.NewReader(raw), lim); err == nil && ix.Length() == uint64(st.Size()) &&
				ix.Min == want.Min && ix.Avg == want.Avg && ix.Max == want.Max {
				return ix, nil
			}
		} else if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, atomicfile.ErrTooLarge) {
			return nil, fmt.Errorf("seed index: %w", err)
		}
	}
	in, err := os.Open(s.Path)
	if err != nil {
		return nil, fmt.Errorf("seed: %w", err)
	}
	defer in.Close()
	ix, err := casync.MakeSized(ctx, in, nil, want.Min, want.Avg, want.Max)
	if err != nil {
		return nil, fmt.Errorf("seed %s: chunk: %w", s.Path, err)
	}
	if s.Index != "" {
		var b bytes.Buffer
		if _, err := ix.WriteTo(&b); err == nil {
			// Best effort: without it the seed is chunked again next time.
			atomicfile.WriteFile(s.Index, b.Bytes(), 0o644)
		}
	}
	return ix, nil
}
