package place

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/mjolnir-forge/forgesync/installer/intake"
	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
	"github.com/mjolnir-forge/forgesync/internal/toolcheck"
)

// freshFiles is a new pack's content, in two folders.
var freshFiles = map[string]string{"a.pak": "a", "b.pak": "b", "sub/c.utoc": "c", "sub/deep/d.ucas": "d"}

// freshPaths are freshFiles placed as pack pk, sorted.
var freshPaths = []string{"MJOLNIRForge/pk/a.pak", "MJOLNIRForge/pk/b.pak", "MJOLNIRForge/pk/sub/c.utoc", "MJOLNIRForge/pk/sub/deep/d.ucas"}

// stageAsIntake stages files as intake does, in a new folder under dir
// ("" for the test's temp folder): private folders (0700), files 0644, a
// forgepack.json beside content/, listed with them.
func stageAsIntake(t *testing.T, dir string, files map[string]string) (string, []intake.File) {
	t.Helper()
	if dir == "" {
		dir = t.TempDir()
	}
	staged, err := os.MkdirTemp(dir, "intake-")
	if err != nil {
		t.Fatal(err)
	}
	listed := []intake.File{{Path: "forgepack.json", Size: 2}}
	mkfile(t, filepath.Join(staged, "forgepack.json"), "{}")
	for name, data := range files {
		mkfile(t, filepath.Join(staged, "content", filepath.FromSlash(name)), data)
		listed = append(listed, intake.File{Path: "content/" + name, Size: int64(len(data))})
	}
	slices.SortFunc(listed, func(a, b intake.File) int { return strings.Compare(a.Path, b.Path) })
	filepath.WalkDir(staged, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			err = os.Chmod(p, 0o700)
		}
		if err != nil {
			t.Fatal(err)
		}
		return nil
	})
	return staged, listed
}

// counted is a Renamer that counts its file renames and folder moves,
// each done as the platform does it; moveFolder, when not nil, stands in
// for the folder move.
type counted struct {
	renames, folderMoves int
	moveFolder           func(o, n string) error
}

func (c *counted) renamer() atomicfile.Renamer {
	return atomicfile.Renamer{
		Rename: func(o, n string) error { c.renames++; return os.Rename(o, n) },
		RenameFolder: func(o, n string) error {
			c.folderMoves++
			if c.moveFolder != nil {
				return c.moveFolder(o, n)
			}
			return atomicfile.Renamer{}.MoveFolder(o, n)
		},
	}
}

// identities returns the file identity of each staged content file.
func identities(t *testing.T, root string) map[string]fs.FileInfo {
	t.Helper()
	out := map[string]fs.FileInfo{}
	for n := range freshFiles {
		fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(n)))
		if err != nil {
			t.Fatal(err)
		}
		out[n] = fi
	}
	return out
}

// checkModes checks that every folder under the pack folder pk is 0755
// and every file 0644.
func checkModes(t *testing.T, paks string) {
	t.Helper()
	filepath.WalkDir(filepath.Join(paks, ContentRoot, "pk"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		fi, _ := d.Info()
		want := fs.FileMode(0o644)
		if d.IsDir() {
			want = 0o755
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s has mode %v; want %v", p, fi.Mode().Perm(), want)
		}
		return nil
	})
}

// TestPlaceFreshMovesFolder: a new pack's content/ folder is moved into
// place with one rename (no file renamed on its own): its files are the
// staged files themselves, the staged folder is gone, the folders 0755
// and the files 0644, one step reported, and Paths the sorted list the
// per-file path gives. Undo moves it back exactly; when staging is gone
// (a set apply removes it once placed) or another program put a file in
// the pack folder, Undo removes exactly the placed files and the emptied
// folders, and keeps that file and the folders on its way.
func TestPlaceFreshMovesFolder(t *testing.T) {
	paks := t.TempDir()
	staged, files := stageAsIntake(t, "", freshFiles)
	content := filepath.Join(staged, "content")
	before := identities(t, content)
	var c counted
	var steps []string
	pl, err := Place(c.renamer(), staged, files, paks, "pk", nil, func(s string) { steps = append(steps, s) })
	if err != nil {
		t.Fatal(err)
	}
	if c.renames != 0 || c.folderMoves != 1 {
		t.Fatalf("a fresh install took %d file renames and %d folder moves; want 0 and 1", c.renames, c.folderMoves)
	}
	if !slices.Equal(pl.Paths, freshPaths) || !slices.Equal(steps, []string{"place:MJOLNIRForge/pk"}) {
		t.Fatalf("Place = %q, steps %q; want %q, one step", pl.Paths, steps, freshPaths)
	}
	if _, err := os.Lstat(content); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("staged content/ after a fresh install: %v; want it moved", err)
	}
	for n, fi := range identities(t, filepath.Join(paks, ContentRoot, "pk")) {
		if !os.SameFile(fi, before[n]) {
			t.Errorf("placed %s is not the staged file", n)
		}
	}
	checkModes(t, paks)
	if err := pl.Undo(); err != nil {
		t.Fatalf("Undo = %v", err)
	}
	for n, fi := range identities(t, content) {
		if !os.SameFile(fi, before[n]) {
			t.Errorf("%s after Undo is not the staged file", n)
		}
	}
	if _, err := os.Lstat(filepath.Join(paks, ContentRoot, "pk")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("pack folder after Undo: %v; want it gone", err)
	}

	// Undo once staging is gone, or once another program put a file in
	// the pack folder (which a move back would take to staging, to be
	// removed with it).
	for _, stagingGone := range []bool{true, false} {
		paks := t.TempDir()
		staged, files := stageAsIntake(t, "", freshFiles)
		pl, err := Place(c.renamer(), staged, files, paks, "pk", nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if stagingGone {
			if err := os.RemoveAll(staged); err != nil {
				t.Fatal(err)
			}
		}
		mkfile(t, filepath.Join(paks, ContentRoot, "pk", "sub", "mine.txt"), "not forgesync's")
		if err := pl.Undo(); err != nil {
			t.Fatalf("Undo (staging gone: %v) = %v", stagingGone, err)
		}
		checkOnlyForeignLeft(t, paks)
	}
}

// checkOnlyForeignLeft checks that paks holds the pack folder's sub/mine.txt
// of another program's alone, with the folders on its way.
func checkOnlyForeignLeft(t *testing.T, paks string) {
	t.Helper()
	var left []string
	filepath.WalkDir(filepath.Join(paks, ContentRoot), func(p string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(paks, p)
		left = append(left, filepath.ToSlash(rel))
		return err
	})
	if want := []string{"MJOLNIRForge", "MJOLNIRForge/pk", "MJOLNIRForge/pk/sub", "MJOLNIRForge/pk/sub/mine.txt"}; !slices.Equal(left, want) {
		t.Fatalf("after Undo paks holds %q; want %q", left, want)
	}
}

// TestPlaceFreshFallsBackPerFile: where one rename of the folder is not
// right, the pack is placed file by file, with the same result: an
// upgrade (something owned), a pack folder already there (a crash's
// leftover), an empty folder or an unlisted file in staging (which would
// be placed with it), and a move that fails (a held staged file on
// Windows, another volume).
func TestPlaceFreshFallsBackPerFile(t *testing.T) {
	held := &os.LinkError{Op: "rename", Err: syscall.EBUSY}
	cases := []struct {
		name    string
		owned   []string
		prepare func(t *testing.T, staged, paks string)
		move    func(o, n string) error
		moves   int
		fold    bool // paks and staging on a case-insensitive volume
	}{
		{name: "upgrade", owned: []string{"MJOLNIRForge/pk/old.pak"}, prepare: func(t *testing.T, _, paks string) {
			mkfile(t, filepath.Join(paks, ContentRoot, "pk", "old.pak"), "old")
		}},
		{name: "pack folder there", prepare: func(t *testing.T, _, paks string) {
			if err := os.MkdirAll(filepath.Join(paks, ContentRoot, "pk"), 0o755); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "pack folder there in another case", fold: true, prepare: func(t *testing.T, _, paks string) {
			if err := os.MkdirAll(filepath.Join(paks, ContentRoot, "PK"), 0o755); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "empty folder staged", prepare: func(t *testing.T, staged, _ string) {
			if err := os.Mkdir(filepath.Join(staged, "content", "sub", "empty"), 0o700); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "unlisted file staged", prepare: func(t *testing.T, staged, _ string) {
			mkfile(t, filepath.Join(staged, "content", "sub", "x.pak"), "x")
		}},
		{name: "held", move: func(string, string) error { return held }, moves: 1},
		{name: "another volume", move: func(o, n string) error { return &os.LinkError{Op: "rename", Old: o, New: n, Err: syscall.EXDEV} }, moves: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir() // removed with the test, paks- and intake- in it
			if tc.fold {
				root = toolcheck.CaseInsensitiveDir(t)
			}
			paks, err := os.MkdirTemp(root, "paks-")
			if err != nil {
				t.Fatal(err)
			}
			staged, files := stageAsIntake(t, root, freshFiles)
			if tc.prepare != nil {
				tc.prepare(t, staged, paks)
			}
			c := counted{moveFolder: tc.move}
			pl, err := Place(c.renamer(), staged, files, paks, "pk", tc.owned, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := pl.Commit(); err != nil {
				t.Fatal(err)
			}
			if c.folderMoves != tc.moves || c.renames < len(freshFiles) {
				t.Fatalf("%d folder moves, %d file renames; want %d and one a file at least", c.folderMoves, c.renames, tc.moves)
			}
			if !slices.Equal(pl.Paths, freshPaths) {
				t.Fatalf("Place = %q; want %q", pl.Paths, freshPaths)
			}
			var want []string
			for n, d := range freshFiles {
				want = append(want, n+": "+d)
			}
			slices.Sort(want)
			if got := slices.DeleteFunc(tree(t, paks), func(s string) bool { return strings.HasPrefix(s, "old.pak") }); !slices.Equal(got, want) {
				t.Fatalf("pack folder = %q; want %q", got, want)
			}
			if _, err := os.Lstat(filepath.Join(paks, ContentRoot, "pk", "sub", "empty")); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("an empty staged folder was placed: %v", err)
			}
			checkModes(t, paks)
		})
	}
}

// TestPlaceFreshNeverReplacesAFolderMadeMeanwhile: a folder another
// program makes at the pack folder between the look and the rename (empty,
// or holding its file) is not replaced: it stays the same folder, its
// file stays, and the pack is placed into it file by file.
func TestPlaceFreshNeverReplacesAFolderMadeMeanwhile(t *testing.T) {
	for _, withFile := range []bool{false, true} {
		paks := t.TempDir()
		staged, files := stageAsIntake(t, "", freshFiles)
		dst := filepath.Join(paks, ContentRoot, "pk")
		var theirs fs.FileInfo
		c := counted{moveFolder: func(o, n string) error {
			if err := os.Mkdir(dst, 0o755); err != nil {
				t.Fatal(err)
			}
			if withFile {
				mkfile(t, filepath.Join(dst, "mine.txt"), "mine")
			}
			theirs, _ = os.Lstat(dst)
			return atomicfile.Renamer{}.MoveFolder(o, n)
		}}
		pl, err := Place(c.renamer(), staged, files, paks, "pk", nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Lstat(dst); err != nil || !os.SameFile(fi, theirs) {
			t.Fatalf("the folder made meanwhile (with a file: %v) was replaced", withFile)
		}
		if b, err := os.ReadFile(filepath.Join(dst, "mine.txt")); withFile && (err != nil || string(b) != "mine") {
			t.Fatalf("their file after Place: %q, %v", b, err)
		}
		if !slices.Equal(pl.Paths, freshPaths) || c.renames < len(freshFiles) {
			t.Fatalf("Place = %q with %d file renames; want %q, file by file", pl.Paths, c.renames, freshPaths)
		}
	}
}

// TestPlaceFreshAcrossVolumes: staging on another file system (/dev/shm,
// a real EXDEV) than paks: the folder move fails and every file is copied,
// 0644 in folders of 0755; the staged files stay for staging's removal.
func TestPlaceFreshAcrossVolumes(t *testing.T) {
	other, err := os.MkdirTemp("/dev/shm", "forgesync-test-")
	if err != nil {
		t.Skipf("no /dev/shm: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(other) })
	paks := t.TempDir()
	staged, files := stageAsIntake(t, other, freshFiles)
	if err := os.Link(filepath.Join(staged, "forgepack.json"), filepath.Join(paks, "forgepack.json")); err == nil {
		t.Skip("/dev/shm and the temp folder are one file system")
	}
	var c counted
	pl, err := Place(c.renamer(), staged, files, paks, "pk", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.folderMoves != 1 || !slices.Equal(pl.Paths, freshPaths) {
		t.Fatalf("across volumes: %d folder moves, Paths %q; want one tried, %q", c.folderMoves, pl.Paths, freshPaths)
	}
	if _, err := os.Lstat(filepath.Join(staged, "content", "a.pak")); err != nil {
		t.Fatalf("a staged file after a copy: %v; want it still staged", err)
	}
	checkModes(t, paks)
}

func mkfile(t *testing.T, p, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
