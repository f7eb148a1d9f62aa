package casync

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"

	"golang.org/x/sync/errgroup"
)

// Store gives chunks by id. GetChunk returns the chunk's verified
// uncompressed bytes, exactly size of them; a chunk it does not have wraps
// ErrChunkMissing. It must be safe for concurrent use.
type Store interface {
	GetChunk(ctx context.Context, id ChunkID, size uint64) ([]byte, error)
}

// Seed is a local file that may hold some of the chunks a new file needs
// (an older version of it) and its index.
type Seed struct {
	Path  string
	Index *Index
}

// Stats say where an assembled file's chunks came from.
type Stats struct {
	Chunks, SeedChunks, FetchedChunks int
	SeedBytes, FetchedBytes           int64 // FetchedBytes: uncompressed bytes taken from the Store
	// SeedMismatches counts chunks a seed's index promised whose bytes in
	// the seed file did not match (the file changed after it was indexed,
	// or cannot be read): they were taken from the Store instead.
	SeedMismatches int
	// ReusedChunks and ReusedBytes count chunks that repeat one taken from
	// the store earlier in the same file: they are read back from dst
	// (when it is also an io.ReaderAt, as an *os.File is) instead of being
	// fetched again.
	ReusedChunks int
	ReusedBytes  int64
	// Rechecked says the file was assembled twice: with
	// AssembleOptions.SHA256 set, the first file's digest was not that one,
	// and the second assembly checked each seed chunk (SeedMismatches
	// counts those that differed). The counts are the second assembly's.
	Rechecked bool
}

// defaultParallel is how many chunks Assemble works on at once by default.
const defaultParallel = 4

// maxParallel bounds AssembleOptions.Parallel.
const maxParallel = 64

// AssembleOptions tune Assemble.
type AssembleOptions struct {
	// Parallel is how many chunks are read, fetched and checked at once
	// (default DefaultParallel, at most 64): store fetches and seed
	// checks run in that many workers while one writer writes the checked
	// chunks.
	Parallel int
	// SHA256, when set, is the digest the whole file must have, and lets
	// Assemble skip checking each seed chunk against its id: the writer
	// hashes the bytes it writes, in the file's order, and when the file's
	// SHA-256 is this one every byte is right. When it is not (a seed
	// changed on disk after it was indexed), Assemble starts over, checking
	// each seed chunk as it does without SHA256 (Stats.Rechecked), and
	// returns an error wrapping ErrDigest if the digest still differs.
	// Chunks from the store are checked either way.
	SHA256 *[sha256.Size]byte
}

// ErrDigest is returned by Assemble when the assembled file's SHA-256 is
// not AssembleOptions.SHA256 although every chunk matched its id: the index
// does not describe that file.
var ErrDigest = errors.New("assembled file has another SHA-256")

// seedRef says where a seed holds a chunk.
type seedRef struct {
	f     *os.File
	path  string
	start uint64
}

// Assemble writes the file ix describes into dst. Each chunk comes from a
// seed when any seed's index has its id: it is read from the seed file at
// that seed chunk's offset and checked against the id. A seed chunk whose
// bytes do not match (the seed changed on disk after it was indexed), and a
// seed file that cannot be opened, count as missing: the chunk is taken from
// store (Stats.SeedMismatches counts the former). Every other chunk comes
// from store, once: when dst is also an io.ReaderAt, a repeat of a chunk
// taken from the store earlier in the file is read back from dst. No chunk
// is written before its bytes are checked against its id and size, whatever
// the store says about them; with opt.SHA256, a seed's chunks are checked by
// the whole file's digest instead (see AssembleOptions.SHA256).
//
// opt.Parallel workers read, fetch and check chunks at once, while one
// writer writes the checked chunks into dst in the file's order (dst is
// written from one goroutine, front to back; with opt.SHA256 one more
// hashes each chunk once it is written). At most Parallel+1 chunks are
// in flight (being read, fetched or checked, waiting for the writer, or
// being written), each in one buffer of ix.Max bytes or in the bytes the
// store returned: memory stays within a small multiple of (Parallel+1)×Max,
// whatever the file's length (under 3 MiB with the defaults).
// Assemble stops at the first error that no fallback covers (a chunk the
// store cannot give, a write that fails, ctx done): every goroutine it
// started has ended when it returns, and dst holds a part of the file, which
// the caller discards. It does not truncate or sync dst.
func Assemble(ctx context.Context, dst io.WriterAt, ix *Index, seeds []Seed, store Store, opt AssembleOptions) (Stats, error) {
	if err := checkChunks(ix); err != nil {
		return Stats{}, fmt.Errorf("assemble: %w", err)
	}
	if opt.SHA256 == nil {
		return assemble(ctx, dst, ix, seeds, store, opt.Parallel, nil, true)
	}
	// Seed chunks unchecked, the whole file hashed: SHA-256 with the
	// processor's instructions costs less than half of checking each
	// chunk's SHA-512/256, and the caller would hash the file anyway.
	h := sha256.New()
	st, err := assemble(ctx, dst, ix, seeds, store, opt.Parallel, h, false)
	if err != nil || [sha256.Size]byte(h.Sum(nil)) == *opt.SHA256 {
		return st, err
	}
	h.Reset()
	st, err = assemble(ctx, dst, ix, seeds, store, opt.Parallel, h, true)
	st.Rechecked = true
	if err != nil {
		return st, err
	}
	if got := [sha256.Size]byte(h.Sum(nil)); got != *opt.SHA256 {
		return st, fmt.Errorf("assemble: every chunk matches its id, and the file's SHA-256 is %s, want %s: %w",
			hex.EncodeToString(got[:]), hex.EncodeToString(opt.SHA256[:]), ErrDigest)
	}
	return st, nil
}

// assemble is one assembly of Assemble's: sum, when set, is given every
// byte written, in the file's order; checkSeeds says each seed chunk is
// checked against its id.
func assemble(ctx context.Context, dst io.WriterAt, ix *Index, seeds []Seed, store Store, par int, sum hash.Hash, checkSeeds bool) (Stats, error) {
	if par <= 0 {
		par = defaultParallel
	}
	// Each worker's chunk has a buffer of Max bytes: no more workers than
	// chunks, nor than maxParallel.
	par = max(1, min(par, maxParallel, len(ix.Chunks)))
	have, files := openSeeds(seeds, ix.Max)
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	// A chunk no seed has and that the file repeats is fetched once; its
	// repeats are read back from dst, which the writer has written up to
	// them by then.
	reread, _ := dst.(io.ReaderAt)
	a := &assembly{dst: dst, reread: reread, ix: ix, have: have, store: store, checkSeeds: checkSeeds,
		free: make(chan []byte, par+1), jobs: make(chan chunkJob), order: make(chan chunkJob, par)}
	if sum != nil {
		a.written = make(chan written, par+1)
	}
	// free holds the seed buffers: taking one before a chunk starts bounds
	// the chunks in flight to par, plus the one the writer holds.
	for range par + 1 {
		a.free <- make([]byte, ix.Max)
	}
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return a.dispatch(gctx) })
	for range par {
		g.Go(func() error { return a.work(gctx) })
	}
	g.Go(a.write)
	if sum != nil {
		g.Go(func() error { a.hash(sum); return nil })
	}
	err := g.Wait()
	st := a.st
	st.Chunks = st.SeedChunks + st.FetchedChunks + st.ReusedChunks
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return st, err
	}
	return st, nil
}

// openSeeds opens the seed files and indexes the chunks of at most
// maxSize bytes they hold; the first seed with an id wins. A seed that cannot be
// opened holds nothing: its chunks come from the store. The caller closes
// the files.
func openSeeds(seeds []Seed, maxSize uint64) (map[ChunkID]seedRef, []*os.File) {
	have := make(map[ChunkID]seedRef)
	var files []*os.File
	for _, s := range seeds {
		if s.Index == nil {
			continue
		}
		f, err := os.Open(s.Path)
		if err != nil {
			continue
		}
		files = append(files, f)
		for _, c := range s.Index.Chunks {
			if _, ok := have[c.ID]; !ok && c.Size <= maxSize {
				have[c.ID] = seedRef{f: f, path: s.Path, start: c.Start}
			}
		}
	}
	return have, files
}

// An assembly is one run of Assemble: a dispatcher hands the chunks, in
// the file's order, to the workers (jobs) and to the writer (order); the
// workers read, fetch and check them; the writer writes them into dst.
type assembly struct {
	dst    io.WriterAt
	reread io.ReaderAt // dst, when it can be read back; else nil
	ix     *Index
	have   map[ChunkID]seedRef
	store  Store
	// checkSeeds says a seed chunk is checked against its id.
	checkSeeds bool
	// written, when the file is hashed, takes each chunk the writer has
	// written, in the file's order, to the hash (and its buffer back to
	// free from there): hashing one chunk while the next is written.
	written chan written
	free    chan []byte   // the chunk buffers not in use
	jobs    chan chunkJob // the chunks for the workers
	order   chan chunkJob // the chunks in flight, in the file's order
	st      Stats         // the writer's
}

// A chunkJob is chunk c, the n-th of the file, in flight.
type chunkJob struct {
	n   int
	c   Chunk
	buf []byte           // for a seed chunk; back to free once written
	res chan chunkResult // one result, never blocks the worker
	// reuse is set for a repeat of a chunk the store gave earlier in the
	// file: the writer reads it back from dst at from.
	reuse bool
	from  uint64
}

// A chunkResult is a worker's answer for a chunkJob.
type chunkResult struct {
	data               []byte
	fromSeed, mismatch bool
	err                error
}

// dispatch starts the chunks in the file's order, each once a buffer is
// free: to the writer, and to the workers unless the writer reads it back
// as a repeat. It returns when ctx is done.
func (a *assembly) dispatch(ctx context.Context) error {
	defer close(a.jobs)
	defer close(a.order)
	fetched := make(map[ChunkID]uint64) // the first start of each chunk taken from the store
	for n, c := range a.ix.Chunks {
		var buf []byte
		select {
		case buf = <-a.free:
		case <-ctx.Done():
			return nil
		}
		j := chunkJob{n: n, c: c, buf: buf, res: make(chan chunkResult, 1)}
		if _, seeded := a.have[c.ID]; !seeded && a.reread != nil {
			j.from, j.reuse = fetched[c.ID]
			if !j.reuse {
				fetched[c.ID] = c.Start
			}
		}
		select {
		case a.order <- j:
		case <-ctx.Done():
			return nil
		}
		if j.reuse {
			continue // the writer does it
		}
		select {
		case a.jobs <- j:
		case <-ctx.Done():
			// The writer may wait for this job's result.
			j.res <- chunkResult{err: ctx.Err()}
			return nil
		}
	}
	return nil
}

// work gets the chunks of the jobs it takes until there are no more.
func (a *assembly) work(ctx context.Context) error {
	for j := range a.jobs {
		data, fromSeed, mismatch, err := getChunk(ctx, j.c, a.have, a.store, j.buf, a.checkSeeds)
		j.res <- chunkResult{data, fromSeed, mismatch, err}
	}
	return nil
}

// A written chunk is its bytes and the buffer to free once they are
// hashed.
type written struct{ data, buf []byte }

// hash gives the hash sum every chunk written, in order, and frees their
// buffers, until the writer stops.
func (a *assembly) hash(sum hash.Hash) {
	for w := range a.written {
		sum.Write(w.data)
		a.free <- w.buf // never blocks: the buffer came from free
	}
}

// done passes a written chunk's bytes to the hash, or frees its buffer.
func (a *assembly) done(data, buf []byte) {
	if a.written != nil {
		a.written <- written{data, buf} // never blocks: as many slots as buffers
	} else {
		a.free <- buf // never blocks: the buffer came from free
	}
}

// write writes the chunks into dst in the file's order, as their results
// come, and counts them in a.st.
func (a *assembly) write() error {
	if a.written != nil {
		defer close(a.written)
	}
	for j := range a.order {
		if j.reuse {
			if err := a.writeRepeat(j); err != nil {
				return err
			}
			continue
		}
		r := <-j.res
		if r.err != nil {
			return fmt.Errorf("assemble: chunk %d (%s, %d bytes at %d): %w", j.n, j.c.ID, j.c.Size, j.c.Start, r.err)
		}
		if _, err := a.dst.WriteAt(r.data, int64(j.c.Start)); err != nil {
			return fmt.Errorf("assemble: write chunk %d at %d: %w", j.n, j.c.Start, err)
		}
		a.done(r.data, j.buf)
		if r.mismatch {
			a.st.SeedMismatches++
		}
		if r.fromSeed {
			a.st.SeedChunks++
			a.st.SeedBytes += int64(j.c.Size)
		} else {
			a.st.FetchedChunks++
			a.st.FetchedBytes += int64(j.c.Size)
		}
	}
	return nil
}

// writeRepeat writes a repeat of a chunk the store gave earlier in the
// file, read back from dst and checked again.
func (a *assembly) writeRepeat(j chunkJob) error {
	b := j.buf[:j.c.Size]
	if _, err := a.reread.ReadAt(b, int64(j.from)); err != nil {
		return fmt.Errorf("assemble: chunk %d (%s): read back its copy at %d: %w", j.n, j.c.ID, j.from, err)
	}
	if Sum(b) != j.c.ID {
		return fmt.Errorf("assemble: chunk %d (%s): its copy at %d changed after it was written: %w", j.n, j.c.ID, j.from, ErrChunkInvalid)
	}
	if _, err := a.dst.WriteAt(b, int64(j.c.Start)); err != nil {
		return fmt.Errorf("assemble: write chunk %d at %d: %w", j.n, j.c.Start, err)
	}
	a.done(b, j.buf)
	a.st.ReusedChunks++
	a.st.ReusedBytes += int64(j.c.Size)
	return nil
}

// getChunk returns chunk c's bytes, from its seed when one has it and
// the bytes there match (or checkSeed is false), else from the store,
// checked. buf (ix.Max bytes) holds a seed chunk.
func getChunk(ctx context.Context, c Chunk, have map[ChunkID]seedRef, store Store, buf []byte, checkSeed bool) (data []byte, fromSeed, mismatch bool, err error) {
	if ref, ok := have[c.ID]; ok {
		b := buf[:c.Size]
		_, rerr := ref.f.ReadAt(b, int64(ref.start))
		if rerr == nil && (!checkSeed || Sum(b) == c.ID) {
			return b, true, false, nil
		}
		mismatch = true
	}
	if store == nil {
		return nil, false, mismatch, fmt.Errorf("no seed has it and there is no store: %w", ErrChunkMissing)
	}
	data, err = store.GetChunk(ctx, c.ID, c.Size)
	if err != nil && mismatch {
		err = fmt.Errorf("the seed %s has other bytes where its index puts it, and from the store: %w", have[c.ID].path, err)
	}
	if err != nil {
		return nil, false, mismatch, err
	}
	if uint64(len(data)) != c.Size {
		return nil, false, mismatch, fmt.Errorf("the store gave %d bytes, want %d: %w", len(data), c.Size, ErrChunkInvalid)
	}
	if got := Sum(data); got != c.ID {
		return nil, false, mismatch, fmt.Errorf("the store gave bytes with the digest %s: %w", got, ErrChunkInvalid)
	}
	return data, false, mismatch, nil
}

// checkChunks checks an index that did not come from ReadIndex: its chunks
// follow each other, none is empty or over Max, and Max is within
// DefaultMaxChunkSize (a worker holds a chunk of Max bytes).
func checkChunks(ix *Index) error {
	if ix == nil {
		return errors.New("no index")
	}
	if ix.Max > DefaultMaxChunkSize || (len(ix.Chunks) > 0 && ix.Max == 0) {
		return fmt.Errorf("index maximum chunk size %d is outside 1..%d: %w", ix.Max, DefaultMaxChunkSize, errIndexLimit)
	}
	var end uint64
	for n, c := range ix.Chunks {
		if c.Start != end || c.Size == 0 || c.Size > ix.Max {
			return fmt.Errorf("index chunk %d: start %d, size %d: want start %d and size 1..%d: %w", n, c.Start, c.Size, end, ix.Max, errIndexInvalid)
		}
		end += c.Size
	}
	return nil
}
