package verdict

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/installer/intake"
	"github.com/mjolnir-forge/forgesync/inventory"
)

// zipDir packs a folder with the packer's writer.
func zipDir(t *testing.T, dir, dst string) {
	t.Helper()
	l, err := intake.ListPack(dir, intake.DefaultLimits(), nil)
	if err != nil {
		t.Fatal(err)
	}
	// ListPack gives no files when problems exist; list them by hand then.
	files := l.Files
	if len(files) == 0 {
		err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return err
			}
			rel, err := filepath.Rel(dir, p)
			if err != nil {
				return err
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			files = append(files, intake.File{Path: filepath.ToSlash(rel), Size: info.Size()})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	if err := intake.WritePackZip(&buf, os.DirFS(dir), files); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeFiles writes files (slash path → content) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestArchiveValidKeepsStaging(t *testing.T) {
	archive := filepath.Join(t.TempDir(), "gw.zip")
	zipDir(t, "../../cmd/forgesync/examples/glass-works", archive)
	staging := t.TempDir()
	rep, staged, err := Archive(t.Context(), testExtractor, archive, staging, intake.DefaultLimits(), nil)
	if err != nil || !rep.Valid || staged == nil {
		t.Fatalf("Archive = %+v, %v, %v; want valid with a staged pack", rep, staged, err)
	}
	if rep.Manifest.ID != "glass-works" || len(rep.Manifest.RequiredPackages()) != 2 {
		t.Fatalf("manifest = %+v", rep.Manifest)
	}
	if _, err := os.Stat(filepath.Join(staged.Root, "content", "Surfaces.utoc")); err != nil {
		t.Fatalf("staged content missing: %v", err)
	}
	staged.Remove()
	if left := readDir(t, staging); len(left) != 0 {
		t.Fatalf("staging left %v", left)
	}
}

func TestArchiveMissingPackageRemovesStaging(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile("../../cmd/forgesync/examples/glass-works/forgepack.json")
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{"forgepack.json": string(data)})
	archive := filepath.Join(t.TempDir(), "gw.zip")
	zipDir(t, dir, archive)
	staging := t.TempDir()
	rep, staged, err := Archive(t.Context(), testExtractor, archive, staging, intake.DefaultLimits(), nil)
	if err != nil || rep.Valid || staged != nil {
		t.Fatalf("Archive = %+v, %v, %v; want invalid, nothing staged", rep, staged, err)
	}
	if len(rep.Problems) != 2 || rep.Problems[0].Rule != RuleMissingPackage || !strings.Contains(rep.Problems[0].Message, "looked for package id 0x") {
		t.Fatalf("problems = %+v; want two missing packages with their ids", rep.Problems)
	}
	if left := readDir(t, staging); len(left) != 0 {
		t.Fatalf("staging left %v after a rejection", left)
	}
}

func TestArchiveUnreadable(t *testing.T) {
	_, _, err := Archive(t.Context(), testExtractor, filepath.Join(t.TempDir(), "none.zip"), t.TempDir(), intake.DefaultLimits(), nil)
	if err == nil {
		t.Fatal("Archive(missing file) = nil error; want the read failure")
	}
}

func readDir(t *testing.T, dir string) []os.DirEntry {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return entries
}

// badManifest is a manifest with one fault: its id.
const badManifest = `{"schema":1,"id":"Bad Pack","version":"1.0.0","name":"B","authors":["a"],"pieces":[{"id":"deck","kind":"block","tag":"mjolnir\\forge\\bad-pack\\deck","class":"/Game/MJOLNIR/Forge/bad-pack/B/BP_D.BP_D_C","dimensions_m":[2,2,0.5]}]}`

func TestDir(t *testing.T) {
	rep, err := checkDir("../../cmd/forgesync/examples/glass-works", intake.DefaultLimits())
	if err != nil || !rep.Valid || rep.Manifest == nil || rep.Manifest.ID != "glass-works" || len(rep.Files) == 0 || len(rep.Problems) != 0 {
		t.Fatalf("Dir(glass-works) = %+v, %v; want valid with its files", rep, err)
	}

	// A pack under one top folder, with a file that is not allowed and a
	// manifest fault: both reported, named from the folder given.
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"top/forgepack.json": badManifest, "top/content/x.dll": "MZ"})
	rep, err = checkDir(dir, intake.DefaultLimits())
	if err != nil || rep.Valid || rep.Files != nil || rep.Root != filepath.Join(dir, "top") {
		t.Fatalf("Dir(invalid) = %+v, %v; want invalid, no files, root top/", rep, err)
	}
	var got []string
	for _, p := range rep.Problems {
		got = append(got, p.Rule+" "+p.File+" "+p.Path)
	}
	want := []string{intake.RuleNotAllowed + " top/content/x.dll top/content/x.dll", inventory.RuleFormat + " top/forgepack.json id"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("Dir(invalid) problems = %q; want %q", got, want)
	}

	if _, err := checkDir(filepath.Join(dir, "missing"), intake.DefaultLimits()); err == nil {
		t.Errorf("Dir(missing folder) = nil error; want the read failure")
	}
}

// zipEntries writes a deflated zip of the entries (name → content).
func zipEntries(t *testing.T, dst string, entries map[string][]byte) {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, data := range entries {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(data); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestArchiveBombNotReadAgain checks both branches of a rejection for the
// files: an archive rejected for an entry that is not allowed has its
// manifest's faults reported too, while one that may be a bomb is not
// opened again to read its manifest.
func TestArchiveBombNotReadAgain(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name  string
		entry string
		data  []byte
		want  []string
		pack  string // the id read from the manifest
	}{
		{"not allowed", "content/x.dll", []byte("MZ"), []string{intake.RuleNotAllowed, inventory.RuleFormat}, "Bad Pack"},
		{"ratio bomb", "content/bomb.pak", make([]byte, 4<<20), []string{intake.RuleRatio}, ""},
	} {
		archive := filepath.Join(dir, tt.name+".zip")
		zipEntries(t, archive, map[string][]byte{"forgepack.json": []byte(badManifest), tt.entry: tt.data})
		staging := t.TempDir()
		rep, staged, err := Archive(t.Context(), testExtractor, archive, staging, intake.DefaultLimits(), nil)
		if err != nil || rep.Valid || staged != nil {
			t.Fatalf("%s: Archive = %+v, %v, %v; want invalid, nothing staged", tt.name, rep, staged, err)
		}
		var rules []string
		for _, p := range rep.Problems {
			rules = append(rules, p.Rule)
		}
		if strings.Join(rules, " ") != strings.Join(tt.want, " ") {
			t.Errorf("%s: rules = %q; want %q (%+v)", tt.name, rules, tt.want, rep.Problems)
		}
		if rep.Pack.ID != tt.pack {
			t.Errorf("%s: pack = %+v; want id %q", tt.name, rep.Pack, tt.pack)
		}
		if left := readDir(t, staging); len(left) != 0 {
			t.Errorf("%s: staging left %v", tt.name, left)
		}
	}
}
