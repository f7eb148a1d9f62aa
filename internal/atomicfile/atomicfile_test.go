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
