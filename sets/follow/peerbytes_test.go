package follow

import (
	"bytes"
	"crypto/sha256"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/installer/store"
	"github.com/mjolnir-forge/forgesync/sets/casync"
	"github.com/mjolnir-forge/forgesync/sets/settest"

	"github.com/mjolnir-forge/forgesync/sets/fetch"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// TestCheckCountsPeerBytes: a check sums the bytes its downloads took from
// LAN peers and from mirrors (SPEC §13), and the record keeps them.
func TestCheckCountsPeerBytes(t *testing.T) {
	var c Check
	for _, r := range []fetch.Result{
		{Pack: lock.Pack{ID: "a", Size: 100}, From: "http://peer:47380/lan/v1/archives/x", Peer: true},
		{Pack: lock.Pack{ID: "b", Size: 200}, From: "https://mirror/b.zip"},
		{Pack: lock.Pack{ID: "c", Size: 900}, From: "https://mirror/chunks/", Delta: &fetch.DeltaStats{SeedBytes: 500, FetchedBytes: 400, PeerBytes: 300}},
		{Pack: lock.Pack{ID: "d", Size: 50}}, // in the cache already
	} {
		addDelta(&c, r)
	}
	if c.PeerBytes != 400 || c.MirrorBytes != 300 || c.Delta.PeerBytes != 300 {
		t.Errorf("check = peer %d, mirror %d, delta %+v; want 400, 300 and the delta's 300", c.PeerBytes, c.MirrorBytes, c.Delta)
	}
	back := storedCheck(c).check()
	if back.PeerBytes != 400 || back.MirrorBytes != 300 || back.Delta.PeerBytes != 300 {
		t.Errorf("kept and read back = %+v; want the same figures", back)
	}
}

// TestArchivePath: what the machine serves its LAN peers by SHA-256: an
// archive in the cache, or the kept archive of an installed pack (whose
// name holds only 12 digits of it); nothing else.
func TestArchivePath(t *testing.T) {
	state := t.TempDir()
	shaA, shaB := strings.Repeat("a", 64), strings.Repeat("b", 64)
	otherA := strings.Repeat("a", 12) + strings.Repeat("f", 52) // the same 12 digits
	w := &fakeWriter{installed: []lock.Installed{{ID: "alpha-pack", Version: "1.0.0", SHA256: shaA, Enabled: true}}}
	s, err := New(w, Options{State: state})
	if err != nil {
		t.Fatal(err)
	}
	kept := filepath.Join(state, store.ArchivesDir, store.KeptKey("alpha-pack", "1.0.0", shaA)+".zip")
	os.MkdirAll(filepath.Dir(kept), 0o700)
	os.WriteFile(kept, []byte("alpha"), 0o644)
	os.WriteFile(s.cache.Path(shaB), []byte("beta"), 0o444)
	for sha, want := range map[string]string{shaA: kept, shaB: s.cache.Path(shaB), otherA: "", strings.Repeat("c", 64): ""} {
		if got := s.ArchivePath(sha); got != want {
			t.Errorf("ArchivePath(%s…) = %q; want %q", sha[:16], got, want)
		}
	}
}

// TestPruneChunks: the chunks kept for LAN peers stay while an index kept
// in the cache uses them, and go with it.
func TestPruneChunks(t *testing.T) {
	state := t.TempDir()
	chunks := filepath.Join(state, "chunks")
	s, err := New(&fakeWriter{}, Options{State: state, Chunks: chunks})
	if err != nil {
		t.Fatal(err)
	}
	data := settest.RandomBytes(5, 600<<10)
	ix, err := casync.Make(t.Context(), bytes.NewReader(data), casync.LocalStore{Dir: chunks})
	if err != nil {
		t.Fatal(err)
	}
	var raw bytes.Buffer
	ix.WriteTo(&raw)
	sha := strings.Repeat("d", 64)
	os.WriteFile(s.cache.Path(sha), data, 0o444)
	os.WriteFile(s.cache.Path(sha)+casync.IndexExt, raw.Bytes(), 0o644)
	stray := settest.RandomBytes(6, 30<<10)
	strayID := casync.ChunkID(sha256.Sum256(stray))
	(casync.LocalStore{Dir: chunks}).PutChunk(strayID, stray)
	s.pruneChunks()
	if _, err := os.Stat(casync.LocalStore{Dir: chunks}.Path(strayID)); err == nil {
		t.Error("a chunk no kept index uses was kept")
	}
	for _, c := range ix.Chunks {
		if _, err := os.Stat(casync.LocalStore{Dir: chunks}.Path(c.ID)); err != nil {
			t.Errorf("chunk %s of a kept index: %v", c.ID, err)
		}
	}
	os.Remove(s.cache.Path(sha))
	s.pruneIndexes()
	s.pruneChunks()
	for _, c := range ix.Chunks {
		if _, err := os.Stat(casync.LocalStore{Dir: chunks}.Path(c.ID)); err == nil {
			t.Errorf("chunk %s kept once its archive left the cache", c.ID)
		}
	}
}
