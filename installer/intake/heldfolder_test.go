package intake

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestHeldFolderCreate: a file created in a held folder is new, of mode
// stagedPerm (less the umask), and written; a name that exists, a link
// (to a file outside, which must not be written through) and a name that
// is not one name in the folder are refused.
func TestHeldFolderCreate(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "content"), 0o700); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	h, err := openHeld(root, "content")
	if err != nil {
		t.Fatal(err)
	}
	defer h.close()
	f, err := h.create("a.pak", "content/a.pak", stagedPerm)
	if err != nil {
		t.Fatalf("create(a.pak) = %v; want nil", err)
	}
	if _, err := f.Write([]byte("pak")); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "content", "a.pak"))
	if err != nil || string(got) != "pak" {
		t.Fatalf("content/a.pak = %q, %v; want \"pak\"", got, err)
	}
	if fi, err := os.Stat(filepath.Join(dir, "content", "a.pak")); err != nil || (runtime.GOOS != "windows" && fi.Mode().Perm()&^stagedPerm != 0) {
		t.Fatalf("content/a.pak mode = %v, %v; want at most %v", fi.Mode(), err, os.FileMode(stagedPerm))
	}
	if _, err := h.create("a.pak", "content/a.pak", stagedPerm); !errors.Is(err, fs.ErrExist) {
		t.Errorf("create(a.pak) again = %v; want fs.ErrExist", err)
	}
	outside := filepath.Join(t.TempDir(), "outside")
	if err := os.WriteFile(outside, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "content", "link.pak")); err == nil {
		if _, err := h.create("link.pak", "content/link.pak", stagedPerm); err == nil {
			t.Errorf("create(link.pak) = nil; want an error")
		}
		if got, _ := os.ReadFile(outside); string(got) != "keep" {
			t.Errorf("the link's target = %q; want it untouched", got)
		}
	}
	for _, base := range []string{"", ".", "..", "sub/b.pak", string(os.PathSeparator) + "b.pak"} {
		if _, err := h.create(base, "content/"+base, stagedPerm); err == nil {
			t.Errorf("create(%q) = nil; want an error", base)
		}
	}
}
