package iostore_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mjolnir-forge/forgesync/installer/iostore"
	"github.com/mjolnir-forge/forgesync/installer/iostore/tocfixture"
)

const realTOC = "testdata/ue5_8-minimal-uncompressed.utoc"

func readReal(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile(realTOC)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestReadRealUE58 checks the facts testdata/README.md lists for the TOC
// Unreal Engine 5.8 wrote.
func TestReadRealUE58(t *testing.T) {
	toc, err := iostore.ReadFile(realTOC)
	if err != nil {
		t.Fatalf("ReadFile(%q) = %v", realTOC, err)
	}
	if toc.Path != realTOC {
		t.Errorf("Path = %q; want %q", toc.Path, realTOC)
	}
	if toc.Version != 8 || toc.HeaderSize != 144 {
		t.Errorf("version %d, header size %d; want 8, 144", toc.Version, toc.HeaderSize)
	}
	if toc.ContainerID != 0x8E31E2F0B7DE84F2 {
		t.Errorf("ContainerID = %v; want 8E31E2F0B7DE84F2", toc.ContainerID)
	}
	if toc.Flags != iostore.FlagIndexed || toc.Flags.String() != "Indexed" {
		t.Errorf("Flags = %v; want Indexed", toc.Flags)
	}
	if toc.Layout != iostore.LayoutUE5 {
		t.Errorf("Layout = %v; want UE5", toc.Layout)
	}
	if len(toc.Chunks) != 112 || toc.EntryCount != 112 {
		t.Fatalf("%d chunks, entry count %d; want 112", len(toc.Chunks), toc.EntryCount)
	}
	count := map[string]int{}
	for _, c := range toc.Chunks {
		count[c.TypeName()]++
		if c.Kind == iostore.KindContainerHeader && (c.ID != toc.ContainerID || c.Type != 6) {
			t.Errorf("container header chunk %+v; want id %v, type 6", c, toc.ContainerID)
		}
		if c.Kind == iostore.KindExportBundleData && c.Type != 1 || c.Kind == iostore.KindBulkData && c.Type != 2 {
			t.Errorf("chunk %+v: wrong kind for its type", c)
		}
	}
	want := map[string]int{"ExportBundleData": 97, "BulkData": 14, "ContainerHeader": 1}
	if len(count) != len(want) {
		t.Errorf("type counts %v; want %v", count, want)
	}
	for k, n := range want {
		if count[k] != n {
			t.Errorf("%d %s chunks; want %d", count[k], k, n)
		}
	}
	for _, name := range []string{
		"/Game/Fixtures/Maps/Empty",
		"/Game/Fixtures/Maps/WorldPartition/_Generated_/1WD4NAK7SVY0JF8AXYPOSA7U8",
	} {
		id := iostore.ChunkID(iostore.PackageID(name))
		found := false
		for _, c := range toc.Chunks {
			if c.ID == id && c.IsPackageExport() {
				found = true
			}
		}
		if !found {
			t.Errorf("no ExportBundleData chunk, index 0, for %s (%v)", name, id)
		}
	}
	// The declared sections account for every byte of this file.
	b := readReal(t)
	if _, err := iostore.Read(bytes.NewReader(b[:len(b)-1]), int64(len(b)-1), realTOC); !errors.Is(err, iostore.ErrPastEnd) {
		t.Errorf("Read(real minus its last byte) = %v; want ErrPastEnd", err)
	}
}

func TestChunkJSON(t *testing.T) {
	toc, err := iostore.ReadFile(realTOC)
	if err != nil {
		t.Fatal(err)
	}
	var c iostore.Chunk
	for _, c = range toc.Chunks {
		if c.ID == 0x910BAD3EBD32CC77 {
			break
		}
	}
	got, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":"910BAD3EBD32CC77","index":0,"type":1,"kind":"ExportBundleData"}`
	if string(got) != want {
		t.Errorf("json.Marshal(chunk) = %s; want %s", got, want)
	}
	var back iostore.ChunkID
	if err := back.UnmarshalText([]byte("0x910bad3ebd32cc77")); err != nil || back != c.ID {
		t.Errorf("UnmarshalText = %v, %v; want %v", back, err, c.ID)
	}
	for _, bad := range []string{"", "0x", "12345678901234567", "xyz"} {
		if err := back.UnmarshalText([]byte(bad)); err == nil {
			t.Errorf("UnmarshalText(%q) succeeded", bad)
		}
	}
	top, err := json.Marshal(toc)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`"containerId":"8E31E2F0B7DE84F2"`, `"flags":"Indexed"`, `"layout":"UE5"`, `"version":8`} {
		if !bytes.Contains(top, []byte(s)) {
			t.Errorf("json.Marshal(toc) lacks %s", s)
		}
	}
}

func TestTypeNames(t *testing.T) {
	for _, tc := range []struct {
		layout iostore.Layout
		typ    uint8
		want   string
	}{
		{iostore.LayoutUE4, 2, "ExportBundleData"},
		{iostore.LayoutUE4, 3, "BulkData"},
		{iostore.LayoutUE4, 4, "OptionalBulkData"},
		{iostore.LayoutUE4, 5, "MemoryMappedBulkData"},
		{iostore.LayoutUE4, 10, "ContainerHeader"},
		{iostore.LayoutUE4, 1, "InstallManifest"},
		{iostore.LayoutUE4, 0, "Type(0)"},
		{iostore.LayoutUE4, 11, "Type(11)"},
		{iostore.LayoutUE5, 1, "ExportBundleData"},
		{iostore.LayoutUE5, 2, "BulkData"},
		{iostore.LayoutUE5, 3, "OptionalBulkData"},
		{iostore.LayoutUE5, 4, "MemoryMappedBulkData"},
		{iostore.LayoutUE5, 6, "ContainerHeader"},
		{iostore.LayoutUE5, 10, "PackageStoreEntry"},
		{iostore.LayoutUE5, 14, "Type(14)"},
		{iostore.LayoutUE5, 255, "Type(255)"},
	} {
		c := iostore.Chunk{Type: tc.typ, Kind: tc.layout.KindOf(tc.typ)}
		if got := c.TypeName(); got != tc.want {
			t.Errorf("%v type %d: TypeName() = %q; want %q", tc.layout, tc.typ, got, tc.want)
		}
		if k := tc.layout.KindOf(tc.typ); k != iostore.KindUnknown {
			if back, ok := tc.layout.TypeOf(k); !ok || back != tc.typ {
				t.Errorf("%v.TypeOf(%v) = %d, %v; want %d", tc.layout, k, back, ok, tc.typ)
			}
		}
	}
	if _, ok := iostore.LayoutUE4.TypeOf(iostore.KindScriptObjects); ok {
		t.Error("UE4.27 has no ScriptObjects chunk type")
	}
}

// TestReadFixtures reads synthetic TOCs of both layouts with every flag.
func TestReadFixtures(t *testing.T) {
	const name = "/Game/MJOLNIR/Forge/abc/Surfaces/MI_GlassCyan"
	for _, tc := range []struct {
		name   string
		engine tocfixture.Engine
		flags  iostore.Flags
		layout iostore.Layout
		export uint8
	}{
		{"ue4.27", tocfixture.UE427, 0, iostore.LayoutUE4, 2},
		{"ue5", tocfixture.UE5, 0, iostore.LayoutUE5, 1},
		{"ue4.27 encrypted", tocfixture.UE427, iostore.FlagEncrypted, iostore.LayoutUE4, 2},
		{"ue5 encrypted", tocfixture.UE5, iostore.FlagEncrypted, iostore.LayoutUE5, 1},
		{"ue5 all flags", tocfixture.UE5, iostore.FlagCompressed | iostore.FlagEncrypted | iostore.FlagSigned | iostore.FlagIndexed | iostore.FlagOnDemand, iostore.LayoutUE5, 1},
		{"ue4.27 signed indexed", tocfixture.UE427, iostore.FlagSigned | iostore.FlagIndexed, iostore.LayoutUE4, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tocfixture.Container{
				Engine: tc.engine,
				Flags:  tc.flags,
				Chunks: []tocfixture.Chunk{
					tocfixture.Export(name),
					tocfixture.Bulk(name),
					{ID: 42, Index: 0x0102, Kind: iostore.KindBulkData},
				},
			}
			b := c.UTOC()
			toc, err := iostore.Read(bytes.NewReader(b), int64(len(b)), "x.utoc")
			if err != nil {
				t.Fatalf("Read = %v", err)
			}
			if toc.Flags != tc.flags || toc.Layout != tc.layout || len(toc.Chunks) != 4 {
				t.Fatalf("flags %v, layout %v, %d chunks; want %v, %v, 4", toc.Flags, toc.Layout, len(toc.Chunks), tc.flags, tc.layout)
			}
			ex := toc.Chunks[0]
			if uint64(ex.ID) != iostore.PackageID(name) || ex.Type != tc.export || !ex.IsPackageExport() {
				t.Errorf("export chunk %+v; want id %016X type %d", ex, iostore.PackageID(name), tc.export)
			}
			if toc.Chunks[1].Kind != iostore.KindBulkData || toc.Chunks[1].IsPackageExport() {
				t.Errorf("bulk chunk %+v", toc.Chunks[1])
			}
			if got := toc.Chunks[2].Index; got != 0x0102 {
				t.Errorf("chunk index = %#04x; want 0x0102 (byte order of %v)", got, tc.layout)
			}
			if hc := toc.Chunks[3]; hc.Kind != iostore.KindContainerHeader || hc.ID != toc.ContainerID {
				t.Errorf("container header chunk %+v; container id %v", hc, toc.ContainerID)
			}
			// The fixture is exactly as long as the reader's size model:
			// one byte less is past the end.
			if _, err := iostore.Read(bytes.NewReader(b), int64(len(b)-1), "x.utoc"); !errors.Is(err, iostore.ErrPastEnd) {
				t.Errorf("Read(one byte short) = %v; want ErrPastEnd", err)
			}
		})
	}
}

// TestLayoutChoice checks IOSTORE.md's rule: the container header chunk's
// type decides; without it, version ≤ 3 is UE 4.27 and ≥ 4 is UE5.
func TestLayoutChoice(t *testing.T) {
	hdr := func(raw uint8) tocfixture.Chunk {
		return tocfixture.Chunk{ID: 7, RawType: raw}
	}
	for _, tc := range []struct {
		name    string
		version uint8
		chunks  []tocfixture.Chunk
		want    iostore.Layout
	}{
		{"v1 no header", 1, nil, iostore.LayoutUE4},
		{"v3 no header", 3, nil, iostore.LayoutUE4},
		{"v4 no header", 4, nil, iostore.LayoutUE5},
		{"v8 no header", 8, nil, iostore.LayoutUE5},
		{"v12 no header", 12, nil, iostore.LayoutUE5},
		{"v8 with 4.27 header", 8, []tocfixture.Chunk{hdr(10)}, iostore.LayoutUE4},
		{"v3 with UE5 header", 3, []tocfixture.Chunk{hdr(6)}, iostore.LayoutUE5},
		{"v3 header id with other type", 3, []tocfixture.Chunk{hdr(1)}, iostore.LayoutUE4},
		{"v8 header id with other type", 8, []tocfixture.Chunk{hdr(2)}, iostore.LayoutUE5},
		{"v8 header last after 4.27 exports", 8, []tocfixture.Chunk{{ID: 9, RawType: 2}, hdr(10)}, iostore.LayoutUE4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tocfixture.Container{Version: tc.version, ContainerID: 7, NoContainerHeader: true, Chunks: tc.chunks}
			b := c.UTOC()
			toc, err := iostore.Read(bytes.NewReader(b), int64(len(b)), "x.utoc")
			if err != nil {
				t.Fatalf("Read = %v", err)
			}
			if toc.Layout != tc.want {
				t.Errorf("Layout = %v; want %v", toc.Layout, tc.want)
			}
		})
	}
}

// patch returns a copy of b with v written little-endian at off.
func patch(b []byte, off int, v any) []byte {
	c := bytes.Clone(b)
	switch v := v.(type) {
	case uint8:
		c[off] = v
	case uint32:
		binary.LittleEndian.PutUint32(c[off:], v)
	case string:
		copy(c[off:], v)
	}
	return c
}

func TestReadMalformed(t *testing.T) {
	real := readReal(t)
	for _, tc := range []struct {
		name string
		b    []byte
		err  error
		what string
	}{
		{"empty", nil, iostore.ErrTruncated, "file size"},
		{"short header", real[:100], iostore.ErrTruncated, "file size"},
		{"bad magic", patch(real, 0, "-==--==--==--==+"), iostore.ErrBadMagic, "magic"},
		{"pak file", patch(real, 0, "PK\x03\x04"), iostore.ErrBadMagic, "magic"},
		{"header size 160", patch(real, 20, uint32(160)), iostore.ErrBadHeader, "header size"},
		{"header size 0", patch(real, 20, uint32(0)), iostore.ErrBadHeader, "header size"},
		{"version 0", patch(real, 16, uint8(0)), iostore.ErrBadHeader, "version"},
		{"block entry size", patch(real, 32, uint32(13)), iostore.ErrBadHeader, "compressed block entry size"},
		{"count overflow", patch(real, 24, uint32(0xFFFFFFFF)), iostore.ErrTooManyChunks, "entry count"},
		{"count just absurd", patch(real, 24, uint32(iostore.MaxChunks+1)), iostore.ErrTooManyChunks, "entry count"},
		{"count past end", patch(real, 24, uint32(1000)), iostore.ErrPastEnd, "entry count"},
		{"count one too many", patch(real, 24, uint32(113)), iostore.ErrPastEnd, "section sizes"},
		{"blocks past end", patch(real, 28, uint32(0xFFFFFFFF)), iostore.ErrPastEnd, "section sizes"},
		{"method names past end", patch(patch(real, 36, uint32(0xFFFFFFFF)), 40, uint32(0xFFFFFFFF)), iostore.ErrPastEnd, "section sizes"},
		{"directory index past end", patch(real, 48, uint32(0x80000000)), iostore.ErrPastEnd, "section sizes"},
		{"hash seeds past end", patch(real, 84, uint32(0xFFFFFFFF)), iostore.ErrPastEnd, "section sizes"},
		{"overflow chunks past end", patch(real, 96, uint32(0xFFFFFFFF)), iostore.ErrPastEnd, "section sizes"},
		{"signed without signatures", patch(real, 80, uint8(iostore.FlagIndexed|iostore.FlagSigned)), iostore.ErrPastEnd, "section sizes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const path = "content/Broken.utoc"
			toc, err := iostore.Read(bytes.NewReader(tc.b), int64(len(tc.b)), path)
			if !errors.Is(err, tc.err) {
				t.Fatalf("Read = %v, %v; want %v", toc, err, tc.err)
			}
			var te *iostore.TOCError
			if !errors.As(err, &te) {
				t.Fatalf("Read error %T is not a *TOCError", err)
			}
			if te.Path != path || te.What != tc.what || te.Value == "" && tc.what != "" {
				t.Errorf("TOCError{Path %q, What %q, Value %q}; want %q, %q, a value", te.Path, te.What, te.Value, path, tc.what)
			}
			if msg := err.Error(); !strings.HasPrefix(msg, path+": "+tc.what) {
				t.Errorf("Error() = %q; want it to start with %q", msg, path+": "+tc.what)
			}
		})
	}
	// Flags the reader does not know are kept, not rejected.
	b := patch(real, 80, uint8(iostore.FlagIndexed|0x80))
	toc, err := iostore.Read(bytes.NewReader(b), int64(len(b)), "x.utoc")
	if err != nil || toc.Flags.String() != "Indexed|0x80" {
		t.Errorf("Read(unknown flag) = %v, %v; want flags Indexed|0x80", toc, err)
	}
}

// TestReadTruncated cuts the real TOC and fixtures at every length short of
// the whole: each cut is an error naming the file, never a silent pass.
func TestReadTruncated(t *testing.T) {
	files := map[string][]byte{"real": readReal(t)}
	for _, e := range []tocfixture.Engine{tocfixture.UE427, tocfixture.UE5} {
		c := tocfixture.Surfaces(e, "abc")
		c.Flags = iostore.FlagSigned | iostore.FlagIndexed
		files[e.Layout().String()] = c.UTOC()
	}
	for name, b := range files {
		for n := range len(b) {
			_, err := iostore.Read(bytes.NewReader(b[:n]), int64(n), name)
			if !errors.Is(err, iostore.ErrTruncated) && !errors.Is(err, iostore.ErrPastEnd) {
				t.Fatalf("%s cut to %d bytes: Read = %v; want ErrTruncated or ErrPastEnd", name, n, err)
			}
			if !strings.HasPrefix(err.Error(), name+": ") {
				t.Fatalf("%s cut to %d bytes: error %q does not name the file", name, n, err)
			}
		}
		if _, err := iostore.Read(bytes.NewReader(b), int64(len(b)), name); err != nil {
			t.Errorf("%s whole: Read = %v", name, err)
		}
	}
}

// TestReadShrunk gives Read a size larger than the bytes there are, as for
// a file cut while it is being read.
func TestReadShrunk(t *testing.T) {
	b := readReal(t)
	for _, n := range []int{0, 10, 143, 144, 200, 144 + 112*12 - 1} {
		_, err := iostore.Read(bytes.NewReader(b[:n]), int64(len(b)), "x.utoc")
		if !errors.Is(err, iostore.ErrTruncated) {
			t.Errorf("Read(%d of %d bytes) = %v; want ErrTruncated", n, len(b), err)
		}
	}
}

// recorder is an io.ReaderAt that remembers the furthest byte read.
type recorder struct {
	mu  sync.Mutex
	r   *bytes.Reader
	max int64
}

func (r *recorder) ReadAt(p []byte, off int64) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n, err := r.r.ReadAt(p, off)
	r.max = max(r.max, off+int64(n))
	return n, err
}

// TestReadBounded checks that only the header and the chunk ids are read.
func TestReadBounded(t *testing.T) {
	b := readReal(t)
	rec := &recorder{r: bytes.NewReader(b)}
	toc, err := iostore.Read(rec, int64(len(b)), "x.utoc")
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(iostore.HeaderSize + len(toc.Chunks)*iostore.ChunkIDSize); rec.max != want {
		t.Errorf("read up to byte %d; want exactly the header and ids, %d", rec.max, want)
	}
}

func TestReadFileErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := iostore.ReadFile(filepath.Join(dir, "nope.utoc")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ReadFile(missing) = %v; want ErrNotExist", err)
	}
	if _, err := iostore.ReadFile(dir); err == nil {
		t.Error("ReadFile(directory) succeeded")
	}
	p := filepath.Join(dir, "Bad.utoc")
	if err := os.WriteFile(p, []byte("not a toc"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := iostore.ReadFile(p)
	var te *iostore.TOCError
	if !errors.As(err, &te) || te.Path != p || !errors.Is(err, iostore.ErrTruncated) {
		t.Errorf("ReadFile(short) = %v; want a *TOCError for %s, ErrTruncated", err, p)
	}
}

func TestFlagsString(t *testing.T) {
	for _, tc := range []struct {
		f    iostore.Flags
		want string
	}{
		{0, "None"},
		{iostore.FlagCompressed, "Compressed"},
		{iostore.FlagEncrypted | iostore.FlagSigned, "Encrypted|Signed"},
		{iostore.FlagIndexed | iostore.FlagOnDemand, "Indexed|OnDemand"},
		{0xE0, "0xe0"},
	} {
		if got := tc.f.String(); got != tc.want {
			t.Errorf("Flags(%#x).String() = %q; want %q", uint8(tc.f), got, tc.want)
		}
	}
	if !(iostore.FlagEncrypted | iostore.FlagIndexed).Has(iostore.FlagEncrypted) || iostore.FlagIndexed.Has(iostore.FlagEncrypted) {
		t.Error("Flags.Has is wrong")
	}
}
