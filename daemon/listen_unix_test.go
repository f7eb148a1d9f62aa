//go:build !windows

package daemon

import (
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func mode(t *testing.T, path string) fs.FileMode {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode()
}

func TestListenModes(t *testing.T) {
	tests := []struct {
		name     string
		existing fs.FileMode // 0: the folder does not exist yet
		wantDir  fs.FileMode
	}{
		{"new folder", 0, 0o700},
		{"our open folder is tightened", 0o755, 0o700},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(sockDir(t), "state")
			if tc.existing != 0 {
				if err := os.Mkdir(dir, 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(dir, tc.existing); err != nil {
					t.Fatal(err)
				}
			}
			path := filepath.Join(dir, "forgesync.sock")
			ln, err := Listen(path)
			if err != nil {
				t.Fatalf("Listen(%s) = %v", path, err)
			}
			defer ln.Close()
			if got := mode(t, dir) & (fs.ModePerm | fs.ModeSticky); got != tc.wantDir {
				t.Errorf("folder mode = %v; want %v", got, tc.wantDir)
			}
			if got := mode(t, path); got.Type() != fs.ModeSocket || got.Perm() != 0o600 {
				t.Errorf("socket mode = %v; want a socket with 0600", got)
			}
		})
	}
}

// TestListenNeverChangesSharedFolder: a socket folder that others share is
// refused with the reason and the fix, and its mode stays as it was; a
// folder that holds other files is not tightened (the socket's 0600 guards
// it).
func TestListenNeverChangesSharedFolder(t *testing.T) {
	listed := filepath.Join(sockDir(t), "run")
	if err := os.Mkdir(listed, 0o755); err != nil {
		t.Fatal(err)
	}
	saved := sharedHere
	sharedHere = func() []string { return append(saved(), listed) }
	t.Cleanup(func() { sharedHere = saved })
	tests := []struct {
		name     string
		dir      string
		existing fs.FileMode
		files    bool   // the folder holds another file
		refuse   string // "" when Listen must succeed
	}{
		{"sticky shared folder", "", 0o777 | fs.ModeSticky, false, "sticky"},
		{"world-writable folder", "", 0o777, false, "writable by every user"},
		{"system folder", listed, 0o755, false, "other programs share"},
		{"folder with other files", "", 0o755, true, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := tc.dir
			if dir == "" {
				dir = filepath.Join(sockDir(t), "shared")
				if err := os.Mkdir(dir, 0o700); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Chmod(dir, tc.existing); err != nil {
				t.Fatal(err)
			}
			if tc.files {
				if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			path := filepath.Join(dir, "forgesync.sock")
			ln, err := Listen(path)
			if tc.refuse == "" {
				if err != nil {
					t.Fatalf("Listen(%s) = %v", path, err)
				}
				ln.Close()
			} else {
				if err == nil {
					ln.Close()
				}
				if !errors.Is(err, errSharedFolder) || !strings.Contains(err.Error(), tc.refuse) || !strings.Contains(err.Error(), "a folder of its own") {
					t.Fatalf("Listen(%s) = %v; want ErrSharedFolder saying %q and the fix", path, err, tc.refuse)
				}
			}
			if got := mode(t, dir) & (fs.ModePerm | fs.ModeSticky); got != tc.existing {
				t.Errorf("folder mode = %v; want it left at %v", got, tc.existing)
			}
		})
	}
}

// staleSocket leaves a socket file nobody listens on, as a crashed daemon
// does.
func staleSocket(t *testing.T, path string) {
	t.Helper()
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	l.SetUnlinkOnClose(false)
	l.Close()
	if mode(t, path).Type() != fs.ModeSocket {
		t.Fatal("no stale socket file left")
	}
}

func TestListenReplacesStaleSocket(t *testing.T) {
	path := filepath.Join(sockDir(t), "forgesync.sock")
	staleSocket(t, path)
	ln, err := Listen(path)
	if err != nil {
		t.Fatalf("Listen over a stale socket = %v; want it replaced", err)
	}
	defer ln.Close()
	if !probe(waitCtx(t), path) {
		t.Fatal("Probe after replacing the stale socket = false")
	}
}

func TestListenRefusesRunningDaemon(t *testing.T) {
	s := startServer(t, newFakeBackend(), nil, ServerOptions{})
	ln, err := Listen(s.path)
	if err == nil {
		ln.Close()
		t.Fatal("second Listen on a live socket = nil error; want ErrAlreadyRunning")
	}
	var are *alreadyRunningError
	if !errors.Is(err, errAlreadyRunning) || !errors.As(err, &are) || are.PID != os.Getpid() {
		t.Fatalf("second Listen = %v; want an AlreadyRunningError with pid %d", err, os.Getpid())
	}
	for _, want := range []string{s.path, "pid", "stop it first"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	// The running daemon is untouched.
	if _, err := s.client.Status(waitCtx(t)); err != nil {
		t.Fatalf("Status() of the first daemon after the refused second = %v", err)
	}
}

// TestListenRefusesListenerNotServing covers a daemon that listens but has
// not started serving: the dial succeeds, so the socket is live.
func TestListenRefusesListenerNotServing(t *testing.T) {
	path := filepath.Join(sockDir(t), "forgesync.sock")
	ln, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, err = Listen(path)
	if !errors.Is(err, errAlreadyRunning) {
		t.Fatalf("second Listen = %v; want ErrAlreadyRunning", err)
	}
}

func TestListenLeavesOtherFiles(t *testing.T) {
	dir := sockDir(t)
	path := filepath.Join(dir, "forgesync.sock")
	if err := os.WriteFile(path, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Listen(path); err == nil || !strings.Contains(err.Error(), "not a socket") {
		t.Fatalf("Listen over a regular file = %v; want a not-a-socket error", err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "keep me" {
		t.Fatalf("the regular file in the way = %q, %v; want it untouched", b, err)
	}
}

func TestListenPathTooLong(t *testing.T) {
	path := filepath.Join(sockDir(t), strings.Repeat("d", 120), "forgesync.sock")
	_, err := Listen(path)
	if err == nil || !strings.Contains(err.Error(), "shorter path") {
		t.Fatalf("Listen(long path) = %v; want an error saying to use a shorter path", err)
	}
	// The fix it offers is a folder of forgesync's own, never a root.
	if !strings.Contains(err.Error(), "in a folder of its own, such as "+socketExample) {
		t.Errorf("Listen(long path) = %v; want it to offer a folder of its own, %s", err, socketExample)
	}
}

func TestListenMakesPathAbsolute(t *testing.T) {
	dir := sockDir(t)
	t.Chdir(dir)
	ln, err := Listen("forgesync.sock")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if got, want := ln.Addr().String(), filepath.Join(dir, "forgesync.sock"); got != want {
		t.Errorf("Listen(relative) address = %s; want %s", got, want)
	}
}

// TestStatusPID covers how Listen learns a running daemon's pid where the
// OS gives no peer credentials (macOS, Windows): from its /v1/status.
func TestStatusPID(t *testing.T) {
	s := startServer(t, newFakeBackend(), nil, ServerOptions{})
	conn, err := net.Dial("unix", s.path)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if got := statusPID(conn); got != os.Getpid() {
		t.Errorf("statusPID = %d; want %d", got, os.Getpid())
	}
	// A peer that is no daemon gives 0.
	a, b := net.Pipe()
	go func() { io.Copy(io.Discard, b); b.Close() }()
	a.Close()
	if got := statusPID(a); got != 0 {
		t.Errorf("statusPID(closed pipe) = %d; want 0", got)
	}
}
