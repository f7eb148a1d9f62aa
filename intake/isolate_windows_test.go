//go:build windows

package intake

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/windows"
)

// TestIsolationUnconfinedChildNeverRuns: when the unpacker cannot be put in
// its Job Object (a launcher's own job may forbid it), extraction fails as
// a fault, not a verdict, and the child has run no instruction: it was
// started suspended. The failing assignment waits for a sign of life from
// the child (a marker file its command writes) and fails either way. It
// makes its own folder rather than t.TempDir, whose cleanup wine cannot
// run.
func TestIsolationUnconfinedChildNeverRuns(t *testing.T) {
	dir, err := os.MkdirTemp("", "forgesync-job-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	marker := filepath.Join(dir, "ran")
	shell := os.Getenv("ComSpec")
	if shell == "" {
		shell = `C:\windows\system32\cmd.exe`
	}
	old := testExtractor.Load()
	testIsolate(&Isolation{Command: []string{shell, "/c", "echo ran>" + marker}})
	t.Cleanup(func() { testExtractor.Store(old) })
	saved := assignProcess
	assignProcess = func(windows.Handle, windows.Handle) error {
		deadline := time.Now().Add(3 * time.Second)
		for time.Now().Before(deadline) {
			if _, err := os.Stat(marker); err == nil {
				break
			}
			time.Sleep(20 * time.Millisecond) // polling a file the child would write, with a deadline
		}
		return windows.ERROR_ACCESS_DENIED
	}
	t.Cleanup(func() { assignProcess = saved })

	archive := filepath.Join(dir, "p.zip")
	if err := os.WriteFile(archive, zipBytes(t, goodPack("")), 0o644); err != nil {
		t.Fatal(err)
	}
	staging := filepath.Join(dir, "staging")
	if err := os.Mkdir(staging, 0o755); err != nil {
		t.Fatal(err)
	}
	_, err = testExtract(t.Context(), archive, staging, DefaultLimits(), nil)
	var re *RejectError
	if err == nil || errors.As(err, &re) || !errors.Is(err, ErrUnconfined) {
		t.Fatalf("Extract with a failed Job Object assignment = %v; want ErrUnconfined, a fault and no verdict", err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the unpacker ran before it was confined")
	}
}

// TestRejectedStagingRemoved: the staging folder of a rejected archive is
// removed even where os.RemoveAll fails (wine's, on a folder holding
// files; a virus scanner's hold on Windows): through the retrying remover,
// file by file.
func TestRejectedStagingRemoved(t *testing.T) {
	for _, isolated := range []bool{true, false} {
		if !isolated {
			old := testExtractor.Load()
			testExtractor.Store(nil)
			t.Cleanup(func() { testExtractor.Store(old) })
		}
		dir, err := os.MkdirTemp("", "forgesync-staging-")
		if err != nil {
			t.Fatal(err)
		}
		archive := filepath.Join(dir, "p.zip")
		if err := os.WriteFile(archive, zipBytes(t, with(entry{name: "content/zz-big.pak", body: make([]byte, 4096)})), 0o644); err != nil {
			t.Fatal(err)
		}
		parent := filepath.Join(dir, "staging")
		if err := os.Mkdir(parent, 0o755); err != nil {
			t.Fatal(err)
		}
		// The earlier files are written before the last one breaks its
		// limit while streaming.
		lim := DefaultLimits()
		lim.MaxEntryBytes = 2048
		_, err = testExtract(t.Context(), archive, parent, lim, nil)
		var re *RejectError
		if !errors.As(err, &re) {
			t.Fatalf("Extract(isolated %v) = %v; want a rejection", isolated, err)
		}
		left, err := os.ReadDir(parent)
		if err != nil || len(left) != 0 {
			t.Errorf("isolated %v: staging parent holds %v (%v); want the rejected staging removed", isolated, left, err)
		}
	}
}
