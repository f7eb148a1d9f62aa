package casync

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLocalStoreLayout(t *testing.T) {
	s := LocalStore{Dir: t.TempDir()}
	data := []byte("a chunk")
	id := Sum(data)
	if err := s.PutChunk(id, data); err != nil {
		t.Fatal(err)
	}
	h := id.String()
	want := filepath.Join(s.Dir, h[:4], h+".cacnk")
	if s.Path(id) != want {
		t.Fatalf("Path = %s; want %s", s.Path(id), want)
	}
	b, err := os.ReadFile(want)
	if err != nil {
		t.Fatalf("chunk file: %v", err)
	}
	if got, err := DecodeChunk(id, b, 100); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("the chunk file decodes to %q, %v", got, err)
	}
	// Only the chunk file is left: no temp file.
	entries, _ := os.ReadDir(filepath.Dir(want))
	if len(entries) != 1 {
		t.Fatalf("the prefix folder holds %d files; want the chunk alone", len(entries))
	}
	got, err := s.GetChunk(t.Context(), id, uint64(len(data)))
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("GetChunk = %q, %v", got, err)
	}
}

func TestLocalStorePutSkipsAChunkThere(t *testing.T) {
	s := LocalStore{Dir: t.TempDir()}
	data := []byte("first")
	id := Sum(data)
	if err := s.PutChunk(id, data); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(s.Path(id))
	if err := s.PutChunk(id, []byte("other bytes under the same id")); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(s.Path(id))
	if !bytes.Equal(before, after) {
		t.Fatal("PutChunk rewrote a chunk that was there")
	}
}

func TestLocalStoreGetRefuses(t *testing.T) {
	s := LocalStore{Dir: t.TempDir()}
	data := bytes.Repeat([]byte("data "), 2000)
	id := Sum(data)
	write := func(b []byte) {
		os.MkdirAll(filepath.Dir(s.Path(id)), 0o755)
		if err := os.WriteFile(s.Path(id), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.GetChunk(t.Context(), id, uint64(len(data))); !errors.Is(err, ErrChunkMissing) || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("GetChunk(not there) = %v; want ErrChunkMissing", err)
	}
	other := []byte("other bytes")
	write(EncodeChunk(other))
	if _, err := s.GetChunk(t.Context(), id, uint64(len(data))); !errors.Is(err, ErrChunkInvalid) || !strings.Contains(err.Error(), "have the digest "+Sum(other).String()) {
		t.Fatalf("GetChunk(other bytes) = %v; want the digest refused", err)
	}
	write(EncodeChunk(data))
	if _, err := s.GetChunk(t.Context(), id, uint64(len(data))+1); !errors.Is(err, ErrChunkInvalid) || !strings.Contains(err.Error(), "10000 bytes, want 10001") {
		t.Fatalf("GetChunk(a size too large) = %v; want the size refused", err)
	}
	if _, err := s.GetChunk(t.Context(), id, uint64(len(data))-1); !errors.Is(err, ErrChunkInvalid) || !strings.Contains(err.Error(), "more than 9999 bytes") {
		t.Fatalf("GetChunk(a size too small) = %v; want the size refused", err)
	}
	if _, err := s.GetChunk(t.Context(), id, 1<<62); !errors.Is(err, ErrChunkInvalid) || !strings.Contains(err.Error(), "size 4611686018427387904 is over the largest chunk size") {
		t.Fatalf("GetChunk(a size of 2^62) = %v; want the size refused", err)
	}
	write(make([]byte, 1<<20))
	if _, err := s.GetChunk(t.Context(), id, uint64(len(data))); !errors.Is(err, ErrChunkInvalid) || !strings.Contains(err.Error(), "more than a 10000-byte chunk needs") {
		t.Fatalf("GetChunk(a 1 MiB file) = %v; want it refused for its size", err)
	}
}

func TestLocalStorePrune(t *testing.T) {
	s := LocalStore{Dir: t.TempDir()}
	var ids []ChunkID
	for _, d := range []string{"keep 1", "drop 1", "keep 2", "drop 2"} {
		id := Sum([]byte(d))
		ids = append(ids, id)
		if err := s.PutChunk(id, []byte(d)); err != nil {
			t.Fatal(err)
		}
	}
	// Things that are not well-named chunks stay, whatever keep says.
	misplaced := Sum([]byte("misplaced"))
	h := ids[1].String()
	others := []string{
		filepath.Join(s.Dir, "0000", misplaced.String()+".cacnk"),     // not under its prefix
		filepath.Join(s.Dir, h[:4], strings.ToUpper(h)+".cacnk"),      // not lowercase
		filepath.Join(s.Dir, h[:4], h+".cacnk.bak"),                   // another extension
		filepath.Join(s.Dir, h[:4], ".tmp-cacnk123"),                  // desync's temp file
		filepath.Join(s.Dir, "notes", h+".cacnk"),                     // not a prefix folder
		filepath.Join(s.Dir, h+".cacnk"),                              // at the top
		filepath.Join(s.Dir, h[:4], "sub", h+".cacnk"),                // nested
		filepath.Join(s.Dir, "ABCD", "abcd"+h[4:]+".cacnk"),           // upper-case folder
		filepath.Join(s.Dir, h[:4], h[:63]+".cacnk"),                  // short
		filepath.Join(s.Dir, h[:4], h+"0.cacnk"),                      // long
		filepath.Join(s.Dir, "index.caibx"),                           // an index
		filepath.Join(s.Dir, h[:4], h[:60]+"zzzz.cacnk"),              // not hex
		filepath.Join(s.Dir, misplaced.String()[:4], "README"),        // anything else
		filepath.Join(s.Dir, misplaced.String()[:4]+"x", h+".cacnk"),  // five digits
		filepath.Join(s.Dir, h[:4], " "+h[:63]+".cacnk"),              // space
		filepath.Join(s.Dir, h[:4], h+".CACNK"),                       // upper extension
		filepath.Join(s.Dir, h[:4], ".forgesync-tmp-"+h+".cacnk-abc"), // our temp file
	}
	for _, p := range others {
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var asked int
	removed, err := s.Prune(func(id ChunkID) bool {
		asked++
		return id == ids[0] || id == ids[2]
	})
	if err != nil || removed != 2 {
		t.Fatalf("Prune = %d, %v; want 2 removed", removed, err)
	}
	if asked != 4 {
		t.Fatalf("Prune asked keep about %d chunks; want the 4 well-named ones", asked)
	}
	for i, id := range ids {
		_, err := os.Stat(s.Path(id))
		if kept := i%2 == 0; kept != (err == nil) {
			t.Fatalf("chunk %d: kept = %v, after Prune stat = %v", i, kept, err)
		}
	}
	for _, p := range others {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("Prune removed %s, which is not a well-named chunk: %v", p, err)
		}
	}
	if _, err := (LocalStore{Dir: filepath.Join(s.Dir, "absent")}).Prune(func(ChunkID) bool { return false }); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Prune(absent folder) = %v; want fs.ErrNotExist", err)
	}
}
