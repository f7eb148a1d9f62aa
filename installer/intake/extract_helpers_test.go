package intake

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
)

// entry is one member of a test archive.
type entry struct {
	name string
	body []byte
	typ  byte        // tar type flag; 0 means a regular file
	mode fs.FileMode // extra mode bits for zip (fs.ModeSymlink, …)
	link string      // link target for symlinks and hard links
	size int64       // declared size in tar when not len(body) (a lying header)
}

func file(name, body string) entry { return entry{name: name, body: []byte(body)} }
func dir(name string) entry        { return entry{name: name, typ: tar.TypeDir} }

// goodPack is a valid pack: manifest, a .utoc/.ucas pair, a .pak with its
// .sig, a nested content folder and root docs.
func goodPack(prefix string) []entry {
	return []entry{
		dir(prefix + "content/"),
		file(prefix+"forgepack.json", `{"schema":1,"id":"foundry-wide"}`),
		file(prefix+"content/foundry.utoc", "utoc-bytes"),
		file(prefix+"content/foundry.ucas", strings.Repeat("ucas", 5000)),
		file(prefix+"content/extra.pak", "pak"),
		file(prefix+"content/extra.sig", "sig"),
		file(prefix+"content/maps/more.pak", "more"),
		file(prefix+"README.md", "# Foundry Wide\n"),
		file(prefix+"preview.png", "\x89PNG"),
	}
}

// goodFiles is what Extract lists for goodPack.
func goodFiles() []File {
	return []File{
		{"README.md", 15},
		{"content/extra.pak", 3},
		{"content/extra.sig", 3},
		{"content/foundry.ucas", 20000},
		{"content/foundry.utoc", 10},
		{"content/maps/more.pak", 4},
		{"forgepack.json", 32},
		{"preview.png", 4},
	}
}

// with returns goodPack plus extra entries.
func with(extra ...entry) []entry { return append(goodPack(""), extra...) }

// without returns goodPack minus the named entries.
func without(names ...string) []entry {
	var es []entry
	for _, e := range goodPack("") {
		if !slices.Contains(names, e.name) {
			es = append(es, e)
		}
	}
	return es
}

// zipBytes writes entries as a deflate zip with Go's writer.
func zipBytes(t testing.TB, es []entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range es {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate}
		body := e.body
		switch e.typ {
		case tar.TypeDir:
			h.Method = zip.Store
			h.SetMode(fs.ModeDir | 0o755)
		case tar.TypeSymlink:
			h.SetMode(fs.ModeSymlink | 0o777)
			body = []byte(e.link)
		default:
			h.SetMode(e.mode | 0o644)
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(e.name, "/") {
			continue // a zip entry named like a folder holds no data
		}
		if _, err := w.Write(body); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// tarBytes writes entries as a tar with Go's writer.
func tarBytes(t testing.TB, es []entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range es {
		h := &tar.Header{Name: e.name, Typeflag: e.typ, Mode: 0o644, Linkname: e.link, Format: tar.FormatPAX}
		if e.typ == 0 {
			h.Typeflag = tar.TypeReg
			h.Size = int64(len(e.body))
		}
		if e.typ == tar.TypeDir {
			h.Mode = 0o755
		}
		if e.size != 0 {
			h.Size = e.size
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if e.size != 0 && e.size < int64(len(e.body)) {
			// A lying header: the data runs past the declared size.
			if _, err := tw.Write(e.body[:e.size]); err != nil {
				t.Fatal(err)
			}
			if err := tw.Flush(); err != nil {
				t.Fatal(err)
			}
			buf.Write(e.body[e.size:])
			continue
		}
		if len(e.body) > 0 {
			if _, err := tw.Write(e.body); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func gzipBytes(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func xzBytes(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := xz.NewWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(b)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func zstdBytes(t testing.TB, b []byte) []byte {
	t.Helper()
	w, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	return w.EncodeAll(b, nil)
}

// deflateRaw compresses b with raw deflate, as zip stores it.
func deflateRaw(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, _ := flate.NewWriter(&buf, flate.BestCompression)
	w.Write(b)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// writeArchive writes b to a new file in its own temp folder.
func writeArchive(t testing.TB, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// isolated is a folder holding the staging parent and a sentinel folder
// next to it, so a test can prove that an extraction wrote nothing outside
// its staging folder.
type isolated struct {
	parent, staging, sentinel string
	before                    []string
}

func newIsolated(t testing.TB) *isolated {
	t.Helper()
	parent := t.TempDir()
	iso := &isolated{
		parent:   parent,
		staging:  filepath.Join(parent, "staging"),
		sentinel: filepath.Join(parent, "sentinel"),
	}
	for _, d := range []string{iso.staging, iso.sentinel} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(iso.sentinel, "keep.txt"), []byte("sentinel"), 0o600); err != nil {
		t.Fatal(err)
	}
	iso.before = tree(t, parent, iso.staging)
	return iso
}

// tree lists every path below root, except below skip.
func tree(t testing.TB, root, skip string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == skip {
			return filepath.SkipDir
		}
		info, _ := d.Info()
		out = append(out, p+"|"+info.Mode().String())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// verify checks that nothing outside staging changed and, when clean is
// set, that staging holds nothing.
func (iso *isolated) verify(t testing.TB, clean bool) {
	t.Helper()
	if got := tree(t, iso.parent, iso.staging); !slices.Equal(got, iso.before) {
		t.Errorf("files outside staging changed:\n got %q\nwant %q", got, iso.before)
	}
	if clean {
		left, err := os.ReadDir(iso.staging)
		if err != nil {
			t.Fatal(err)
		}
		if len(left) != 0 {
			t.Errorf("staging not cleaned up: %v", left)
		}
	}
}

// want is a problem a rejection must list: its rule, and its entry unless
// anyEntry is set.
type want struct {
	entry, rule string
	anyEntry    bool
}

// mustReject extracts the archive and checks that it is rejected with at
// least the wanted problems, and that nothing escaped or stayed behind.
func mustReject(t *testing.T, archive string, lim Limits, wants ...want) *RejectError {
	t.Helper()
	iso := newIsolated(t)
	st, err := testExtract(t.Context(), archive, iso.staging, lim, nil)
	if err == nil {
		st.Remove()
		t.Fatalf("Extract(%s) = success; want rejection", filepath.Base(archive))
	}
	var re *RejectError
	if !errors.As(err, &re) || !errors.Is(err, errRejected) {
		t.Fatalf("Extract(%s) = %v; want a *RejectError", filepath.Base(archive), err)
	}
	for _, p := range re.Problems {
		t.Logf("problem: %s", p)
	}
	for _, w := range wants {
		if !slices.ContainsFunc(re.Problems, func(p Problem) bool {
			return p.Rule == w.rule && (w.anyEntry || p.Entry == w.entry)
		}) {
			t.Errorf("Extract(%s) problems = %v; want %q: %s", filepath.Base(archive), re.Problems, w.entry, w.rule)
		}
	}
	dup := map[Problem]bool{}
	for _, p := range re.Problems {
		if dup[p] {
			t.Errorf("problem listed twice: %s", p)
		}
		dup[p] = true
		if p.Rule == "" {
			t.Errorf("problem without a rule: %#v", p)
		}
	}
	iso.verify(t, true)
	return re
}

// mustExtract extracts a good archive and checks its files and bytes.
func mustExtract(t *testing.T, archive string, wantFiles []File) *Staged {
	t.Helper()
	iso := newIsolated(t)
	st, err := testExtract(t.Context(), archive, iso.staging, DefaultLimits(), nil)
	if err != nil {
		t.Fatalf("Extract(%s) = %v; want success", filepath.Base(archive), err)
	}
	t.Cleanup(func() { st.Remove() })
	if !slices.Equal(st.Files, wantFiles) {
		t.Errorf("Extract(%s).Files = %v; want %v", filepath.Base(archive), st.Files, wantFiles)
	}
	for _, f := range st.Files {
		info, err := os.Stat(filepath.Join(st.Root, filepath.FromSlash(f.Path)))
		if err != nil || info.Size() != f.Size {
			t.Errorf("staged %s: %v, size %v; want size %d", f.Path, err, info, f.Size)
		}
	}
	info, err := os.Stat(st.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if perm := info.Mode().Perm(); perm != 0o700 && filepath.Separator == '/' {
		t.Errorf("staging mode = %v; want 0700", perm)
	}
	iso.verify(t, false)
	return st
}

// hasAny reports whether ps holds a problem matching one of ws.
func hasAny(ps []Problem, ws []want) bool {
	for _, p := range ps {
		for _, w := range ws {
			if p.Rule == w.rule && (w.anyEntry || p.Entry == w.entry) {
				return true
			}
		}
	}
	return false
}
