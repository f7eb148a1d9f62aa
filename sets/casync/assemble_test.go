package casync

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// randomBytes returns n bytes from a seeded generator.
func randomBytes(seed uint64, n int) []byte {
	r := mrand.NewChaCha8([32]byte{byte(seed), byte(seed >> 8)})
	b := make([]byte, n)
	r.Read(b)
	return b
}

// editV2 makes a second version of v1 the way the benchmark does:
// ins bytes inserted at a third, over bytes overwritten at two thirds, app
// bytes appended.
func editV2(v1 []byte, ins, over, app int) []byte {
	third := len(v1) / 3
	v2 := make([]byte, 0, len(v1)+ins+app)
	v2 = append(v2, v1[:third]...)
	v2 = append(v2, randomBytes(101, ins)...)
	v2 = append(v2, v1[third:]...)
	copy(v2[2*third:], randomBytes(102, over))
	return append(v2, randomBytes(103, app)...)
}

// indexIDs returns the set of an index's chunk ids.
func indexIDs(ix *Index) map[ChunkID]bool {
	m := make(map[ChunkID]bool, len(ix.Chunks))
	for _, c := range ix.Chunks {
		m[c.ID] = true
	}
	return m
}

// onlyNew is a ChunkWriter that passes on only the chunks not in skip.
type onlyNew struct {
	skip map[ChunkID]bool
	w    ChunkWriter
}

func (o onlyNew) PutChunk(id ChunkID, data []byte) error {
	if o.skip[id] {
		return nil
	}
	return o.w.PutChunk(id, data)
}

// countingStore counts what is asked of a Store and how many asks run at
// once.
type countingStore struct {
	Store
	mu              sync.Mutex // guards the counts
	gets, now, peak int
}

func (c *countingStore) GetChunk(ctx context.Context, id ChunkID, size uint64) ([]byte, error) {
	c.mu.Lock()
	c.gets++
	c.now++
	c.peak = max(c.peak, c.now)
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.now--
		c.mu.Unlock()
	}()
	return c.Store.GetChunk(ctx, id, size)
}

// deltaFixture writes v1 (the seed) and makes v2's index, with a store that
// holds only v2's chunks that v1 lacks.
type deltaFixture struct {
	v1, v2     []byte
	seed       Seed
	ix         *Index
	store      LocalStore
	newChunks  int
	newBytes   int64
	fullStore  LocalStore // every chunk of v2
	dir, v1Out string
}

func newDeltaFixture(t testing.TB, size int) *deltaFixture {
	t.Helper()
	f := &deltaFixture{dir: t.TempDir()}
	f.v1 = randomBytes(1, size)
	f.v2 = editV2(f.v1, size/200, size/100, size/400)
	f.v1Out = filepath.Join(f.dir, "v1")
	if err := os.WriteFile(f.v1Out, f.v1, 0o644); err != nil {
		t.Fatal(err)
	}
	ix1, err := Make(context.Background(), bytes.NewReader(f.v1), nil)
	if err != nil {
		t.Fatal(err)
	}
	f.seed = Seed{Path: f.v1Out, Index: ix1}
	f.store = LocalStore{Dir: filepath.Join(f.dir, "store")}
	f.fullStore = LocalStore{Dir: filepath.Join(f.dir, "full")}
	f.ix, err = Make(context.Background(), bytes.NewReader(f.v2), onlyNew{skip: indexIDs(ix1), w: f.store})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Make(context.Background(), bytes.NewReader(f.v2), f.fullStore); err != nil {
		t.Fatal(err)
	}
	old := indexIDs(ix1)
	for _, c := range f.ix.Chunks {
		if !old[c.ID] {
			f.newChunks++
			f.newBytes += int64(c.Size)
		}
	}
	return f
}

func (f *deltaFixture) assemble(t testing.TB, store Store, opt AssembleOptions) ([]byte, Stats, error) {
	t.Helper()
	out, err := os.CreateTemp(f.dir, "out")
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	st, err := Assemble(context.Background(), out, f.ix, []Seed{f.seed}, store, opt)
	got, rerr := os.ReadFile(out.Name())
	if rerr != nil {
		t.Fatal(rerr)
	}
	return got, st, err
}

func TestAssembleFromSeedAndStore(t *testing.T) {
	f := newDeltaFixture(t, 8<<20)
	cs := &countingStore{Store: f.store}
	got, st, err := f.assemble(t, cs, AssembleOptions{Parallel: 3})
	if err != nil {
		t.Fatalf("Assemble = %v", err)
	}
	if !bytes.Equal(got, f.v2) {
		t.Fatalf("Assemble wrote %d bytes that are not v2's %d", len(got), len(f.v2))
	}
	want := Stats{Chunks: len(f.ix.Chunks), SeedChunks: len(f.ix.Chunks) - f.newChunks, FetchedChunks: f.newChunks,
		SeedBytes: int64(len(f.v2)) - f.newBytes, FetchedBytes: f.newBytes}
	if st != want {
		t.Fatalf("Assemble stats = %+v; want %+v", st, want)
	}
	if cs.gets != f.newChunks || cs.peak > 3 {
		t.Fatalf("the store was asked %d times, %d at once; want %d, at most 3 at once", cs.gets, cs.peak, f.newChunks)
	}
	// The edit touches a few chunks: most of v2 comes from the seed.
	if f.newBytes > int64(len(f.v2))/10 || f.newChunks == 0 {
		t.Fatalf("%d of v2's %d bytes are in chunks v1 lacks; want a few", f.newBytes, len(f.v2))
	}
}

// editSeed changes bytes inside the seed's tenth chunk after it was
// indexed, and returns that chunk, which v2 uses.
func (f *deltaFixture) editSeed(t *testing.T) Chunk {
	t.Helper()
	c := f.seed.Index.Chunks[10]
	fh, err := os.OpenFile(f.v1Out, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	fh.WriteAt([]byte("edited"), int64(c.Start+c.Size/2))
	fh.Close()
	used := false
	for _, n := range f.ix.Chunks {
		used = used || n.ID == c.ID
	}
	if !used {
		t.Fatal("the fixture's v2 does not use the seed's tenth chunk")
	}
	return c
}

func TestAssembleSeedEditedOnDisk(t *testing.T) {
	f := newDeltaFixture(t, 4<<20)
	c := f.editSeed(t)

	t.Run("store has it", func(t *testing.T) {
		got, st, err := f.assemble(t, f.fullStore, AssembleOptions{})
		if err != nil || !bytes.Equal(got, f.v2) {
			t.Fatalf("Assemble = %v; or the bytes are not v2", err)
		}
		if st.SeedMismatches != 1 || st.FetchedChunks != f.newChunks+1 {
			t.Fatalf("Assemble stats = %+v; want 1 seed mismatch fetched beside the %d new chunks", st, f.newChunks)
		}
	})
	t.Run("store lacks it", func(t *testing.T) {
		_, _, err := f.assemble(t, f.store, AssembleOptions{})
		if !errors.Is(err, ErrChunkMissing) || !strings.Contains(err.Error(), c.ID.String()) {
			t.Fatalf("Assemble = %v; want the edited chunk %s missing", err, c.ID)
		}
	})
}

func TestAssembleByDigest(t *testing.T) {
	f := newDeltaFixture(t, 4<<20)
	want := sha256.Sum256(f.v2)
	byDigest := AssembleOptions{SHA256: &want}
	t.Run("seed as indexed", func(t *testing.T) {
		got, st, err := f.assemble(t, f.store, byDigest)
		if err != nil || !bytes.Equal(got, f.v2) {
			t.Fatalf("Assemble = %v; or the bytes are not v2", err)
		}
		if st.Rechecked || st.SeedMismatches != 0 || st.FetchedChunks != f.newChunks || st.SeedChunks+st.FetchedChunks != len(f.ix.Chunks) {
			t.Fatalf("Assemble stats = %+v; want one pass, %d chunks fetched, the rest from the seed", st, f.newChunks)
		}
	})
	t.Run("another digest", func(t *testing.T) {
		other := want
		other[0] ^= 1
		_, st, err := f.assemble(t, f.store, AssembleOptions{SHA256: &other})
		if !errors.Is(err, ErrDigest) || !st.Rechecked || !strings.Contains(err.Error(), hex.EncodeToString(want[:])) {
			t.Fatalf("Assemble(another digest) = %+v, %v; want ErrDigest naming the file's SHA-256 after a second, checked pass", st, err)
		}
	})
	c := f.editSeed(t)
	t.Run("seed edited, store has it", func(t *testing.T) {
		// The first pass writes the edited chunk unchecked, so the digest
		// differs; the second checks each seed chunk and fetches it.
		got, st, err := f.assemble(t, f.fullStore, byDigest)
		if err != nil || !bytes.Equal(got, f.v2) {
			t.Fatalf("Assemble = %v; or the bytes are not v2", err)
		}
		if !st.Rechecked || st.SeedMismatches != 1 || st.FetchedChunks != f.newChunks+1 {
			t.Fatalf("Assemble stats = %+v; want a second pass with 1 seed mismatch fetched beside the %d new chunks", st, f.newChunks)
		}
	})
	t.Run("seed edited, store lacks it", func(t *testing.T) {
		_, st, err := f.assemble(t, f.store, byDigest)
		if !errors.Is(err, ErrChunkMissing) || !st.Rechecked || !strings.Contains(err.Error(), c.ID.String()) {
			t.Fatalf("Assemble = %+v, %v; want the edited chunk %s missing in the second pass", st, err, c.ID)
		}
	})
}

// liar is a Store that gives other bytes than asked for one chunk.
type liar struct {
	Store
	bad ChunkID
}

func (l liar) GetChunk(ctx context.Context, id ChunkID, size uint64) ([]byte, error) {
	b, err := l.Store.GetChunk(ctx, id, size)
	if id == l.bad && err == nil {
		b = bytes.Clone(b)
		b[0] ^= 0xFF
	}
	return b, err
}

// recorder is a WriterAt that keeps every write.
type recorder struct {
	mu     sync.Mutex // guards writes
	writes [][]byte
}

func (r *recorder) WriteAt(p []byte, off int64) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.writes = append(r.writes, bytes.Clone(p))
	return len(p), nil
}

func TestAssembleNeverWritesABadChunk(t *testing.T) {
	f := newDeltaFixture(t, 4<<20)
	var bad Chunk
	old := indexIDs(f.seed.Index)
	for _, c := range f.ix.Chunks {
		if !old[c.ID] {
			bad = c
			break
		}
	}
	want := sha256.Sum256(f.v2)
	// Checked by the file's digest, a store's chunks are still checked
	// each.
	for name, opt := range map[string]AssembleOptions{"each chunk checked": {}, "by digest": {SHA256: &want}} {
		t.Run(name, func(t *testing.T) {
			var rec recorder
			_, err := Assemble(t.Context(), &rec, f.ix, []Seed{f.seed}, liar{Store: f.store, bad: bad.ID}, opt)
			if !errors.Is(err, ErrChunkInvalid) || !strings.Contains(err.Error(), bad.ID.String()) {
				t.Fatalf("Assemble(a store that lies) = %v; want chunk %s refused", err, bad.ID)
			}
			ids := indexIDs(f.ix)
			for _, w := range rec.writes {
				if !ids[Sum(w)] {
					t.Fatalf("Assemble wrote %d bytes that are no chunk of the index (unverified)", len(w))
				}
			}
		})
	}
}

// blocker is a Store whose GetChunk waits for its context to end, saying
// when the first call arrives.
type blocker struct {
	once    sync.Once
	entered chan struct{}
}

func (b *blocker) GetChunk(ctx context.Context, id ChunkID, size uint64) ([]byte, error) {
	b.once.Do(func() { close(b.entered) })
	<-ctx.Done()
	return nil, ctx.Err()
}

func TestAssembleStopsWhenCancelled(t *testing.T) {
	f := newDeltaFixture(t, 2<<20)
	b := &blocker{entered: make(chan struct{})}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := Assemble(ctx, &recorder{}, f.ix, nil, b, AssembleOptions{})
		done <- err
	}()
	<-b.entered
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Assemble after cancel = %v; want context.Canceled", err)
	}
}

func TestAssembleWithoutStore(t *testing.T) {
	f := newDeltaFixture(t, 2<<20)
	// v1 rebuilt from itself needs no store.
	out := &recorder{}
	st, err := Assemble(t.Context(), out, f.seed.Index, []Seed{f.seed}, nil, AssembleOptions{})
	if err != nil || st.SeedChunks != len(f.seed.Index.Chunks) || st.FetchedChunks != 0 {
		t.Fatalf("Assemble(v1 from v1) = %+v, %v", st, err)
	}
	if _, _, err := f.assemble(t, nil, AssembleOptions{}); !errors.Is(err, ErrChunkMissing) {
		t.Fatalf("Assemble(v2 with no store) = %v; want ErrChunkMissing", err)
	}
}

func TestAssembleRefusesABadIndex(t *testing.T) {
	for name, ix := range map[string]*Index{
		"gap":         {Max: 100, Chunks: []Chunk{{Start: 0, Size: 10}, {Start: 11, Size: 10}}},
		"over max":    {Max: 100, Chunks: []Chunk{{Start: 0, Size: 101}}},
		"empty chunk": {Max: 100, Chunks: []Chunk{{Start: 0, Size: 0}}},
		"huge max":    {Max: 1 << 40, Chunks: []Chunk{{Start: 0, Size: 1 << 39}}},
		"nil":         nil,
	} {
		if _, err := Assemble(t.Context(), &recorder{}, ix, nil, nil, AssembleOptions{}); err == nil {
			t.Errorf("Assemble(%s) = nil error; want the index refused", name)
		} else if name != "nil" && !errors.Is(err, errIndexInvalid) && !errors.Is(err, errIndexLimit) {
			t.Errorf("Assemble(%s) = %v; want an index error", name, err)
		}
	}
}

// failingWriter fails every write.
type failingWriter struct{}

func (failingWriter) WriteAt([]byte, int64) (int, error) { return 0, fmt.Errorf("disk full") }

func TestAssembleStopsAtAWriteError(t *testing.T) {
	f := newDeltaFixture(t, 2<<20)
	_, err := Assemble(t.Context(), failingWriter{}, f.ix, []Seed{f.seed}, f.store, AssembleOptions{})
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("Assemble(a writer that fails) = %v; want its error", err)
	}
}

// TestAssembleFetchesARepeatedChunkOnce rebuilds a v2 that appends 2 MiB of
// zeros (eight copies of one Max-sized chunk that v1 lacks): the store is
// asked once for it, and the copies are read back from what was written.
func TestAssembleFetchesARepeatedChunkOnce(t *testing.T) {
	dir := t.TempDir()
	v1 := randomBytes(11, 2<<20)
	v2 := append(bytes.Clone(v1), make([]byte, 2<<20)...)
	v2 = append(v2, randomBytes(12, 100<<10)...)
	seedPath := filepath.Join(dir, "v1")
	os.WriteFile(seedPath, v1, 0o644)
	ix1, _ := Make(t.Context(), bytes.NewReader(v1), nil)
	store := LocalStore{Dir: filepath.Join(dir, "store")}
	ix2, err := Make(t.Context(), bytes.NewReader(v2), onlyNew{skip: indexIDs(ix1), w: store})
	if err != nil {
		t.Fatal(err)
	}
	old := indexIDs(ix1)
	unique := map[ChunkID]bool{}
	var occurrences int
	for _, c := range ix2.Chunks {
		if !old[c.ID] {
			unique[c.ID] = true
			occurrences++
		}
	}
	if occurrences-len(unique) < 6 {
		t.Fatalf("v2 repeats only %d new chunks; the fixture wants the zeros to repeat", occurrences-len(unique))
	}
	out, err := os.Create(filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	cs := &countingStore{Store: store}
	st, err := Assemble(t.Context(), out, ix2, []Seed{{Path: seedPath, Index: ix1}}, cs, AssembleOptions{})
	if err != nil {
		t.Fatalf("Assemble = %v", err)
	}
	if got, _ := os.ReadFile(out.Name()); !bytes.Equal(got, v2) {
		t.Fatal("Assemble did not write v2")
	}
	if cs.gets != len(unique) {
		t.Fatalf("the store was asked %d times for %d distinct new chunks (%d in all)", cs.gets, len(unique), occurrences)
	}
	if st.FetchedChunks != len(unique) || st.ReusedChunks != occurrences-len(unique) || st.Chunks != len(ix2.Chunks) {
		t.Fatalf("Assemble stats = %+v; want %d fetched, %d reused, %d in all", st, len(unique), occurrences-len(unique), len(ix2.Chunks))
	}
	// A copy that reads back other bytes is refused, not written again.
	_, err = Assemble(t.Context(), forgetful{}, ix2, []Seed{{Path: seedPath, Index: ix1}}, store, AssembleOptions{})
	if !errors.Is(err, ErrChunkInvalid) || !strings.Contains(err.Error(), "changed after it was written") {
		t.Fatalf("Assemble(a dst that reads back other bytes) = %v; want the copy refused", err)
	}
}

// forgetful is a WriterAt and ReaderAt that reads back 0xFF, whatever was
// written.
type forgetful struct{}

func (forgetful) WriteAt(p []byte, off int64) (int, error) { return len(p), nil }

func (forgetful) ReadAt(p []byte, off int64) (int, error) {
	for i := range p {
		p[i] = 0xFF
	}
	return len(p), nil
}
