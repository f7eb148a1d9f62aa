package pipeline

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestRejectedFilesOfThePlayerKept: nothing in drop/rejected/ that is not
// a note of ours is deleted or written over. A stray readme.txt, rejected
// beside its note readme.txt.txt, was deleted at the next pass as a note
// without its archive (readme); a pack.zip rejected after a stray
// pack.zip.txt had its note written over that file; and a file of the
// player's named like a note was deleted.
func TestRejectedFilesOfThePlayerKept(t *testing.T) {
	skipUnderRace(t)
	e := newEnv(t)
	p := e.open(t)
	dir := filepath.Join(e.drop, rejectedDir)
	stray := map[string]string{"readme.txt": "my notes\n", "pack.zip.txt": "a list of packs\n"}
	for n, data := range stray {
		if err := os.WriteFile(filepath.Join(e.drop, n), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mustSync(t, p, map[string]Result{"readme.txt": ResultRejected, "pack.zip.txt": ResultRejected})
	e.dropPack(t, "pack.zip", spec{id: "pack", version: "1.0.0", doors: 1, bad: true})
	mustSync(t, p, map[string]Result{"pack.zip": ResultRejected})
	// A file the player put there, named as a note of an archive that is
	// not there.
	if err := os.WriteFile(filepath.Join(dir, "mine.zip.txt"), []byte("what I tried\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustSync(t, p, map[string]Result{})
	mustSync(t, p, map[string]Result{})
	for n, data := range stray {
		if got, err := os.ReadFile(filepath.Join(dir, n)); err != nil || string(got) != data {
			t.Errorf("rejected %s = %q, %v; want the player's %q kept", n, got, err, data)
		}
		if note, err := os.ReadFile(filepath.Join(dir, n+".txt")); err != nil || !strings.HasPrefix(string(note), noteStart+n) {
			t.Errorf("note of %s = %q, %v; want it beside it", n, note, err)
		}
	}
	if got, err := os.ReadFile(filepath.Join(dir, "mine.zip.txt")); err != nil || string(got) != "what I tried\n" {
		t.Errorf("the player's mine.zip.txt = %q, %v; want it kept", got, err)
	}
	recs, err := Rejections(e.drop, e.state)
	var names []string
	for _, r := range recs {
		names = append(names, r.Archive)
	}
	slices.Sort(names)
	if want := []string{"pack-2.zip", "pack.zip.txt", "readme.txt"}; err != nil || !slices.Equal(names, want) {
		t.Errorf("rejections = %v, %v; want %v", names, err, want)
	}
}

// TestRejectedCountAsListed: the number status shows is the number of
// archives Rejections lists: those with their note beside them.
func TestRejectedCountAsListed(t *testing.T) {
	e := newEnv(t)
	dir := filepath.Join(e.drop, rejectedDir)
	if err := os.MkdirAll(filepath.Join(dir, "folder"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"a.zip", "a.zip.txt", "no-note.zip", "gone.zip.txt", "readme.txt", "readme.txt.txt", "folder.txt"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(noteStart+n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	recs, err := Rejections(e.drop, e.state)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := countRejected(e.drop); err != nil || n != len(recs) || n != 3 {
		t.Errorf("countRejected = %d, %v; want %d, as Rejections lists %v", n, err, len(recs), recs)
	}
	if n, err := countRejected(filepath.Join(e.root, "none")); err != nil || n != 0 {
		t.Errorf("countRejected without drop/rejected/ = %d, %v; want 0", n, err)
	}
}
