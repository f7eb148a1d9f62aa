package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

var errHeld = errors.New("held by a scanner (test)")

func heldPolicy(held map[string]int) Renamer {
	return Renamer{
		RemoveFile: func(p string) error {
			if n, ok := held[p]; ok && n != 0 {
				if n > 0 {
					held[p] = n - 1
				}
				return &os.PathError{Op: "remove", Path: p, Err: errHeld}
			}
			return os.Remove(p)
		},
		Busy:    func(err error) bool { return errors.Is(err, errHeld) },
		MaxWait: 50 * time.Millisecond,
		Sleep:   func(time.Duration) {},
	}
}

func tree(t *testing.T) (string, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "staging")
	if err := os.MkdirAll(filepath.Join(dir, "content", "Paks"), 0o755); err != nil {
		t.Fatal(err)
	}
	held := filepath.Join(dir, "content", "Paks", "a.pak")
	for _, p := range []string{held, filepath.Join(dir, "forgepack.json")} {
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, held
}

func TestRemoveAllWaitsOutAHeldFile(t *testing.T) {
	dir, held := tree(t)
	if err := RemoveAll(heldPolicy(map[string]int{held: 3}), dir); err != nil {
		t.Fatalf("RemoveAll = %v; want success after the scanner let go", err)
	}
	if _, err := os.Lstat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("%s still there: %v", dir, err)
	}
}

func TestRemoveAllNamesLeftovers(t *testing.T) {
	dir, held := tree(t)
	err := RemoveAll(heldPolicy(map[string]int{held: -1}), dir)
	if !errors.Is(err, errLeftover) {
		t.Fatalf("RemoveAll = %v; want ErrLeftover naming %s", err, held)
	}
	if !strings.Contains(err.Error(), held) {
		t.Fatalf("RemoveAll = %v; want it to name %s", err, held)
	}
	if _, err := os.Stat(filepath.Join(dir, "forgepack.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the file that was not held is still there: %v", err)
	}
	// The next pass, with the file released, finishes the job.
	if err := RemoveAll(Renamer{}, dir); err != nil {
		t.Fatalf("second RemoveAll = %v", err)
	}
}

func TestRemoveAllDoesNotFollowLinks(t *testing.T) {
	dir, _ := tree(t)
	outside := filepath.Join(t.TempDir(), "precious")
	if err := os.WriteFile(outside, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Dir(outside), filepath.Join(dir, "link")); err != nil {
		t.Skip(err)
	}
	if err := RemoveAll(heldPolicy(map[string]int{}), dir); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(outside); err != nil || string(b) != "keep" {
		t.Fatalf("file behind a link = %q, %v; want it untouched", b, err)
	}
}

// TestMoveAcrossDevices plays a drop folder and a state folder on two
// drives: the rename fails EXDEV, the file is copied, synced and only then
// is the source removed.
func TestMoveAcrossDevices(t *testing.T) {
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "drop.zip"), filepath.Join(dir, "processing.zip")
	if err := os.WriteFile(src, []byte("archive bytes"), 0o600); err != nil {
		t.Fatal(err)
	}
	var atRemove string
	r := Renamer{
		Rename: func(o, n string) error {
			if o == src {
				return &os.LinkError{Op: "rename", Old: o, New: n, Err: syscall.EXDEV}
			}
			return os.Rename(o, n)
		},
		RemoveFile: func(p string) error {
			b, _ := os.ReadFile(dst)
			atRemove = string(b)
			return os.Remove(p)
		},
	}
	if err := Move(r, src, dst, 0o644); err != nil {
		t.Fatalf("Move across devices = %v", err)
	}
	if atRemove != "archive bytes" {
		t.Errorf("when the source was removed the copy held %q; want every byte", atRemove)
	}
	if b, err := os.ReadFile(dst); err != nil || string(b) != "archive bytes" {
		t.Errorf("moved file = %q, %v", b, err)
	}
	if _, err := os.Stat(src); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("source after the move: %v; want it gone", err)
	}
	left, _ := os.ReadDir(dir)
	if len(left) != 1 {
		t.Errorf("folder holds %v; want only the moved file", left)
	}
}

// TestMoveCopyFailureKeepsSource: when the copy cannot complete the source
// stays and no partial target appears.
func TestMoveCopyFailureKeepsSource(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "a.zip")
	if err := os.WriteFile(src, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, "missing-folder", "a.zip")
	r := Renamer{Rename: func(o, n string) error { return &os.LinkError{Op: "rename", Old: o, New: n, Err: syscall.EXDEV} }}
	if err := Move(r, src, dst, 0o644); err == nil {
		t.Fatal("Move into a missing folder succeeded")
	}
	if _, err := os.Stat(src); err != nil {
		t.Fatalf("source after a failed move: %v; want it kept", err)
	}
}

// TestMoveRealSecondFileSystem moves between the temp folder and /dev/shm
// when they are two file systems, as drop and state on two drives are.
func TestMoveRealSecondFileSystem(t *testing.T) {
	other, err := os.MkdirTemp("/dev/shm", "forgesync-test-")
	if err != nil {
		t.Skipf("no /dev/shm: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(other) })
	src := filepath.Join(t.TempDir(), "a.zip")
	if err := os.WriteFile(src, []byte("bytes"), 0o600); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(other, "a.zip")
	if err := os.Link(src, dst); err == nil {
		os.Remove(dst)
		t.Skip("/dev/shm and the temp folder are one file system")
	}
	if err := Move(Renamer{}, src, dst, 0o644); err != nil {
		t.Fatalf("Move across file systems = %v", err)
	}
	if b, _ := os.ReadFile(dst); string(b) != "bytes" {
		t.Fatalf("moved = %q", b)
	}
	if _, err := os.Stat(src); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("source after the move: %v", err)
	}
}

func TestMkdirNoLinksRefusesALink(t *testing.T) {
	base := t.TempDir()
	elsewhere := t.TempDir()
	if err := os.Symlink(elsewhere, filepath.Join(base, "rejected")); err != nil {
		t.Skip(err)
	}
	err := MkdirNoLinks(base, filepath.Join("rejected", "sub"), 0o755)
	if !errors.Is(err, ErrLink) || !strings.Contains(err.Error(), filepath.Join(base, "rejected")) {
		t.Fatalf("MkdirNoLinks through a link = %v; want ErrLink naming it", err)
	}
	if left, _ := os.ReadDir(elsewhere); len(left) != 0 {
		t.Fatalf("created %v through the link", left)
	}
	if err := MkdirNoLinks(base, filepath.Join("a", "b"), 0o755); err != nil {
		t.Fatalf("MkdirNoLinks(a/b) = %v", err)
	}
	if fi, err := os.Stat(filepath.Join(base, "a", "b")); err != nil || !fi.IsDir() {
		t.Fatalf("a/b: %v", err)
	}
}

func TestOpenRetriesABusyFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x")
	if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	tries := 0
	r := Renamer{Busy: func(error) bool { return true }, MaxWait: time.Second, Sleep: func(time.Duration) {}}
	err := r.Retry("open", p, func() error {
		tries++
		if tries < 3 {
			return errHeld
		}
		return nil
	})
	if err != nil || tries != 3 {
		t.Fatalf("Retry = %v after %d tries; want success after 3", err, tries)
	}
	err = r.Retry("open", p, func() error { return errHeld })
	if !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), p) {
		t.Fatalf("Retry on a file that stays held = %v; want ErrBusy naming it", err)
	}
}
