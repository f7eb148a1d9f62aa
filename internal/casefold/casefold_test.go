//go:build linux

package casefold

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// mount serves a new case-insensitive file system for the test, or skips
// it where FUSE cannot be mounted (not root, no /dev/fuse): the tests that
// use it through toolcheck.CaseInsensitiveDir fail in CI instead.
func mount(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	unmount, err := Mount(t.TempDir(), dir, 10*time.Second)
	if err != nil {
		t.Skipf("cannot mount FUSE here: %v", err)
	}
	t.Cleanup(func() {
		if err := unmount(); err != nil {
			t.Error(err)
		}
	})
	return dir
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// TestCaseInsensitiveCasePreserving: every spelling reaches one file (the
// same identity), a name keeps the case it was made with, a file made
// over another spelling is the existing one, and a rename to another
// spelling of an existing name replaces it, as on NTFS.
func TestCaseInsensitiveCasePreserving(t *testing.T) {
	dir := mount(t)
	if err := os.WriteFile(filepath.Join(dir, "Map.pak"), []byte("1"), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := os.Lstat(filepath.Join(dir, "Map.pak"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.Lstat(filepath.Join(dir, "MAP.PAK"))
	if err != nil || !os.SameFile(a, b) {
		t.Fatalf("Lstat(MAP.PAK) = %v, same file %v; want Map.pak itself", err, err == nil && os.SameFile(a, b))
	}
	if got := names(t, dir); !slices.Equal(got, []string{"Map.pak"}) {
		t.Fatalf("listing = %q; want the name as made, [Map.pak]", got)
	}
	if _, err := os.OpenFile(filepath.Join(dir, "map.pak"), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("create map.pak exclusively = %v; want it to exist", err)
	}
	// The file set aside, a new one renamed in under another spelling:
	// the old spelling reaches the new file, as it does on Windows.
	if err := os.Rename(filepath.Join(dir, "MAP.pak"), filepath.Join(dir, "aside")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tmp"), []byte("2"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, "tmp"), filepath.Join(dir, "MAP.pak")); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "Map.pak")); err != nil || string(data) != "2" {
		t.Fatalf("Map.pak after MAP.pak was renamed in = %q, %v; want the new file", data, err)
	}
	if got := names(t, dir); !slices.Equal(got, []string{"MAP.pak", "aside"}) {
		t.Fatalf("listing = %q; want [MAP.pak aside]", got)
	}
	if err := os.Mkdir(filepath.Join(dir, "Maps"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "MAPS", "a.pak"), []byte("a"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "maps"), 0o755); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("mkdir maps = %v; want it to exist as Maps", err)
	}
	if got := names(t, filepath.Join(dir, "maps")); !slices.Equal(got, []string{"a.pak"}) {
		t.Fatalf("listing of maps = %q; want [a.pak]", got)
	}
	if err := os.Remove(filepath.Join(dir, "AsIdE")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "aside")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("aside after removing AsIdE: %v; want it gone", err)
	}
}
