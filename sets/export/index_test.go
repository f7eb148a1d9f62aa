package export

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/sets/casync"
	"github.com/mjolnir-forge/forgesync/sets/lock"
	"github.com/mjolnir-forge/forgesync/sets/settest"
)

// chunkFiles lists the chunk files of an export's store.
func chunkFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(filepath.Join(dir, ChunksDir), func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && strings.HasSuffix(p, ".cacnk") {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// TestExportIndexes exports three packs with their indexes and one shared
// store, exports again (nothing is chunked or written), changes one pack
// (only its index and its new chunks are written), and prunes.
func TestExportIndexes(t *testing.T) {
	src, out := t.TempDir(), t.TempDir()
	v1 := settest.RandomBytes(1, 1<<20)
	kept := []Kept{
		keptFile(t, src, "alpha-pack", "1.0.0", v1),
		keptFile(t, src, "beta-pack", "1.0.0", settest.RandomBytes(2, 600<<10)),
		keptFile(t, src, "gamma-pack", "1.0.0", settest.RandomBytes(3, 300<<10)),
	}
	var st ExportStats
	l, err := ExportWith(t.Context(), out, kept, ExportOptions{Stats: &st})
	if err != nil {
		t.Fatal(err)
	}
	first := chunkFiles(t, out)
	if st.Copied != 3 || st.Indexed != 3 || st.ChunksWritten != len(first) || len(first) < 20 {
		t.Fatalf("first export: %+v, %d chunk files", st, len(first))
	}
	if !slices.Equal(l.Chunks, []string{"chunks/"}) {
		t.Errorf("Chunks = %q", l.Chunks)
	}
	text, _ := os.ReadFile(filepath.Join(out, lock.LockName))
	back, err := lock.Decode(lock.LockName, text, lock.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range back.Packs {
		raw, err := os.ReadFile(filepath.Join(out, "packs", p.SHA256+casync.IndexExt))
		sum := sha256.Sum256(raw)
		if err != nil || p.Index == nil || p.Index.URL != "packs/"+p.SHA256+casync.IndexExt || p.Index.SHA256 != hex.EncodeToString(sum[:]) {
			t.Errorf("%s: index %+v, file %v", p.ID, p.Index, err)
			continue
		}
		// The index and the store rebuild the archive.
		ix, err := casync.ReadIndex(bytes.NewReader(raw), casync.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		dst, _ := os.Create(filepath.Join(t.TempDir(), "a"))
		if _, err := casync.Assemble(t.Context(), dst, ix, nil, casync.LocalStore{Dir: filepath.Join(out, ChunksDir)}, casync.AssembleOptions{}); err != nil {
			t.Fatal(err)
		}
		dst.Close()
		if err := lock.VerifyFile(dst.Name(), p.Size, p.SHA256); err != nil {
			t.Errorf("%s rebuilt from the export's store: %v", p.ID, err)
		}
	}

	// Again, unchanged: nothing is chunked, no chunk is written.
	if _, err := ExportWith(t.Context(), out, kept, ExportOptions{Stats: &st}); err != nil {
		t.Fatal(err)
	}
	if st != (ExportStats{}) {
		t.Errorf("unchanged export: %+v; want nothing written", st)
	}

	// alpha-pack 1.1.0: one index made, only its new chunks written.
	old := kept[0]
	kept[0] = keptFile(t, src, "alpha-pack", "1.1.0", settest.Edited(v1, 20<<10, 30<<10, 10<<10))
	if _, err := ExportWith(t.Context(), out, kept, ExportOptions{Stats: &st}); err != nil {
		t.Fatal(err)
	}
	if st.Copied != 1 || st.Indexed != 1 || st.ChunksWritten == 0 || st.ChunksWritten > 6 {
		t.Errorf("export with one pack changed: %+v; want 1 copied, 1 indexed, a few chunks", st)
	}
	// An exported archive that lost its bytes (same size) is copied again
	// when its index is made.
	dst := filepath.Join(out, "packs", kept[2].SHA256+".zip")
	os.Remove(filepath.Join(out, "packs", kept[2].SHA256+casync.IndexExt))
	os.WriteFile(dst, make([]byte, 300<<10), 0o644)
	if _, err := ExportWith(t.Context(), out, kept, ExportOptions{Stats: &st}); err != nil || st.Copied != 1 || st.Indexed != 1 {
		t.Errorf("export over a damaged copy: %+v, %v; want it copied again and indexed", st, err)
	}
	if err := lock.VerifyFile(dst, 300<<10, kept[2].SHA256); err != nil {
		t.Errorf("damaged copy: %v", err)
	}
	// A damaged index in place is made again.
	ipath := filepath.Join(out, "packs", kept[1].SHA256+casync.IndexExt)
	os.WriteFile(ipath, []byte("not an index"), 0o644)
	l, err = ExportWith(t.Context(), out, kept, ExportOptions{Stats: &st})
	if err != nil || st.Indexed != 1 || st.ChunksWritten != 0 {
		t.Errorf("export over a damaged index: %+v, %v; want it made again, no chunk written", st, err)
	}

	before := len(chunkFiles(t, out))
	removed, indexes, err := pruneExport(out, l)
	if err != nil {
		t.Fatal(err)
	}
	if len(removed) != 1 || !strings.HasPrefix(removed[0], old.SHA256) {
		t.Errorf("pruneExport removed %v; want the old archive", removed)
	}
	if !slices.Equal(indexes, []string{old.SHA256 + casync.IndexExt}) {
		t.Errorf("pruneExport removed the indexes %v; want the old archive's, named", indexes)
	}
	if _, err := os.Stat(filepath.Join(out, "packs", old.SHA256+casync.IndexExt)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the old archive's index stayed: %v", err)
	}
	n, err := pruneChunks(out, l)
	if err != nil || n == 0 || n > 6 || len(chunkFiles(t, out)) != before-n {
		t.Errorf("pruneChunks = %d, %v (from %d chunks); want the old version's own chunks", n, err, before)
	}
	// What is left still rebuilds every pack.
	for _, p := range l.Packs {
		raw, _ := os.ReadFile(filepath.Join(out, "packs", p.SHA256+casync.IndexExt))
		ix, err := casync.ReadIndex(bytes.NewReader(raw), casync.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range ix.Chunks {
			if _, err := os.Stat(casync.LocalStore{Dir: filepath.Join(out, ChunksDir)}.Path(c.ID)); err != nil {
				t.Fatalf("%s: chunk %s pruned though used", p.ID, c.ID)
			}
		}
	}

	// Without indexes the lock names none.
	out2 := t.TempDir()
	l, err = ExportWith(t.Context(), out2, kept, ExportOptions{NoIndex: true})
	if err != nil || l.Chunks != nil || l.Packs[0].Index != nil {
		t.Errorf("ExportWith(NoIndex) = %+v, %v", l, err)
	}
	if _, err := os.Stat(filepath.Join(out2, ChunksDir)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("NoIndex wrote a chunk store: %v", err)
	}
}
