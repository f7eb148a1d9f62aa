package verdict

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/installer"
)

// zipDir packs a folder with the packer's writer.
func zipDir(t *testing.T, dir, dst string) {
	t.Helper()
	l, err := installer.ListPack(dir, installer.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	// ListPack gives no files when problems exist; list them by hand then.
	files := l.Files
	if len(files) == 0 {
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				rel, _ := filepath.Rel(dir, p)
				info, _ := d.Info()
				files = append(files, installer.File{Path: filepath.ToSlash(rel), Size: info.Size()})
			}
			return nil
		})
	}
	var buf bytes.Buffer
	if err := installer.WritePackZip(&buf, os.DirFS(dir), files); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(dst, buf.Bytes(), 0o644)
}

func TestArchiveValidKeepsStaging(t *testing.T) {
	archive := filepath.Join(t.TempDir(), "gw.zip")
	zipDir(t, "../examples/glass-works", archive)
	staging := t.TempDir()
	rep, staged, err := Archive(t.Context(), archive, staging, installer.DefaultLimits(), nil)
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
	if left, _ := os.ReadDir(staging); len(left) != 0 {
		t.Fatalf("staging left %v", left)
	}
}

func TestArchiveMissingPackageRemovesStaging(t *testing.T) {
	dir := t.TempDir()
	data, _ := os.ReadFile("../examples/glass-works/forgepack.json")
	os.WriteFile(filepath.Join(dir, "forgepack.json"), data, 0o644)
	archive := filepath.Join(t.TempDir(), "gw.zip")
	zipDir(t, dir, archive)
	staging := t.TempDir()
	rep, staged, err := Archive(t.Context(), archive, staging, installer.DefaultLimits(), nil)
	if err != nil || rep.Valid || staged != nil {
		t.Fatalf("Archive = %+v, %v, %v; want invalid, nothing staged", rep, staged, err)
	}
	if len(rep.Problems) != 2 || rep.Problems[0].Rule != RuleMissingPackage || !strings.Contains(rep.Problems[0].Value, "0x") {
		t.Fatalf("problems = %+v; want two missing packages with their ids", rep.Problems)
	}
	if left, _ := os.ReadDir(staging); len(left) != 0 {
		t.Fatalf("staging left %v after a rejection", left)
	}
}

func TestArchiveUnreadable(t *testing.T) {
	_, _, err := Archive(t.Context(), filepath.Join(t.TempDir(), "none.zip"), t.TempDir(), installer.DefaultLimits(), nil)
	if err == nil {
		t.Fatal("Archive(missing file) = nil error; want the read failure")
	}
}
