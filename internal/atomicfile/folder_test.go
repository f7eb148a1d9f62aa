package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// folderToMove makes a folder holding a file and a subfolder with a file,
// and returns it with the identity of its first file.
func folderToMove(t *testing.T) (string, fs.FileInfo) {
	t.Helper()
	src := filepath.Join(t.TempDir(), "content")
	if err := os.MkdirAll(filepath.Join(src, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"a.pak", "sub/b.pak"} {
		if err := os.WriteFile(filepath.Join(src, filepath.FromSlash(n)), []byte(n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fi, err := os.Lstat(filepath.Join(src, "a.pak"))
	if err != nil {
		t.Fatal(err)
	}
	return src, fi
}

// TestMoveFolderNeverReplaces: a folder moves whole to a free name (its
// files the same files, not copies); a folder, even an empty one, or a
// file standing at the name fails it as fs.ErrExist, and both sides stay
// as they were. The same through the made-folder way of a file system
// without a rename that refuses to replace.
func TestMoveFolderNeverReplaces(t *testing.T) {
	moves := map[string]func(o, n string) error{"platform": nil, "made folder": moveIntoMadeFolder}
	for name, move := range moves {
		t.Run(name, func(t *testing.T) {
			r := Renamer{RenameFolder: move}
			src, fi := folderToMove(t)
			dst := filepath.Join(t.TempDir(), "pk")
			if err := r.MoveFolder(src, dst); err != nil {
				t.Fatalf("MoveFolder to a free name = %v", err)
			}
			moved, err := os.Lstat(filepath.Join(dst, "a.pak"))
			if err != nil || !os.SameFile(fi, moved) {
				t.Fatalf("after the move a.pak is %v, %v; want the same file", moved, err)
			}
			if b, _ := os.ReadFile(filepath.Join(dst, "sub", "b.pak")); string(b) != "sub/b.pak" {
				t.Fatalf("sub/b.pak after the move = %q", b)
			}
			if _, err := os.Lstat(src); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("the source after the move: %v; want it gone", err)
			}
			for _, standing := range []string{"an empty folder", "a file"} {
				src, _ := folderToMove(t)
				dst := filepath.Join(t.TempDir(), "pk")
				var err error
				if standing == "a file" {
					err = os.WriteFile(dst, []byte("mine"), 0o644)
				} else {
					err = os.Mkdir(dst, 0o755)
				}
				if err != nil {
					t.Fatal(err)
				}
				if err := r.MoveFolder(src, dst); !errors.Is(err, fs.ErrExist) {
					t.Fatalf("MoveFolder onto %s = %v; want fs.ErrExist", standing, err)
				}
				if _, err := os.Lstat(filepath.Join(src, "sub", "b.pak")); err != nil {
					t.Fatalf("the source after a refused move: %v", err)
				}
				fi, err := os.Lstat(dst)
				if err != nil || fi.IsDir() != (standing != "a file") {
					t.Fatalf("%s after a refused move: %v, %v; want it as it was", standing, fi, err)
				}
				if fi.IsDir() {
					if entries, _ := os.ReadDir(dst); len(entries) != 0 {
						t.Fatalf("the empty folder holds %v after a refused move", entries)
					}
				}
			}
		})
	}
}

// TestMoveFolderRealSecondFileSystem: across file systems (the temp folder
// and /dev/shm) the move fails as cross-device and moves nothing.
func TestMoveFolderRealSecondFileSystem(t *testing.T) {
	other, err := os.MkdirTemp("/dev/shm", "forgesync-test-")
	if err != nil {
		t.Skipf("no /dev/shm: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(other) })
	src, _ := folderToMove(t)
	if err := os.Link(filepath.Join(src, "a.pak"), filepath.Join(other, "a.pak")); err == nil {
		t.Skip("/dev/shm and the temp folder are one file system")
	}
	for name, move := range map[string]func(o, n string) error{"platform": nil, "made folder": moveIntoMadeFolder} {
		dst := filepath.Join(other, "pk")
		if err := (Renamer{RenameFolder: move}).MoveFolder(src, dst); !IsCrossDevice(err) {
			t.Fatalf("%s: MoveFolder across file systems = %v; want a cross-device error", name, err)
		}
		if _, err := os.Lstat(dst); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("%s: %s after a failed move: %v; want nothing there", name, dst, err)
		}
		if _, err := os.Lstat(filepath.Join(src, "sub", "b.pak")); err != nil {
			t.Fatalf("%s: the source after a failed move: %v", name, err)
		}
	}
}
