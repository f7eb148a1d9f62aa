package iostore

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"
)

// FuzzRead feeds arbitrary bytes to the TOC reader, seeded with every .utoc
// under testdata/ (the real UE 5.8 TOC and the fixture goldens). A file is
// either rejected with a *TOCError naming it and one of the sentinel
// errors, or read consistently: the chunk count matches the header, the
// declared sections fit, and the presence check's streaming scan agrees
// with the chunks Read returns.
func FuzzRead(f *testing.F) {
	seeds, err := filepath.Glob(filepath.Join("testdata", "*.utoc"))
	if err != nil {
		f.Fatal(err)
	}
	if len(seeds) < 3 {
		f.Fatalf("want at least 3 seeds in testdata, found %v", seeds)
	}
	for _, s := range seeds {
		b, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		const name = "content/F.utoc"
		toc, err := Read(bytes.NewReader(b), int64(len(b)), name)
		if err != nil {
			var te *TOCError
			if !errors.As(err, &te) || te.Path != name {
				t.Fatalf("Read error %v (%T) is not a *TOCError naming %s", err, err, name)
			}
			known := false
			for _, s := range []error{errTruncated, errBadMagic, errBadHeader, errPastEnd, errTooManyChunks} {
				known = known || errors.Is(err, s)
			}
			if !known {
				t.Fatalf("Read error %v wraps no sentinel", err)
			}
			return
		}
		if len(toc.Chunks) != int(toc.EntryCount) || toc.HeaderSize != HeaderSize {
			t.Fatalf("%d chunks for entry count %d, header size %d", len(toc.Chunks), toc.EntryCount, toc.HeaderSize)
		}
		if HeaderSize+sectionBytes(&toc.Header) > uint64(len(b)) {
			t.Fatalf("accepted a TOC whose sections need %d bytes of %d", HeaderSize+sectionBytes(&toc.Header), len(b))
		}
		for i, c := range toc.Chunks {
			raw := b[HeaderSize+i*chunkIDSize:]
			if uint64(c.ID) != binary.LittleEndian.Uint64(raw) || c.Type != raw[11] || (c.Index == 0) != (raw[8]|raw[9] == 0) {
				t.Fatalf("chunk %d = %+v; raw % x", i, c, raw[:chunkIDSize])
			}
			if c.Kind != toc.Layout.KindOf(c.Type) {
				t.Fatalf("chunk %d kind %v; layout %v says %v", i, c.Kind, toc.Layout, toc.Layout.KindOf(c.Type))
			}
		}

		// The streaming scan of Require against the chunks Read returns:
		// look for the first ids (enough to use the map), plus one absent.
		w := &wanted{}
		seen := map[uint64]bool{}
		for _, c := range toc.Chunks {
			if len(w.ids) == 2*linearMax {
				break
			}
			if !seen[uint64(c.ID)] {
				seen[uint64(c.ID)] = true
				w.ids = append(w.ids, uint64(c.ID))
			}
		}
		for _, ids := range [][]uint64{w.ids[:min(len(w.ids), linearMax)], w.ids} {
			w := &wanted{ids: ids[:len(ids):len(ids)]}
			if absent := uint64(0x0123456789ABCDEF); !seen[absent] {
				w.ids = append(w.ids, absent)
			}
			w.init()
			fsys := fstest.MapFS{name: {Data: b}}
			if err := w.scanFile(fsys, name); err != nil {
				t.Fatalf("scanFile = %v after Read accepted the file", err)
			}
			for j, id := range w.ids {
				want := false
				for _, c := range toc.Chunks {
					want = want || uint64(c.ID) == id && c.IsPackageExport()
				}
				if w.found[j] != want {
					t.Fatalf("scanFile found %016X = %v; Read's chunks say %v", id, w.found[j], want)
				}
			}
		}
	})
}
