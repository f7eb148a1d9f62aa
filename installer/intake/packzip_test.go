package intake

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"encoding/binary"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

// packTree writes files (path → bytes) under a new folder and returns it
// with its listing.
func packTree(t *testing.T, files map[string][]byte) (string, []File) {
	t.Helper()
	dir := t.TempDir()
	var list []File
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		list = append(list, File{Path: name, Size: int64(len(data))})
	}
	return dir, list
}

func packBytes(t *testing.T, fsys fs.FS, files []File) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := WritePackZip(&buf, fsys, files); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// alphabetBytes are n random bytes drawn from the first k byte values:
// Deflate's Huffman coding saves about 1 - log2(k)/8 of them.
func alphabetBytes(seed uint64, n, k int) []byte {
	r := rand.New(rand.NewPCG(seed, 7))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.IntN(k))
	}
	return b
}

func textBytes(n int) []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "row %d: a lift, a door panel, gravity %d.%03d\n", i, i%7, i*37%1000)
	}
	return b.Bytes()[:n]
}

func TestPackZipStoresWhatDeflateWouldNotShrink(t *testing.T) {
	files := map[string][]byte{
		"forgepack.json":       []byte(`{"schema":1,"id":"x","version":"1.0.0"}`),
		"README.md":            textBytes(20 << 10),
		"content/Big.pak":      randomBytes(1, 4<<20),
		"content/TEXT.PAK":     textBytes(64 << 10), // a .pak is stored even when it would shrink
		"content/Some.ucas":    textBytes(32 << 10),
		"content/random.bin":   randomBytes(2, 300<<10),        // whole-file trial
		"content/large.bin":    randomBytes(3, 3<<20),          // sampled trial
		"content/large.txt":    textBytes(3 << 20),             // sampled trial
		"content/k240.bin":     alphabetBytes(4, 256<<10, 240), // saves about 1%
		"content/k128.bin":     alphabetBytes(5, 256<<10, 128), // saves about 12%
		"content/empty.sig":    {},
		"content/tiny.sig":     []byte("abc"),
		"content/ünïcode~.sig": textBytes(4 << 10),
	}
	want := map[string]uint16{
		"forgepack.json": zip.Store, // 39 bytes: Deflate's framing costs more than it saves
		"README.md":      zip.Deflate, "content/Big.pak": zip.Store, "content/TEXT.PAK": zip.Store,
		"content/Some.ucas": zip.Store, "content/random.bin": zip.Store, "content/large.bin": zip.Store,
		"content/large.txt": zip.Deflate, "content/k240.bin": zip.Store, "content/k128.bin": zip.Deflate,
		"content/empty.sig": zip.Store, "content/tiny.sig": zip.Store, "content/ünïcode~.sig": zip.Deflate,
	}
	dir, list := packTree(t, files)
	data := packBytes(t, os.DirFS(dir), list)
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if len(zr.File) != len(files) {
		t.Fatalf("%d entries, want %d", len(zr.File), len(files))
	}
	prev := ""
	for _, f := range zr.File {
		if f.Name <= prev {
			t.Errorf("entry %s after %s: not sorted by path", f.Name, prev)
		}
		prev = f.Name
		if f.Method != want[f.Name] {
			t.Errorf("%s: method %d, want %d", f.Name, f.Method, want[f.Name])
		}
		if !f.Modified.Equal(packTime) || f.ExternalAttrs != 0 || f.CreatorVersion != 20 {
			t.Errorf("%s: modified %v, attributes %#x, made by %#x; want %v, none, 2.0 (MS-DOS)", f.Name, f.Modified, f.ExternalAttrs, f.CreatorVersion, packTime)
		}
		if f.Method == zip.Store && f.Flags&0x8 != 0 {
			t.Errorf("%s: stored with a data descriptor; its local header should carry the sizes", f.Name)
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(rc) // checks the CRC-32 too
		rc.Close()
		if err != nil || !bytes.Equal(got, files[f.Name]) {
			t.Errorf("%s: read back %d bytes (%v), want its %d bytes", f.Name, len(got), err, len(files[f.Name]))
		}
	}
	// packMethod says the same without writing, and sampling reads the
	// same from a file system whose files cannot ReadAt.
	seq := fstest.MapFS{}
	for name, b := range files {
		seq[name] = &fstest.MapFile{Data: b}
	}
	for _, f := range list {
		var fw *flate.Writer
		m, err := packMethod(noReaderAt{seq}, f, &fw, DefaultLimits().MaxRatio)
		if err != nil || m != want[f.Path] {
			t.Errorf("packMethod(%s) = %d, %v; want %d", f.Path, m, err, want[f.Path])
		}
	}
	// The stored entries read the same through a reader that streams the
	// zip from its start, as Info-ZIP's `unzip -t` checks it.
	if err := streamCheck(data, files); err != nil {
		t.Error(err)
	}
}

// noReaderAt hides a file system's ReadAt, so that the sampling trial
// reads its windows in order.
type noReaderAt struct{ fsys fs.FS }

func (n noReaderAt) Open(name string) (fs.File, error) {
	f, err := n.fsys.Open(name)
	if err != nil {
		return nil, err
	}
	return struct{ fs.File }{f}, nil
}

// streamCheck walks the zip's local headers from the start without the
// central directory: every stored entry's header must carry its size and
// CRC-32, and its data must follow it.
func streamCheck(data []byte, files map[string][]byte) error {
	off := 0
	for string(data[off:off+4]) == "PK\x03\x04" {
		h := data[off:]
		flags := binary.LittleEndian.Uint16(h[6:])
		method := binary.LittleEndian.Uint16(h[8:])
		csize := int(binary.LittleEndian.Uint32(h[18:]))
		nameLen := int(binary.LittleEndian.Uint16(h[26:]))
		extraLen := int(binary.LittleEndian.Uint16(h[28:]))
		name := string(h[30 : 30+nameLen])
		start := off + 30 + nameLen + extraLen
		if method != zip.Store {
			// A deflated entry ends where its data descriptor says;
			// leave the walk to the central directory from here.
			return nil
		}
		if flags&0x8 != 0 || !bytes.Equal(data[start:start+csize], files[name]) {
			return fmt.Errorf("stored entry %s at %d: flags %#x, %d bytes in the header: its data does not follow", name, off, flags, csize)
		}
		off = start + csize
	}
	return nil
}

func TestPackZipReproducible(t *testing.T) {
	files := map[string][]byte{
		"forgepack.json": []byte(`{"schema":1}`),
		"README.md":      textBytes(50 << 10),
		"content/A.pak":  randomBytes(6, 1<<20),
		"content/B.utoc": textBytes(2 << 20),
		"content/B.ucas": randomBytes(7, 2<<20),
		"content/C.sig":  randomBytes(8, 2<<20),
	}
	dir1, list := packTree(t, files)
	dir2, list2 := packTree(t, files) // other inodes, other mtimes, listed in another order
	os.Chtimes(filepath.Join(dir2, "README.md"), packTime.AddDate(5, 0, 0), packTime.AddDate(7, 0, 0))
	os.Chmod(filepath.Join(dir2, "content", "A.pak"), 0o600)
	a := packBytes(t, os.DirFS(dir1), list)
	b := packBytes(t, os.DirFS(dir2), list2)
	if !bytes.Equal(a, b) {
		t.Fatalf("the same files packed twice gave different bytes (%d and %d)", len(a), len(b))
	}
}

// localHeaders maps each entry's name to where its local header starts
// and where its data (and data descriptor) ends: the next header, or the
// central directory.
func localHeaders(t *testing.T, data []byte) map[string][2]int {
	t.Helper()
	out := map[string][2]int{}
	off, last := 0, ""
	for string(data[off:off+4]) == "PK\x03\x04" {
		h := data[off:]
		nameLen := int(binary.LittleEndian.Uint16(h[26:]))
		name := string(h[30 : 30+nameLen])
		if last != "" {
			out[last] = [2]int{out[last][0], off}
		}
		out[name] = [2]int{off, -1}
		last = name
		// The next header: after the data, whose size a stored entry's
		// header holds; for a deflated one, read the central directory.
		zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		var next int64 = -1
		for _, f := range zr.File {
			if f.Name == name {
				d, _ := f.DataOffset()
				next = d + int64(f.CompressedSize64)
				if f.Flags&0x8 != 0 {
					next += 16 // signature, CRC-32, two 32-bit sizes
				}
			}
		}
		off = int(next)
	}
	out[last] = [2]int{out[last][0], off}
	return out
}

func TestPackZipChangeKeepsEarlierEntriesInPlace(t *testing.T) {
	files := map[string][]byte{
		"forgepack.json": []byte(`{"schema":1,"version":"1.0.0"}`),
		"README.md":      textBytes(40 << 10),
		"content/A.pak":  randomBytes(9, 1<<20),
		"content/B.utoc": textBytes(300 << 10),
		"content/M.pak":  randomBytes(10, 2<<20),
		"content/Z.sig":  textBytes(10 << 10),
	}
	dir, list := packTree(t, files)
	before := packBytes(t, os.DirFS(dir), list)
	for _, change := range []struct {
		name string
		edit func([]byte) []byte
	}{
		{"content/M.pak", func(b []byte) []byte { // 64 KiB inserted in the middle
			return append(b[:1<<20:1<<20], append(randomBytes(11, 64<<10), b[1<<20:]...)...)
		}},
		{"content/B.utoc", func(b []byte) []byte { return append([]byte("one more row\n"), b...) }},
		{"forgepack.json", func(b []byte) []byte { return bytes.Replace(b, []byte("1.0.0"), []byte("1.0.1"), 1) }},
	} {
		t.Run(strings.ReplaceAll(change.name, "/", "_"), func(t *testing.T) {
			edited := change.edit(bytes.Clone(files[change.name]))
			dir2, list2 := packTree(t, files)
			if err := os.WriteFile(filepath.Join(dir2, filepath.FromSlash(change.name)), edited, 0o644); err != nil {
				t.Fatal(err)
			}
			for i := range list2 {
				if list2[i].Path == change.name {
					list2[i].Size = int64(len(edited))
				}
			}
			after := packBytes(t, os.DirFS(dir2), list2)
			old, cur := localHeaders(t, before), localHeaders(t, after)
			changed := cur[change.name][0]
			if old[change.name][0] != changed {
				t.Fatalf("%s moved from %d to %d although only it changed", change.name, old[change.name][0], changed)
			}
			// Every byte before the changed entry's local header is the
			// same, at the same offset.
			if !bytes.Equal(before[:changed], after[:changed]) {
				t.Errorf("the %d bytes before %s differ", changed, change.name)
			}
			// Every entry after it has the same bytes, moved by the
			// change in size.
			for name, at := range cur {
				if name <= change.name {
					continue
				}
				o := old[name]
				if !bytes.Equal(before[o[0]:o[1]], after[at[0]:at[1]]) {
					t.Errorf("entry %s after %s changed its bytes", name, change.name)
				}
			}
			if len(cur) != len(files) {
				t.Errorf("walked %d entries, want %d", len(cur), len(files))
			}
		})
	}
}

func TestPackZipFileChangedWhilePacking(t *testing.T) {
	for _, name := range []string{"content/A.pak", "content/B.sig", "README.md"} {
		files := map[string][]byte{
			"content/A.pak": randomBytes(12, 100<<10),
			"content/B.sig": randomBytes(13, 2<<20),
			"README.md":     textBytes(10 << 10),
		}
		dir, list := packTree(t, files)
		for i := range list {
			if list[i].Path == name {
				list[i].Size-- // listed one byte shorter than it is
			}
		}
		var buf bytes.Buffer
		err := WritePackZip(&buf, os.DirFS(dir), list)
		if err == nil || !strings.Contains(err.Error(), name+": file changed while packing") {
			t.Errorf("%s grown: err = %v; want it named, changed while packing", name, err)
		}
	}
}

// TestPackZipKeepsTheRatioRule: an entry over RatioFloor that Deflate
// would shrink past the ratio limit (a 4 MB file of one line repeated
// deflates about 1000:1) is stored, so that the scanner admits what the
// packer writes; a smaller limit stores what it would break.
func TestPackZipKeepsTheRatioRule(t *testing.T) {
	big := bytes.Repeat([]byte("- fixed a typo in the lift script\n"), 4_000_000/34)
	dir, list := packTree(t, map[string][]byte{"forgepack.json": []byte("{}"), "CHANGELOG.md": big})
	for _, tt := range []struct {
		maxRatio int64
		want     uint16
	}{{DefaultLimits().MaxRatio, zip.Store}, {2000, zip.Deflate}} {
		var buf bytes.Buffer
		if err := WritePackZipWithin(&buf, os.DirFS(dir), list, tt.maxRatio); err != nil {
			t.Fatal(err)
		}
		zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range zr.File {
			if f.Name == "CHANGELOG.md" && f.Method != tt.want {
				t.Errorf("max ratio %d: CHANGELOG.md method %d (%d from %d bytes); want %d", tt.maxRatio, f.Method, f.UncompressedSize64, f.CompressedSize64, tt.want)
			}
		}
	}
}
