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
	if err == nil || errors.As(err, &re) || !errors.Is(err, errUnconfined) {
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

// processGone reports whether process pid has ended.
func processGone(pid int) bool {
	h, err := windows.OpenProcess(windows.SYNCHRONIZE, false, uint32(pid))
	if err != nil {
		return true
	}
	defer windows.CloseHandle(h)
	ev, _ := windows.WaitForSingleObject(h, 0)
	return ev == windows.WAIT_OBJECT_0
}

// killAndAwait ends process pid and waits until it has.
func killAndAwait(t *testing.T, pid int) {
	t.Helper()
	h, err := windows.OpenProcess(windows.SYNCHRONIZE|windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		t.Fatal(err)
	}
	defer windows.CloseHandle(h)
	if err := windows.TerminateProcess(h, 1); err != nil {
		t.Fatal(err)
	}
	windows.WaitForSingleObject(h, windows.INFINITE)
}

// TestChildCreationFlags: a background child is created suspended in
// BELOW_NORMAL_PRIORITY_CLASS, a normal one suspended only.
func TestChildCreationFlags(t *testing.T) {
	for background, want := range map[bool]uint32{true: windows.CREATE_SUSPENDED | windows.BELOW_NORMAL_PRIORITY_CLASS, false: windows.CREATE_SUSPENDED} {
		iso := Isolation{Command: []string{os.Args[0]}, Background: background}
		cmd, _, _, err := iso.command(&stderrBuffer{})
		if err != nil {
			t.Fatal(err)
		}
		if got := cmd.SysProcAttr.CreationFlags; got != want {
			t.Errorf("background %v: creation flags %#x; want %#x", background, got, want)
		}
	}
}

// TestChildPriority: a background child, waiting for its request, runs in
// BELOW_NORMAL_PRIORITY_CLASS (GetPriorityClass from outside); a normal
// one in NORMAL_PRIORITY_CLASS.
func TestChildPriority(t *testing.T) {
	for background, want := range map[bool]uint32{true: windows.BELOW_NORMAL_PRIORITY_CLASS, false: windows.NORMAL_PRIORITY_CLASS} {
		x, _ := warmExtractor(t, Isolation{Background: background, Env: []string{envSayReady + "=1"}})
		c := waitingChild(t, x)
		readyChild(t, c)
		h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(c.cmd.Process.Pid))
		if err != nil {
			t.Fatal(err)
		}
		got, err := getPriorityClass(h)
		windows.CloseHandle(h)
		if err != nil || got != want {
			t.Errorf("background %v: priority class %#x, %v; want %#x", background, got, err, want)
		}
		x.Close()
	}
}

var procGetPriorityClass = windows.NewLazySystemDLL("kernel32.dll").NewProc("GetPriorityClass")

// getPriorityClass is GetPriorityClass, which x/sys/windows lacks.
func getPriorityClass(h windows.Handle) (uint32, error) {
	r, _, err := procGetPriorityClass.Call(uintptr(h))
	if r == 0 {
		return 0, err
	}
	return uint32(r), nil
}
