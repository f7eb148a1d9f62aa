package samepath

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// spellings returns three spellings of dir: as is, with a "." and a
// trailing separator, and through a ".." detour.
func spellings(dir string) []string {
	sep := string(filepath.Separator)
	return []string{
		dir,
		dir + sep + "." + sep,
		filepath.Dir(dir) + sep + "detour" + sep + ".." + sep + filepath.Base(dir),
	}
}

func TestSameFolderThreeWays(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "Mods")
	for _, exists := range []bool{false, true} {
		if exists {
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		sp := spellings(dir)
		for _, a := range sp {
			for _, b := range sp {
				if !Same(a, b) {
					t.Errorf("Same(%q, %q) = false (exists %v); want true", a, b, exists)
				}
				if Key(a) != Key(b) {
					t.Errorf("Key(%q) = %q, Key(%q) = %q; want equal", a, Key(a), b, Key(b))
				}
				if rel, ok := Within(a, filepath.Join(b, "Scripts", "x.lua")); !ok || rel != filepath.Join("Scripts", "x.lua") {
					t.Errorf("Within(%q, %q/Scripts/x.lua) = %q, %v; want Scripts/x.lua, true", a, b, rel, ok)
				}
			}
		}
	}
}

func TestSameThroughLink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need developer mode on Windows")
	}
	root := t.TempDir()
	dir := filepath.Join(root, "Mods")
	if err := os.MkdirAll(filepath.Join(dir, "Scripts"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "SteamLibrary")
	if err := os.Symlink(dir, link); err != nil {
		t.Skipf("symlinks not available: %v", err)
	}
	if !Same(dir, link) {
		t.Errorf("Same(%q, %q) = false; want true (one folder, two spellings)", dir, link)
	}
	if rel, ok := Within(dir, filepath.Join(link, "Scripts")); !ok || rel != "Scripts" {
		t.Errorf("Within(dir, link/Scripts) = %q, %v; want Scripts, true", rel, ok)
	}
	if Same(dir, filepath.Join(root, "Other")) {
		t.Errorf("Same(Mods, Other) = true; want false")
	}
}

func TestCaseFoldedWhereTheVolumeIgnoresCase(t *testing.T) {
	saved := foldCase
	t.Cleanup(func() { foldCase = saved })
	foldCase = true
	dir := filepath.Join(t.TempDir(), "Games", "Mods")
	upper := strings.Replace(dir, "Games", "GAMES", 1)
	lower := strings.Replace(dir, "Games", "games", 1)
	for _, p := range []string{upper, lower} {
		if !Same(dir, p) {
			t.Errorf("Same(%q, %q) = false with case folding; want true", dir, p)
		}
		if rel, ok := Within(p, filepath.Join(dir, "a.lua")); !ok || rel != "a.lua" {
			t.Errorf("Within(%q, …/a.lua) = %q, %v; want a.lua, true", p, rel, ok)
		}
	}
	foldCase = false
	if Same(dir, upper) {
		t.Errorf("Same(%q, %q) = true without case folding on missing paths; want false", dir, upper)
	}
}

func TestOverlap(t *testing.T) {
	root := t.TempDir()
	state := filepath.Join(root, "state")
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{state, filepath.Join(state, "drop"), true},
		{filepath.Join(state, "drop"), state, true},
		{state, state + string(filepath.Separator), true},
		{state, filepath.Join(root, "state2"), false},
		{state, filepath.Join(root, "drop"), false},
	} {
		if got := Overlap(c.a, c.b); got != c.want {
			t.Errorf("Overlap(%q, %q) = %v; want %v", c.a, c.b, got, c.want)
		}
	}
}
