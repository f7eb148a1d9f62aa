package place

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/installer/intake"
	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
)

// contentFixture is a staged pack of version ver (content/a.pak,
// content/b.pak, content/c.pak) and a paks folder holding version "old"
// of the same files, placed by forgesync.
// removeContent is RemoveContentLeftover with the default retry policy,
// its leftover paths dropped.
func removeContent(paks string, paths []string) error {
	_, err := RemoveContentLeftover(atomicfile.Renamer{}, paks, paths, nil)
	return err
}

func contentFixture(t *testing.T, ver string) (staged, paks string, files []intake.File, owned []string) {
	t.Helper()
	staged, paks = t.TempDir(), t.TempDir()
	dir := filepath.Join(paks, ContentRoot, "pk")
	for _, d := range []string{filepath.Join(staged, "content"), dir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []string{"a.pak", "b.pak", "c.pak"} {
		if err := os.WriteFile(filepath.Join(staged, "content", n), []byte(ver+"-"+n), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, n), []byte("old-"+n), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, intake.File{Path: "content/" + n, Size: int64(len(ver) + 6)})
		owned = append(owned, ContentRoot+"/pk/"+n)
	}
	return staged, paks, files, owned
}

// readPack returns the content of the pack folder, name: content.
func readPack(t *testing.T, paks string) []string {
	t.Helper()
	dir := filepath.Join(paks, ContentRoot, "pk")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, e.Name()+": "+string(data))
	}
	return out
}

// TestPlaceHeldFileLeavesOldWhole: an upgrade whose second .pak the game
// holds used to leave the first already replaced (mixed versions). It now
// fails as a held file and leaves every file of the old version in place,
// with nothing of the new one and no temp files.
func TestPlaceHeldFileLeavesOldWhole(t *testing.T) {
	staged, paks, files, owned := contentFixture(t, "new")
	held := filepath.Join(paks, ContentRoot, "pk", "b.pak")
	r := atomicfile.Renamer{
		Rename: func(o, n string) error {
			if o == held || n == held {
				return &os.LinkError{Op: "rename", Old: o, New: n, Err: syscall.EBUSY}
			}
			return os.Rename(o, n)
		},
		Busy:    func(err error) bool { return errors.Is(err, syscall.EBUSY) },
		MaxWait: 50 * time.Millisecond,
		Sleep:   func(time.Duration) {},
	}
	pl, err := Place(r, staged, files, paks, "pk", owned, nil)
	if !errors.Is(err, atomicfile.ErrBusy) || !strings.Contains(err.Error(), "b.pak") {
		t.Fatalf("Place with b.pak held = %v, %v; want ErrBusy naming b.pak", pl, err)
	}
	want := []string{"a.pak: old-a.pak", "b.pak: old-b.pak", "c.pak: old-c.pak"}
	if got := readPack(t, paks); !slices.Equal(got, want) {
		t.Fatalf("pack folder after a failed upgrade = %q; want the old version whole %q", got, want)
	}
}

// TestPlaceUndo: a placement undone after the fact (a later step of the
// install failed) puts the old version back and removes new files.
func TestPlaceUndo(t *testing.T) {
	staged, paks, files, owned := contentFixture(t, "new")
	if err := os.WriteFile(filepath.Join(staged, "content", "d.pak"), []byte("new-d.pak"), 0o644); err != nil {
		t.Fatal(err)
	}
	files = append(files, intake.File{Path: "content/d.pak", Size: 9})
	pl, err := Place(atomicfile.Renamer{}, staged, files, paks, "pk", owned, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := readPack(t, paks); !slices.Contains(got, "a.pak: new-a.pak") || !slices.Contains(got, "d.pak: new-d.pak") {
		t.Fatalf("pack folder after Place = %q; want the new version", got)
	}
	if err := pl.Undo(); err != nil {
		t.Fatalf("Undo = %v", err)
	}
	want := []string{"a.pak: old-a.pak", "b.pak: old-b.pak", "c.pak: old-c.pak"}
	if got := readPack(t, paks); !slices.Equal(got, want) {
		t.Fatalf("pack folder after Undo = %q; want %q", got, want)
	}
	// Commit keeps the new version and leaves no backups.
	staged, paks, files, owned = contentFixture(t, "new")
	if pl, err = Place(atomicfile.Renamer{}, staged, files, paks, "pk", owned, nil); err != nil {
		t.Fatal(err)
	}
	if err := pl.Commit(); err != nil {
		t.Fatalf("Commit = %v", err)
	}
	want = []string{"a.pak: new-a.pak", "b.pak: new-b.pak", "c.pak: new-c.pak"}
	if got := readPack(t, paks); !slices.Equal(got, want) {
		t.Fatalf("pack folder after Commit = %q; want %q", got, want)
	}
}

// windowsRenamer behaves as Windows does with a read-only file: a rename
// over it and its removal are denied (ERROR_ACCESS_DENIED, here EACCES),
// which Windows also returns for a file held open; renaming it away works.
func windowsRenamer() atomicfile.Renamer {
	ro := func(p string) bool {
		fi, err := os.Lstat(p)
		return err == nil && fi.Mode().Perm()&0o200 == 0
	}
	return atomicfile.Renamer{
		Rename: func(o, n string) error {
			if ro(n) {
				return &os.LinkError{Op: "rename", Old: o, New: n, Err: syscall.EACCES}
			}
			return os.Rename(o, n)
		},
		RemoveFile: func(p string) error {
			if ro(p) {
				return &os.PathError{Op: "remove", Path: p, Err: syscall.EACCES}
			}
			return os.Remove(p)
		},
		Busy:    func(err error) bool { return errors.Is(err, syscall.EACCES) },
		MaxWait: 50 * time.Millisecond,
		Sleep:   func(time.Duration) {},
	}
}

// TestPlaceReadOnly: a read-only file forgesync placed (attrib +r) is made
// writable and replaced; a read-only file it does not own is refused as
// read-only, naming it, before anything is replaced.
func TestPlaceReadOnly(t *testing.T) {
	staged, paks, files, owned := contentFixture(t, "new")
	ro := filepath.Join(paks, ContentRoot, "pk", "b.pak")
	if err := os.Chmod(ro, 0o444); err != nil {
		t.Fatal(err)
	}
	if _, err := Place(windowsRenamer(), staged, files, paks, "pk", owned[:1], nil); !errors.Is(err, atomicfile.ErrReadOnly) || !strings.Contains(err.Error(), "b.pak") {
		t.Fatalf("Place over a read-only file not ours = %v; want ErrReadOnly naming b.pak", err)
	}
	want := []string{"a.pak: old-a.pak", "b.pak: old-b.pak", "c.pak: old-c.pak"}
	if got := readPack(t, paks); !slices.Equal(got, want) {
		t.Fatalf("pack folder after a refused upgrade = %q; want %q", got, want)
	}
	staged, paks, files, owned = contentFixture(t, "new")
	if err := os.Chmod(filepath.Join(paks, ContentRoot, "pk", "b.pak"), 0o444); err != nil {
		t.Fatal(err)
	}
	pl, err := Place(windowsRenamer(), staged, files, paks, "pk", owned, nil)
	if err != nil {
		t.Fatalf("Place over a read-only file of ours = %v; want it cleared and replaced", err)
	}
	if err := pl.Commit(); err != nil {
		t.Fatal(err)
	}
	want = []string{"a.pak: new-a.pak", "b.pak: new-b.pak", "c.pak: new-c.pak"}
	if got := readPack(t, paks); !slices.Equal(got, want) {
		t.Fatalf("pack folder = %q; want %q", got, want)
	}
}

// TestRemoveContentReadOnlyAndBudget: removal clears the read-only
// attribute of content forgesync placed, and five held files share the
// pass's one budget instead of waiting MaxWait each.
func TestRemoveContentReadOnlyAndBudget(t *testing.T) {
	_, paks, _, owned := contentFixture(t, "new")
	if err := os.Chmod(filepath.Join(paks, filepath.FromSlash(owned[0])), 0o444); err != nil {
		t.Fatal(err)
	}
	left, err := RemoveContentLeftover(windowsRenamer(), paks, owned[:1], nil)
	if err != nil || len(left) != 0 {
		t.Fatalf("RemoveContentLeftover of a read-only file of ours = %v, %v; want it removed", left, err)
	}
	var waited time.Duration
	r := atomicfile.Renamer{
		RemoveFile: func(string) error { return syscall.EBUSY },
		Busy:       func(err error) bool { return errors.Is(err, syscall.EBUSY) },
		Sleep:      func(d time.Duration) { waited += d },
		Budget:     atomicfile.NewBudget(time.Second),
	}
	left, err = RemoveContentLeftover(r, paks, owned[1:], nil)
	if !errors.Is(err, atomicfile.ErrBusy) || len(left) != 2 {
		t.Fatalf("RemoveContentLeftover of held files = %v, %v; want both left, busy", left, err)
	}
	if waited != time.Second {
		t.Fatalf("held files waited %v; want the one budget of 1s", waited)
	}
}

// TestUndoIgnoresSpentBudget: a pass whose wait was spent on the game's
// held file still waits out a scanner holding a new file for a moment when
// it puts the old version back.
func TestUndoIgnoresSpentBudget(t *testing.T) {
	staged, paks, files, owned := contentFixture(t, "new")
	dir := filepath.Join(paks, ContentRoot, "pk")
	held, scanned := filepath.Join(dir, "c.pak"), filepath.Join(dir, "a.pak")
	scans := 2 // the scanner holds the new a.pak for two tries
	r := atomicfile.Renamer{
		Rename: func(o, n string) error {
			if o == held {
				return &os.LinkError{Op: "rename", Old: o, New: n, Err: syscall.EBUSY}
			}
			if n == scanned && strings.Contains(filepath.Base(o), "-") && scans > 0 {
				if _, err := os.Stat(scanned); err == nil {
					if data, _ := os.ReadFile(scanned); string(data) == "new-a.pak" {
						scans--
						return &os.LinkError{Op: "rename", Old: o, New: n, Err: syscall.EBUSY}
					}
				}
			}
			return os.Rename(o, n)
		},
		Busy:    func(err error) bool { return errors.Is(err, syscall.EBUSY) },
		MaxWait: time.Second,
		Sleep:   func(time.Duration) {},
		Budget:  atomicfile.NewBudget(time.Second),
	}
	if _, err := Place(r, staged, files, paks, "pk", owned, nil); !errors.Is(err, atomicfile.ErrBusy) {
		t.Fatalf("Place with c.pak held = %v; want ErrBusy", err)
	}
	want := []string{"a.pak: old-a.pak", "b.pak: old-b.pak", "c.pak: old-c.pak"}
	if got := readPack(t, paks); !slices.Equal(got, want) {
		t.Fatalf("pack folder = %q; want the old version whole %q", got, want)
	}
}

func TestPlaceAndRemoveContent(t *testing.T) {
	staged, paks := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(staged, "content", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(staged, "content", "a.pak"), []byte("a"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(staged, "content", "sub", "b.utoc"), []byte("b"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(staged, "forgepack.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	files := []intake.File{{Path: "content/a.pak", Size: 1}, {Path: "content/sub/b.utoc", Size: 1}, {Path: "forgepack.json", Size: 2}}
	var steps []string
	pl, err := Place(atomicfile.Renamer{}, staged, files, paks, "abc", nil, func(s string) { steps = append(steps, s) })
	if err != nil {
		t.Fatal(err)
	}
	if err := pl.Commit(); err != nil {
		t.Fatal(err)
	}
	placed := pl.Paths
	if strings.Join(placed, ",") != "MJOLNIRForge/abc/a.pak,MJOLNIRForge/abc/sub/b.utoc" || strings.Join(steps, ",") != "place:MJOLNIRForge/abc" {
		t.Fatalf("Place = %v (steps %v)", placed, steps)
	}
	// A file of the MJOLNIRForge mod itself, which content removal must not touch.
	if err := os.WriteFile(filepath.Join(paks, "MJOLNIRForge", "own.pak"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := removeContent(paks, placed); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(paks, "MJOLNIRForge", "abc")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("empty pack folder left behind")
	}
	if _, err := os.Stat(filepath.Join(paks, "MJOLNIRForge", "own.pak")); err != nil {
		t.Errorf("RemoveContent touched a file it did not place: %v", err)
	}
	if err := removeContent(paks, []string{"../etc/passwd", "Other/x"}); err == nil {
		t.Errorf("RemoveContent accepted paths outside MJOLNIRForge/")
	}
}

// TestPlaceMovesOncePerVolume: on one volume each staged file is renamed
// once, straight to its target, with no temp on the way; from another
// volume (EXDEV) every file is copied beside its target, and the copies
// are flushed before the first target is swapped. Both end with the new
// version in place and readable (0644).
func TestPlaceMovesOncePerVolume(t *testing.T) {
	for _, across := range []bool{false, true} {
		name := "one volume"
		if across {
			name = "two volumes"
		}
		t.Run(name, func(t *testing.T) {
			staged, paks, files, owned := contentFixture(t, "new")
			var log []string // "<from> -> <to>", base names, "staging" for a staged file
			where := func(p string) string {
				if strings.HasPrefix(p, staged) {
					return "staging"
				}
				return filepath.Base(p)
			}
			flushes := atomicfile.Fsyncs()
			flushedAtSwap := int64(-1)
			r := atomicfile.Renamer{Rename: func(o, n string) error {
				if across && strings.HasPrefix(o, staged) {
					return &os.LinkError{Op: "rename", Old: o, New: n, Err: syscall.EXDEV}
				}
				if strings.HasSuffix(n, ".pak") && flushedAtSwap < 0 {
					flushedAtSwap = atomicfile.Fsyncs() - flushes
				}
				log = append(log, where(o)+" -> "+where(n))
				return os.Rename(o, n)
			}}
			pl, err := Place(r, staged, files, paks, "pk", owned, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := pl.Commit(); err != nil {
				t.Fatal(err)
			}
			want := []string{"a.pak: new-a.pak", "b.pak: new-b.pak", "c.pak: new-c.pak"}
			if got := readPack(t, paks); !slices.Equal(got, want) {
				t.Fatalf("pack folder = %q; want %q", got, want)
			}
			for _, n := range []string{"a.pak", "b.pak", "c.pak"} {
				fi, err := os.Stat(filepath.Join(paks, ContentRoot, "pk", n))
				if err != nil || fi.Mode().Perm() != 0o644 {
					t.Errorf("%s: %v, %v; want mode 0644", n, fi, err)
				}
			}
			fromStaging, viaTemp := 0, 0
			for _, l := range log {
				from, to, _ := strings.Cut(l, " -> ")
				if from == "staging" {
					fromStaging++
				}
				if strings.HasPrefix(from, atomicfile.TempPrefix) && strings.HasSuffix(to, ".pak") {
					viaTemp++
				}
			}
			if !across {
				// a.pak goes to a temp first (that tells the volume), b and c straight in.
				if fromStaging != 3 || viaTemp != 1 || !slices.Contains(log, "staging -> b.pak") || !slices.Contains(log, "staging -> c.pak") {
					t.Errorf("renames = %q; want each staged file renamed once, b.pak and c.pak straight to their targets", log)
				}
			} else if fromStaging != 0 || viaTemp != 3 || flushedAtSwap < 3 {
				t.Errorf("renames = %q, %d flushes before the first swap; want the three files copied beside their targets and flushed before it", log, flushedAtSwap)
			}
		})
	}
}

// stage writes files (content/ paths → data) into a new staging folder and
// returns it with their listing.
func stage(t *testing.T, files map[string]string) (string, []intake.File) {
	t.Helper()
	staged := t.TempDir()
	var out []intake.File
	for name, data := range files {
		p := filepath.Join(staged, "content", filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		out = append(out, intake.File{Path: "content/" + name, Size: int64(len(data))})
	}
	slices.SortFunc(out, func(a, b intake.File) int { return strings.Compare(a.Path, b.Path) })
	return staged, out
}

// tree returns the files under the pack folder pk, slash path: content.
func tree(t *testing.T, paks string) []string {
	t.Helper()
	root := filepath.Join(paks, ContentRoot, "pk")
	var out []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		rel, _ := filepath.Rel(root, p)
		switch {
		case err != nil:
		case d.Type().IsRegular():
			data, _ := os.ReadFile(p)
			out = append(out, filepath.ToSlash(rel)+": "+string(data))
		case d.Type()&fs.ModeSymlink != 0:
			to, _ := os.Readlink(p)
			out = append(out, filepath.ToSlash(rel)+" -> "+to)
		}
		return err
	})
	return out
}

// TestPlaceAcrossKinds: where the new version has a folder and the old a
// file of that name (and the reverse), the old one is set aside whole and
// the new one placed; when a later file is held, Undo puts the old one
// back exactly; what forgesync did not place in the way refuses the
// placement and changes nothing.
func TestPlaceAcrossKinds(t *testing.T) {
	cases := []struct {
		name     string
		old, new map[string]string
		foreign  string // a file of someone else's, under the pack folder
		link     bool   // foreign is a link to a file outside, not a file
	}{
		{name: "file to folder", old: map[string]string{"foo.pak": "old foo", "z.pak": "old z"}, new: map[string]string{"foo.pak/x.pak": "new x", "z.pak": "new z"}},
		{name: "folder to file", old: map[string]string{"sub.pak/a.pak": "old a", "sub.pak/deep/b.pak": "old b", "z.pak": "old z"}, new: map[string]string{"sub.pak": "new sub", "z.pak": "new z"}},
		{name: "folder to file, a foreign file inside", old: map[string]string{"sub.pak/a.pak": "old a", "z.pak": "old z"}, new: map[string]string{"sub.pak": "new sub", "z.pak": "new z"}, foreign: "sub.pak/mine.pak"},
		{name: "foreign file where a folder belongs", old: map[string]string{"z.pak": "old z"}, new: map[string]string{"foo.pak/x.pak": "new x", "z.pak": "new z"}, foreign: "foo.pak"},
		{name: "foreign file where a new file goes", old: map[string]string{"z.pak": "old z"}, new: map[string]string{"mine.pak": "new mine", "z.pak": "new z"}, foreign: "mine.pak"},
		{name: "foreign file in a subfolder", old: map[string]string{"z.pak": "old z", "sub/a.pak": "old a"}, new: map[string]string{"sub/a.pak": "new a", "sub/mine.pak": "new mine"}, foreign: "sub/mine.pak"},
		{name: "foreign link where a new file goes", old: map[string]string{"z.pak": "old z"}, new: map[string]string{"mine.pak": "new mine", "z.pak": "new z"}, foreign: "mine.pak", link: true},
		{name: "foreign link over an owned file", old: map[string]string{"z.pak": "old z", "y.pak": "old y"}, new: map[string]string{"y.pak": "new y", "z.pak": "new z"}, foreign: "y.pak", link: true},
		{name: "folder to file, a foreign link inside", old: map[string]string{"sub.pak/a.pak": "old a", "z.pak": "old z"}, new: map[string]string{"sub.pak": "new sub", "z.pak": "new z"}, foreign: "sub.pak/mine.pak", link: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			paks := t.TempDir()
			staged, files := stage(t, c.old)
			pl, err := Place(atomicfile.Renamer{}, staged, files, paks, "pk", nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			pl.Commit()
			owned := pl.Paths
			if c.foreign != "" {
				p := filepath.Join(paks, ContentRoot, "pk", filepath.FromSlash(c.foreign))
				var err error
				if c.link {
					outside := filepath.Join(t.TempDir(), "theirs.pak")
					if err = os.WriteFile(outside, []byte("not forgesync's"), 0o644); err == nil {
						os.Remove(p) // an owned file the player replaced with a link
						err = os.Symlink(outside, p)
					}
				} else {
					err = os.WriteFile(p, []byte("not forgesync's"), 0o644)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			before := tree(t, paks)
			if c.foreign == "" {
				placeHeld(t, paks, c.new, owned)
				if got := tree(t, paks); !slices.Equal(got, before) {
					t.Fatalf("after a failed placement the pack folder holds %q; want it as before %q", got, before)
				}
			}
			staged, files = stage(t, c.new)
			pl, err = Place(atomicfile.Renamer{}, staged, files, paks, "pk", owned, nil)
			if c.foreign != "" {
				var pe *fs.PathError
				if !errors.Is(err, ErrForeign) || !errors.As(err, &pe) || pe.Path != path.Join(ContentRoot, "pk", c.foreign) {
					t.Fatalf("Place over a file forgesync did not place = %v; want ErrForeign naming %s", err, c.foreign)
				}
				if got := tree(t, paks); !slices.Equal(got, before) {
					t.Fatalf("after a refused placement the pack folder holds %q; want it as before %q", got, before)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := pl.Commit(); err != nil {
				t.Fatal(err)
			}
			var want []string
			for n, d := range c.new {
				want = append(want, n+": "+d)
			}
			slices.Sort(want)
			if got := tree(t, paks); !slices.Equal(got, want) {
				t.Fatalf("pack folder = %q; want %q", got, want)
			}
			if entries, _ := os.ReadDir(filepath.Join(paks, ContentRoot, "pk")); slices.ContainsFunc(entries, func(e os.DirEntry) bool { return strings.HasPrefix(e.Name(), atomicfile.TempPrefix) }) {
				t.Fatalf("backups left after Commit: %v", entries)
			}
		})
	}
}

// placeHeld places the files of next over the pack pk with z.pak held by
// another program, and checks that it fails as held with the old version
// put back.
func placeHeld(t *testing.T, paks string, next map[string]string, owned []string) {
	t.Helper()
	held := errors.New("held")
	zHeld := filepath.Join(paks, ContentRoot, "pk", "z.pak")
	r := atomicfile.Renamer{
		Rename: func(o, n string) error {
			if o == zHeld {
				return &os.LinkError{Op: "rename", Old: o, New: n, Err: held}
			}
			return os.Rename(o, n)
		},
		Busy:    func(err error) bool { return errors.Is(err, held) },
		MaxWait: time.Millisecond, Sleep: func(time.Duration) {},
	}
	staged, files := stage(t, next)
	if _, err := Place(r, staged, files, paks, "pk", owned, nil); !errors.Is(err, atomicfile.ErrBusy) || strings.Contains(err.Error(), "could not be put back") {
		t.Fatalf("Place with z.pak held = %v; want ErrBusy, the old version put back", err)
	}
}

// TestPlaceOverItsOwnBytes: a file no record owns at one of the pack's
// targets, holding the pack's very bytes (a placement a crash interrupted,
// which recovery does not take out), is replaced; one file of the same size
// and other bytes is refused (ErrForeign) and the pack folder stays as it
// was.
func TestPlaceOverItsOwnBytes(t *testing.T) {
	for _, same := range []bool{true, false} {
		paks := t.TempDir()
		content := map[string]string{"a.pak": "the pack's a", "sub/b.pak": "the pack's b"}
		dir := filepath.Join(paks, ContentRoot, "pk")
		if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
			t.Fatal(err)
		}
		left := "the pack's b"
		if !same {
			left = "the pack's B"
		}
		if err := os.WriteFile(filepath.Join(dir, "sub", "b.pak"), []byte(left), 0o644); err != nil {
			t.Fatal(err)
		}
		before := tree(t, paks)
		staged, files := stage(t, content)
		pl, err := Place(atomicfile.Renamer{}, staged, files, paks, "pk", nil, nil)
		if !same {
			if !errors.Is(err, ErrForeign) || !strings.Contains(err.Error(), "b.pak") {
				t.Fatalf("Place over other bytes = %v; want ErrForeign naming b.pak", err)
			}
			if got := tree(t, paks); !slices.Equal(got, before) {
				t.Fatalf("after a refused placement the pack folder holds %q; want %q", got, before)
			}
			continue
		}
		if err != nil {
			t.Fatalf("Place over the pack's own bytes = %v", err)
		}
		if err := pl.Commit(); err != nil {
			t.Fatal(err)
		}
		if got := tree(t, paks); !slices.Equal(got, []string{"a.pak: the pack's a", "sub/b.pak: the pack's b"}) {
			t.Fatalf("pack folder = %q", got)
		}
	}
}
