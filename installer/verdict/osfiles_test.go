package verdict

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/installer/intake"
)

// examplePack returns the files of examples/ID under prefix.
func examplePack(t *testing.T, id, prefix string, into map[string][]byte) {
	t.Helper()
	for _, f := range []string{"forgepack.json", "README.md"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "cmd", "forgesync", "examples", id, f))
		if err != nil {
			t.Fatal(err)
		}
		into[prefix+f] = data
	}
}

// TestArchiveNotesMacWindowsFiles: a pack zipped on a Mac, with __MACOSX/
// and .DS_Store, and Windows's Thumbs.db, is valid, and its verdict notes
// the files it ignored.
func TestArchiveNotesMacWindowsFiles(t *testing.T) {
	entries := map[string][]byte{
		"__MACOSX/foundry-wide/._forgepack.json": []byte("\x00\x05\x16\x07"),
		"__MACOSX/foundry-wide/._README.md":      []byte("\x00\x05\x16\x07"),
		"foundry-wide/.DS_Store":                 []byte("Bud1"),
		"foundry-wide/Thumbs.db":                 []byte("x"),
	}
	examplePack(t, "foundry-wide", "foundry-wide/", entries)
	arch := filepath.Join(t.TempDir(), "foundry-wide.zip")
	zipEntries(t, arch, entries)
	r, staged, err := Archive(t.Context(), testExtractor, arch, t.TempDir(), intake.DefaultLimits(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if staged != nil {
		defer staged.Remove()
	}
	var b strings.Builder
	WriteText(&b, r)
	want := arch + ": note: ignored 4 files a Mac or Windows adds: __MACOSX/…, foundry-wide/.DS_Store, foundry-wide/Thumbs.db\n" +
		r.Pack.ID + " " + r.Pack.Version + ": valid ("
	if !r.Valid || !strings.HasPrefix(b.String(), want) {
		t.Errorf("scan =\n%s\nwant it to start with\n%s", b.String(), want)
	}
}

// TestArchiveTwoTopFolders: two packs zipped side by side are reported as
// two top-level folders, not as a missing forgepack.json.
func TestArchiveTwoTopFolders(t *testing.T) {
	entries := map[string][]byte{}
	examplePack(t, "foundry-wide", "foundry-wide/", entries)
	examplePack(t, "lockout-gates", "lockout-gates/", entries)
	arch := filepath.Join(t.TempDir(), "both.zip")
	zipEntries(t, arch, entries)
	r, _, err := Archive(t.Context(), testExtractor, arch, t.TempDir(), intake.DefaultLimits(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	WriteText(&b, r)
	want := arch + ": the archive holds two top-level folders, foundry-wide/ and lockout-gates/: a pack is at the root or under one single folder [more-than-one-top-level-folder]\n"
	if r.Valid || !strings.HasPrefix(b.String(), want) || strings.Contains(b.String(), "forgepack.json is missing") {
		t.Errorf("scan =\n%s\nwant it to start with\n%s", b.String(), want)
	}
}
