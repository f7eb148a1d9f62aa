package export

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/mjolnir-forge/forgesync/sets/casync"
	"github.com/mjolnir-forge/forgesync/sets/lock"
	"github.com/mjolnir-forge/forgesync/sets/settest"
)

// checkExported checks that the folder an export wrote serves l whole:
// each archive has its pinned bytes, and each index, read from the folder
// with the SHA-256 the lock pins, rebuilds its archive from the folder's
// store alone (every chunk decompressed and checked against its name).
func checkExported(t *testing.T, out string, l *lock.Lock) {
	t.Helper()
	for _, p := range l.Packs {
		if err := lock.VerifyFile(filepath.Join(out, "packs", p.SHA256+".zip"), p.Size, p.SHA256); err != nil {
			t.Errorf("%s: archive: %v", p.ID, err)
		}
		if p.Index == nil {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(p.Index.URL)))
		if err != nil {
			t.Fatal(err)
		}
		ix, err := casync.ReadIndex(bytes.NewReader(raw), casync.Limits{})
		if err != nil {
			t.Fatalf("%s: index: %v", p.ID, err)
		}
		dst := filepath.Join(t.TempDir(), "rebuilt")
		f, err := os.Create(dst)
		if err != nil {
			t.Fatal(err)
		}
		_, err = casync.Assemble(t.Context(), f, ix, nil, casync.LocalStore{Dir: filepath.Join(out, ChunksDir)}, casync.AssembleOptions{})
		f.Close()
		if err != nil {
			t.Errorf("%s: rebuild from the folder's index and store: %v", p.ID, err)
		} else if err := lock.VerifyFile(dst, p.Size, p.SHA256); err != nil {
			t.Errorf("%s: rebuilt from the folder's index and store: %v", p.ID, err)
		}
	}
}

// TestExportRepairsWhatItKeeps is issue 35's item 10: exporting again into
// a folder whose files lost their bytes in place (same names, and for
// archives the same sizes) writes each of them again, counted as repaired,
// and leaves a folder that serves every pack; a second export then finds
// nothing to write.
func TestExportRepairsWhatItKeeps(t *testing.T) {
	src := t.TempDir()
	kept := []Kept{
		keptFile(t, src, "alpha-pack", "1.0.0", settest.RandomBytes(21, 600<<10)),
		keptFile(t, src, "beta-pack", "1.0.0", settest.RandomBytes(22, 300<<10)),
	}
	// chunk returns the file of the first chunk of beta-pack's index.
	chunk := func(t *testing.T, out string) string {
		raw, err := os.ReadFile(filepath.Join(out, "packs", kept[1].SHA256+casync.IndexExt))
		if err != nil {
			t.Fatal(err)
		}
		ix, err := casync.ReadIndex(bytes.NewReader(raw), casync.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		return casync.LocalStore{Dir: filepath.Join(out, ChunksDir)}.Path(ix.Chunks[0].ID)
	}
	tests := []struct {
		name    string
		noIndex bool
		damage  func(t *testing.T, out string)
		want    ExportStats
	}{
		{"chunk of other bytes", false, func(t *testing.T, out string) {
			os.WriteFile(chunk(t, out), casync.EncodeChunk([]byte("other bytes")), 0o644)
		}, ExportStats{ChunksWritten: 1, Repaired: 1}},
		{"chunk that is not zstd", false, func(t *testing.T, out string) {
			os.WriteFile(chunk(t, out), []byte("not a zstd frame"), 0o644)
		}, ExportStats{ChunksWritten: 1, Repaired: 1}},
		{"chunk gone", false, func(t *testing.T, out string) {
			os.Remove(chunk(t, out))
		}, ExportStats{ChunksWritten: 1}},
		{"archive of other bytes beside its index", false, func(t *testing.T, out string) {
			os.WriteFile(filepath.Join(out, "packs", kept[0].SHA256+".zip"), settest.RandomBytes(23, 600<<10), 0o644)
		}, ExportStats{Copied: 1, Repaired: 1}},
		{"index of other chunks that adds up", false, func(t *testing.T, out string) {
			path := filepath.Join(out, "packs", kept[0].SHA256+casync.IndexExt)
			raw, _ := os.ReadFile(path)
			raw[len(raw)-100] ^= 0xff // in a chunk id of the table
			if _, err := casync.ReadIndex(bytes.NewReader(raw), casync.Limits{}); err != nil {
				t.Fatalf("the damaged index does not read back: %v", err)
			}
			os.WriteFile(path, raw, 0o644)
		}, ExportStats{Indexed: 1, Repaired: 1}},
		{"archive of other bytes without indexes", true, func(t *testing.T, out string) {
			os.WriteFile(filepath.Join(out, "packs", kept[1].SHA256+".zip"), settest.RandomBytes(24, 300<<10), 0o644)
		}, ExportStats{Copied: 1, Repaired: 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			opt := ExportOptions{NoIndex: tc.noIndex}
			if _, err := ExportWith(t.Context(), out, kept, opt); err != nil {
				t.Fatal(err)
			}
			tc.damage(t, out)
			var st ExportStats
			opt.Stats = &st
			l, err := ExportWith(t.Context(), out, kept, opt)
			if err != nil || st != tc.want {
				t.Fatalf("ExportWith(over the damage) = %+v, %v; want %+v", st, err, tc.want)
			}
			checkExported(t, out, l)
			if _, err := ExportWith(t.Context(), out, kept, opt); err != nil || st != (ExportStats{}) {
				t.Errorf("ExportWith(again) = %+v, %v; want nothing written", st, err)
			}
		})
	}
}
