package verdict

import (
	"archive/zip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/installer/intake"
)

// gitKeptPack is the example pack glass-works as it sits in an author's
// git checkout, with editor and OS droppings and a .forgeignore.
func gitKeptPack(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "glass-works")
	if err := os.CopyFS(dir, os.DirFS("../../cmd/forgesync/examples/glass-works")); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{
		".git/HEAD":                  "ref: refs/heads/main\n",
		".git/objects/ab/cdef":       "x",
		".github/workflows/scan.yml": "on: push\n",
		".gitignore":                 "*.zip\n",
		".gitattributes":             "*.ucas binary\n",
		".vscode/settings.json":      "{}",
		".idea/workspace.xml":        "<x/>",
		".DS_Store":                  "x",
		"content/.DS_Store":          "x",
		"content/Thumbs.db":          "x",
		"desktop.ini":                "x",
		"__MACOSX/content/._x":       "x",
		".forgeignore":               "# work files\ndrafts/\n*.psd\n",
		"drafts/notes.txt":           "todo",
		"content/source.psd":         "layers",
	})
	return dir
}

func TestDirIgnoresMetadata(t *testing.T) {
	dir := gitKeptPack(t)
	rep, err := checkDir(dir, intake.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Valid {
		t.Fatalf("scan of a git-kept pack: invalid: %+v", rep.Problems)
	}
	var got []string
	for _, f := range rep.Files {
		got = append(got, f.Path)
	}
	want := []string{"README.md", "content/Surfaces.ucas", "content/Surfaces.utoc", "forgepack.json"}
	if !slices.Equal(got, want) {
		t.Fatalf("files = %q, want %q", got, want)
	}
}

// TestForgeignoreReincludes: a "!" line re-includes a file, which the
// pack rules then judge like any other.
func TestForgeignoreReincludes(t *testing.T) {
	dir := gitKeptPack(t)
	writeFiles(t, dir, map[string]string{".forgeignore": "drafts/\n*.psd\n!content/source.psd\n"})
	rep, err := checkDir(dir, intake.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Valid || len(rep.Problems) != 1 || rep.Problems[0].File != "content/source.psd" {
		t.Fatalf("problems = %+v, want one, for content/source.psd", rep.Problems)
	}
}

// TestPackLeavesOutIgnoredAndItself: pack writes no ignored file, and an
// archive written inside the folder (again) is not packed into itself.
func TestPackLeavesOutIgnoredAndItself(t *testing.T) {
	dir := gitKeptPack(t)
	out := filepath.Join(dir, "glass-works-1.0.0.zip")
	for range 2 {
		rep, err := Pack(dir, out, intake.DefaultLimits())
		if err != nil || !rep.Valid {
			t.Fatalf("Pack = %+v, %v", rep, err)
		}
	}
	zr, err := zip.OpenReader(out)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
	}
	if got := strings.Join(names, " "); got != "README.md content/Surfaces.ucas content/Surfaces.utoc forgepack.json" {
		t.Fatalf("zip holds %s", got)
	}
}
