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

func TestWriteFileReplaces(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.txt")
	if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(p, []byte("new"), 0o644); err != nil {
		t.Fatalf("WriteFile = %v", err)
	}
	got, _ := os.ReadFile(p)
	if string(got) != "new" {
		t.Fatalf("content = %q; want %q", got, "new")
	}
	left, _ := os.ReadDir(dir)
	if len(left) != 1 {
		t.Fatalf("folder holds %d entries; want only the target", len(left))
	}
}

func TestCleanupAfterCommitIsNoop(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.txt")
	pf, err := Create(p, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	pf.Write([]byte("x"))
	if err := pf.Commit(Renamer{}); err != nil {
		t.Fatal(err)
	}
	if err := pf.Cleanup(); err != nil {
		t.Fatalf("Cleanup after commit = %v", err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("target gone after Cleanup: %v", err)
	}
}

func TestCleanupRemovesTemp(t *testing.T) {
	dir := t.TempDir()
	pf, err := Create(filepath.Join(dir, "a.txt"), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	pf.Write([]byte("x"))
	pf.Cleanup()
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Fatalf("temp left behind: %v", left)
	}
}

func TestRenamerRetriesBusyTarget(t *testing.T) {
	busyErr := &os.LinkError{Op: "rename", Err: syscall.EBUSY}
	fails := 3
	var slept []time.Duration
	r := Renamer{
		Rename: func(o, n string) error {
			if fails > 0 {
				fails--
				return busyErr
			}
			return nil
		},
		Busy:  func(err error) bool { return errors.Is(err, syscall.EBUSY) },
		Sleep: func(d time.Duration) { slept = append(slept, d) },
	}
	if err := r.Replace("a", "b"); err != nil {
		t.Fatalf("Replace = %v; want success after retries", err)
	}
	if len(slept) != 3 || slept[1] <= slept[0] {
		t.Fatalf("sleeps = %v; want 3 growing back-offs", slept)
	}
}

func TestRenamerGivesUp(t *testing.T) {
	var total time.Duration
	r := Renamer{
		Rename:  func(o, n string) error { return syscall.EBUSY },
		Busy:    func(error) bool { return true },
		MaxWait: time.Second,
		Sleep:   func(d time.Duration) { total += d },
	}
	err := r.Replace("a", "target.txt")
	if !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), "target.txt") {
		t.Fatalf("Replace = %v; want ErrBusy naming the target", err)
	}
	if total != time.Second {
		t.Fatalf("waited %v; want exactly MaxWait 1s", total)
	}
}

func TestRenamerNotBusyFailsAtOnce(t *testing.T) {
	calls := 0
	r := Renamer{
		Rename: func(o, n string) error { calls++; return syscall.EACCES },
		Busy:   func(error) bool { return false },
		Sleep:  func(time.Duration) { t.Fatal("slept on an error that is not busy") },
	}
	if err := r.Replace("a", "b"); !errors.Is(err, syscall.EACCES) || calls != 1 {
		t.Fatalf("Replace = %v after %d calls; want EACCES after 1", err, calls)
	}
}

func TestCleanTemps(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, TempPrefix+"x-1"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "keep.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	removed, err := CleanTemps(dir)
	if err != nil || len(removed) != 1 {
		t.Fatalf("CleanTemps = %v, %v; want one removed", removed, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "keep.txt")); err != nil {
		t.Fatalf("CleanTemps removed a file it did not write: %v", err)
	}
}

// TestBudgetSharedAcrossFiles: five held files in one pass wait out one
// budget between them, not MaxWait each; once it is spent, a further held
// file fails at once as busy, naming its path.
func TestBudgetSharedAcrossFiles(t *testing.T) {
	var total time.Duration
	b := NewBudget(time.Second)
	r := Renamer{
		RemoveFile: func(string) error { return syscall.EBUSY },
		Busy:       func(err error) bool { return errors.Is(err, syscall.EBUSY) },
		MaxWait:    time.Second,
		Sleep:      func(d time.Duration) { total += d },
		Budget:     b,
	}
	for i, name := range []string{"1.pak", "2.pak", "3.pak", "4.pak", "5.pak"} {
		err := r.Remove(name)
		if !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), name) {
			t.Fatalf("Remove(%q) #%d = %v; want ErrBusy naming it", name, i, err)
		}
	}
	if total != time.Second {
		t.Fatalf("five held files waited %v in all; want the one budget of 1s", total)
	}
	if left := b.Left(); left != 0 {
		t.Fatalf("Budget.Left() = %v; want 0", left)
	}
}

// TestBudgetLeftAfterSuccess: a file held for a moment spends only the
// time it took from the pass's budget.
func TestBudgetLeftAfterSuccess(t *testing.T) {
	b := NewBudget(time.Second)
	fails := 2
	r := Renamer{
		Rename: func(o, n string) error {
			if fails > 0 {
				fails--
				return syscall.EBUSY
			}
			return nil
		},
		Busy:   func(err error) bool { return errors.Is(err, syscall.EBUSY) },
		Sleep:  func(time.Duration) {},
		Budget: b,
	}
	if err := r.Replace("a", "b"); err != nil {
		t.Fatalf("Replace = %v", err)
	}
	if got, want := b.Left(), time.Second-30*time.Millisecond; got != want {
		t.Fatalf("Budget.Left() = %v; want %v (10ms + 20ms spent)", got, want)
	}
}

// TestReadOnlyTargetIsNotBusy: access denied on a target whose write bit
// is clear (Windows' attrib +r) is a read-only file, said so at once, not a
// file held by the game retried until the wait runs out.
func TestReadOnlyTargetIsNotBusy(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "a.pak")
	if err := os.WriteFile(target, []byte("old"), 0o444); err != nil {
		t.Fatal(err)
	}
	r := Renamer{
		Rename: func(o, n string) error { return &os.LinkError{Op: "rename", Old: o, New: n, Err: syscall.EACCES} },
		Busy:   func(err error) bool { return errors.Is(err, syscall.EACCES) },
		Sleep:  func(time.Duration) { t.Fatal("slept on a read-only target") },
	}
	err := r.Replace(filepath.Join(dir, "new"), target)
	if !errors.Is(err, ErrReadOnly) || errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), target) {
		t.Fatalf("Replace over a read-only target = %v; want ErrReadOnly naming %s, not ErrBusy", err, target)
	}
	// A writable target denied is still held.
	if err := os.Chmod(target, 0o644); err != nil {
		t.Fatal(err)
	}
	r.Sleep = func(time.Duration) {}
	r.MaxWait = 100 * time.Millisecond
	if err := r.Replace(filepath.Join(dir, "new"), target); !errors.Is(err, ErrBusy) {
		t.Fatalf("Replace over a held writable target = %v; want ErrBusy", err)
	}
}

// TestReplaceRefusesFolder: a file is never renamed over a folder, empty
// or not (a player's folder where a pack file goes), and both stay.
func TestReplaceRefusesFolder(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "a.pak")
	if err := os.WriteFile(src, []byte("pak"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, full := range []bool{false, true} {
		dst := filepath.Join(dir, "b.pak")
		if err := os.Mkdir(dst, 0o755); err != nil {
			t.Fatal(err)
		}
		if full {
			if err := os.WriteFile(filepath.Join(dst, "mine"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		err := (Renamer{MaxWait: time.Millisecond}).Replace(src, dst)
		if err == nil {
			t.Fatalf("Replace over a folder (full %v) succeeded", full)
		}
		if !strings.Contains(err.Error(), "a.pak") || !strings.Contains(err.Error(), dst) {
			t.Errorf("error %q names neither file", err)
		}
		if fi, err := os.Lstat(dst); err != nil || !fi.IsDir() {
			t.Fatalf("folder after the refused rename: %v, %v", fi, err)
		}
		if _, err := os.Stat(src); err != nil {
			t.Fatalf("source after the refused rename: %v", err)
		}
		if err := os.RemoveAll(dst); err != nil {
			t.Fatal(err)
		}
	}
}
