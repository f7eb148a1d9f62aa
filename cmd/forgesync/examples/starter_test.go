package examples

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/internal/toolcheck"
)

// TestIDFromName: a folder's name becomes a pack id the way a person
// would write it, or something IsPackID refuses.
func TestIDFromName(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"neon-halls", "neon-halls"},
		{"Neon Halls", "neon-halls"},
		{"  Café_Lifts (v2)!", "cafe-lifts-v2"},
		{"forge--pack", "forge-pack"},
		{"MJOLNIR.Forge.Pack", "mjolnir-forge-pack"},
		{"日本", ""},
		{"Ö!", "o"},
		{"a-very-long-folder-name-that-goes-on-and-on-past-48-bytes", "a-very-long-folder-name-that-goes-on-and-on-past"},
		{"a-very-long-folder-name-that-goes-on-and-on-pas-t", "a-very-long-folder-name-that-goes-on-and-on-pas"},
	} {
		if got := idFromName(c.name); got != c.want {
			t.Errorf("idFromName(%q) = %q; want %q", c.name, got, c.want)
		}
	}
}

// TestInitUndoesOnFailure: when a write fails halfway (here the workflow's
// folder is a file), Init removes what it made and leaves the dot-files
// it found as they were.
func TestInitUndoesOnFailure(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "neon-halls")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".github"), []byte("not a folder"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Init(dir, "", "https://example.org/s.json", "latest"); err == nil {
		t.Fatal("Init with .github a file: no error")
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 1 || entries[0].Name() != ".github" {
		t.Fatalf("after a failed Init the folder holds %v (%v); want only .github", entries, err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, ".github")); string(data) != "not a folder" {
		t.Fatalf(".github = %q; want it untouched", data)
	}
}

// TestInitKeepsWhatIsThere: a folder holding the files an OS adds and a
// dot-file spelled in another case, on a disk that ignores case as
// Windows' does, takes the pack; Init keeps those files as they were and
// says which it kept.
func TestInitKeepsWhatIsThere(t *testing.T) {
	dir := filepath.Join(toolcheck.CaseInsensitiveDir(t), "Neon Halls")
	files := map[string]string{"desktop.ini": "[.ShellClassInfo]\n", "Thumbs.db": "x", ".GitIgnore": "build/\n"}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st, err := Init(dir, "", "https://example.org/s.json", "1.4.0")
	if err != nil {
		t.Fatal(err)
	}
	if st.ID != "neon-halls" || len(st.Kept) != 1 || st.Kept[0] != ".gitignore" || len(st.Written) != 5 {
		t.Fatalf("Init = %+v; want neon-halls, .gitignore kept, 4 files and content/ written", st)
	}
	for name, data := range files {
		if got, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(got) != data {
			t.Errorf("%s = %q, %v; want it as it was", name, got, err)
		}
	}
	wf, err := os.ReadFile(filepath.Join(dir, ".github", "workflows", "forgesync.yml"))
	if err != nil || !strings.Contains(string(wf), `FORGESYNC_VERSION: "1.4.0"`) {
		t.Fatalf("workflow: %v\n%s\nwant the release pinned", err, wf)
	}
}
