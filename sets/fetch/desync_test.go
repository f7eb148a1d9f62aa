package fetch

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/internal/toolcheck"
	"github.com/mjolnir-forge/forgesync/sets/casync"
	"github.com/mjolnir-forge/forgesync/sets/export"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// TestDesyncReadsExport: desync verifies the store that export wrote and
// extracts each archive from its index, byte for byte.
func TestDesyncReadsExport(t *testing.T) {
	toolcheck.Desync(t)
	s := newDeltaSite(t) // an export of v1 and v2
	out := t.TempDir()
	for path, data := range s.m.files {
		p := filepath.Join(out, filepath.FromSlash(path))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, data, 0o644)
	}
	toolcheck.RunDesync(t, "verify", "-s", filepath.Join(out, export.ChunksDir))
	for i, want := range [][]byte{s.v1, s.v2} {
		sum := sha256.Sum256(want)
		dst := filepath.Join(t.TempDir(), fmt.Sprintf("v%d", i+1))
		toolcheck.RunDesync(t, "extract", "-s", filepath.Join(out, export.ChunksDir), filepath.Join(out, "packs", hex.EncodeToString(sum[:])+casync.IndexExt), dst)
		if got, _ := os.ReadFile(dst); !bytes.Equal(got, want) {
			t.Errorf("desync extract v%d: %d bytes, not the archive", i+1, len(got))
		}
	}
}

// TestFetchFromDesyncMake: an index and a store that `desync make` wrote
// rebuild v2 from the seed v1, through the HTTP chunk store.
func TestFetchFromDesyncMake(t *testing.T) {
	toolcheck.Desync(t)
	s := newDeltaSite(t)
	dir := t.TempDir()
	v2 := filepath.Join(dir, "v2.zip")
	os.WriteFile(v2, s.v2, 0o644)
	store := filepath.Join(dir, "store")
	os.Mkdir(store, 0o755)
	toolcheck.RunDesync(t, "make", "-s", store, filepath.Join(dir, "v2.caibx"), v2)
	// Serve desync's index and store in place of export's.
	for path := range s.m.files {
		if strings.HasPrefix(path, "/chunks/") || strings.HasSuffix(path, casync.IndexExt) {
			delete(s.m.files, path)
		}
	}
	raw, _ := os.ReadFile(filepath.Join(dir, "v2.caibx"))
	s.m.files["/desync/v2.caibx"] = raw
	entries, _ := os.ReadDir(store)
	for _, d := range entries {
		subs, _ := os.ReadDir(filepath.Join(store, d.Name()))
		for _, c := range subs {
			data, _ := os.ReadFile(filepath.Join(store, d.Name(), c.Name()))
			s.m.files["/desync/store/"+d.Name()+"/"+c.Name()] = data
		}
	}
	sum := sha256.Sum256(raw)
	s.l.Packs[0].Index = &lock.IndexRef{URL: "desync/v2.caibx", SHA256: hex.EncodeToString(sum[:])}
	s.l.Chunks = []string{"desync/store"} // no trailing slash: it is added
	f, _ := s.fetcher(t)
	f.Delta.Chunks = s.l.Chunks
	res, err := f.Fetch(t.Context(), s.base, s.l.Packs)
	if err != nil {
		t.Fatal(err)
	}
	if r := res[0]; r.Delta == nil || r.Delta.FetchedChunks == 0 || r.Delta.SeedChunks == 0 {
		t.Fatalf("Fetch = %+v (fallback %q); want a delta update from desync's store", r, r.Fallback)
	}
	checkLanded(t, f.Dir, map[string][]byte{s.l.Packs[0].SHA256: s.v2})
}
