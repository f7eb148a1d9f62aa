package casync

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"io/fs"
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/internal/toolcheck"
)

// interopInputs are the files the interop tests chunk both ways.
func interopInputs(t *testing.T) map[string][]byte {
	t.Helper()
	random := make([]byte, 3<<20)
	rand.Read(random)
	var text bytes.Buffer
	r := mrand.New(mrand.NewPCG(1, 2))
	words := strings.Fields("the quick brown fox jumps over a lazy dog while pack sets sync mods across hosts and chunks repeat")
	for text.Len() < 2<<20 {
		text.WriteString(words[r.IntN(len(words))])
		if r.IntN(12) == 0 {
			text.WriteString(".\n")
		} else {
			text.WriteByte(' ')
		}
	}
	// Long runs of zeros between random stretches: a chunk of zeros is cut
	// at Max, and where a run ends the boundary depends on the bytes after.
	zeros := make([]byte, 0, 5<<20)
	for i := range 5 {
		zeros = append(zeros, make([]byte, (600+i*137)<<10)...)
		b := make([]byte, (40+i*23)<<10)
		rand.Read(b)
		zeros = append(zeros, b...)
	}
	small := make([]byte, DefaultMin-100)
	rand.Read(small)
	exactMin := make([]byte, DefaultMin+1)
	rand.Read(exactMin)
	return map[string][]byte{
		"random-3MiB": random,
		"text":        text.Bytes(),
		"zero-runs":   zeros,
		"empty":       nil,
		"under-min":   small,
		"min-plus-1":  exactMin,
	}
}

// storeIDs lists the chunk ids a local store folder holds.
func storeIDs(t *testing.T, dir string) []string {
	t.Helper()
	var ids []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.HasSuffix(p, chunkExt) {
			ids = append(ids, strings.TrimSuffix(d.Name(), chunkExt))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(ids)
	return ids
}

// TestDesyncMakeMatches checks that for each input `desync make` writes an
// index byte for byte the same as Make and WriteTo, and a store with the
// same chunks.
func TestDesyncMakeMatches(t *testing.T) {
	toolcheck.Desync(t)
	for name, data := range interopInputs(t) {
		t.Run(name, func(t *testing.T) {
			dir, in := inputFile(t, data)
			theirStore, theirIdx := desyncMake(t, dir, in)

			ourStore := LocalStore{Dir: filepath.Join(dir, "our-store")}
			os.Mkdir(ourStore.Dir, 0o755)
			ix, err := Make(t.Context(), bytes.NewReader(data), ourStore)
			if err != nil {
				t.Fatalf("Make: %v", err)
			}
			sameIndex(t, ix, theirIdx)
			if got, want := storeIDs(t, ourStore.Dir), storeIDs(t, theirStore); strings.Join(got, ",") != strings.Join(want, ",") {
				t.Fatalf("store chunks differ: ours %d, desync's %d", len(got), len(want))
			}
		})
	}
}

// inputFile writes data to the file "input" of a new temporary folder
// and returns the folder and the file.
func inputFile(t *testing.T, data []byte) (dir, in string) {
	t.Helper()
	dir = t.TempDir()
	in = filepath.Join(dir, "input")
	if err := os.WriteFile(in, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, in
}

// desyncMake runs `desync make` (with the extra args) on the file in, into
// a new store and index in dir, and returns the store and the index.
func desyncMake(t *testing.T, dir, in string, args ...string) (store, idx string) {
	t.Helper()
	store = filepath.Join(dir, "desync-store")
	if err := os.Mkdir(store, 0o755); err != nil {
		t.Fatal(err)
	}
	idx = filepath.Join(dir, "desync.caibx")
	toolcheck.RunDesync(t, append(append([]string{"make"}, args...), "-s", store, idx, in)...)
	return store, idx
}

// sizes lists the first chunk sizes of an index, for a failure message.
func sizes(ix *Index) string {
	var b strings.Builder
	for i, c := range ix.Chunks {
		if i == 12 {
			b.WriteString("…")
			break
		}
		fmt.Fprintf(&b, "%d ", c.Size)
	}
	return b.String()
}

// TestDesyncReadsOurStore checks that desync verifies the store we wrote and
// extracts our index from it to the original bytes.
func TestDesyncReadsOurStore(t *testing.T) {
	toolcheck.Desync(t)
	for name, data := range interopInputs(t) {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			store := LocalStore{Dir: filepath.Join(dir, "store")}
			os.Mkdir(store.Dir, 0o755)
			ix, err := Make(t.Context(), bytes.NewReader(data), store)
			if err != nil {
				t.Fatal(err)
			}
			idx := filepath.Join(dir, "ours.caibx")
			f, err := os.Create(idx)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := ix.WriteTo(f); err != nil {
				t.Fatal(err)
			}
			f.Close()
			if out := toolcheck.RunDesync(t, "verify", "-s", store.Dir); strings.TrimSpace(out) != "" {
				t.Fatalf("desync verify reported: %s", out)
			}
			out := filepath.Join(dir, "out")
			toolcheck.RunDesync(t, "extract", "-s", store.Dir, idx, out)
			got, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, data) {
				t.Fatalf("desync extract wrote %d bytes that differ from the %d of the input", len(got), len(data))
			}
		})
	}
}

// TestAssembleFromDesyncStore checks that ReadIndex and Assemble rebuild a
// file from an index and store desync made, with and without a seed.
func TestAssembleFromDesyncStore(t *testing.T) {
	toolcheck.Desync(t)
	for name, data := range interopInputs(t) {
		t.Run(name, func(t *testing.T) {
			dir, in := inputFile(t, data)
			store, idx := desyncMake(t, dir, in)
			f, err := os.Open(idx)
			if err != nil {
				t.Fatal(err)
			}
			ix, err := ReadIndex(f, Limits{})
			f.Close()
			if err != nil {
				t.Fatalf("ReadIndex(desync's index) = %v", err)
			}
			out, err := os.Create(filepath.Join(dir, "out"))
			if err != nil {
				t.Fatal(err)
			}
			defer out.Close()
			st, err := Assemble(context.Background(), out, ix, nil, LocalStore{Dir: store}, AssembleOptions{})
			if err != nil {
				t.Fatalf("Assemble = %v", err)
			}
			got, _ := os.ReadFile(out.Name())
			if !bytes.Equal(got, data) {
				t.Fatalf("assembled %d bytes that differ from the %d of the input", len(got), len(data))
			}
			// Every chunk comes from the store, a repeat (of zeros) once.
			if st.FetchedChunks+st.ReusedChunks != len(ix.Chunks) || st.FetchedBytes+st.ReusedBytes != int64(len(data)) || st.SeedChunks != 0 {
				t.Fatalf("Assemble stats = %+v; want all %d chunks (%d bytes) fetched or reused", st, len(ix.Chunks), len(data))
			}
		})
	}
}

// TestDesyncMakeSizedMatches checks MakeSized against `desync make -m`
// with other chunk sizes than the defaults.
func TestDesyncMakeSizedMatches(t *testing.T) {
	toolcheck.Desync(t)
	data := interopInputs(t)["zero-runs"] // random stretches, and runs cut at Max
	dir, in := inputFile(t, data)
	_, theirIdx := desyncMake(t, dir, in, "-m", "8:32:128")
	ix, err := MakeSized(t.Context(), bytes.NewReader(data), nil, 8<<10, 32<<10, 128<<10)
	if err != nil {
		t.Fatal(err)
	}
	sameIndex(t, ix, theirIdx)
}

// sameIndex fails t unless ix writes the bytes of the index file theirs.
func sameIndex(t *testing.T, ix *Index, theirs string) {
	t.Helper()
	var ours bytes.Buffer
	if _, err := ix.WriteTo(&ours); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(theirs)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(ours.Bytes(), data) {
		tix, err := ReadIndex(bytes.NewReader(data), Limits{})
		if err != nil {
			t.Fatalf("index differs, and ReadIndex(desync's) = %v", err)
		}
		t.Fatalf("index differs: ours has %d chunks (%s), desync's %d (%s)", len(ix.Chunks), sizes(ix), len(tix.Chunks), sizes(tix))
	}
}
