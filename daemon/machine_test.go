package daemon

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/config"
	"github.com/mjolnir-forge/forgesync/installer/store"
	"github.com/mjolnir-forge/forgesync/internal/errkind"
	"github.com/mjolnir-forge/forgesync/pipeline"
)

// game lays out a game install under a short temp folder (a socket path
// must fit in 108 bytes) and returns the options of its machine.
func game(t *testing.T) Options {
	t.Helper()
	root, err := os.MkdirTemp("", "fsm")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	path := filepath.Join(root, "f.toml")
	text := "[paths]\nmods = \"mods\"\npaks = \"paks\"\nstate = \"state\"\nsocket = \"s.sock\"\n[deploy]\nnative = false\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(cfg.Paths.Drop, 0o755); err != nil {
		t.Fatal(err)
	}
	return Options{Config: cfg, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), LockWait: time.Second, Extractor: testExtractor}
}

// isRefused reports whether err is the request's fault by its kind
// (refused, not found, conflict): a command exits 1 on it (the CLI's one
// table of kinds, cmd/forgesync/cli, which checks that a failure read back
// from the daemon exits as the same failure decided locally).
func isRefused(err error) bool {
	switch errkind.Of(err) {
	case errkind.Refused, errkind.NotFound, errkind.Conflict:
		return true
	}
	return false
}

// TestLocal: without a daemon the state is opened under its lock, once;
// a pack not installed and a generation not kept are refusals.
func TestLocal(t *testing.T) {
	ctx := t.Context()
	m := New(game(t))
	defer m.Close()
	if c := m.Daemon(ctx); c != nil {
		t.Fatal("Daemon = a client; want none")
	}
	sum, err := m.SyncDrop(ctx)
	if err != nil || len(sum.Outcomes) != 0 {
		t.Fatalf("Sync = %+v, %v; want an empty run", sum, err)
	}
	if packs, err := m.Packs(ctx); err != nil || packs == nil || len(packs) != 0 {
		t.Errorf("Packs = %v, %v; want an empty list", packs, err)
	}
	if kept, err := m.Kept(ctx); err != nil || len(kept) != 0 {
		t.Errorf("Kept = %v, %v; want none", kept, err)
	}
	if _, err := m.Enable(ctx, "nope"); !isRefused(err) || !errors.Is(err, pipeline.ErrNotInstalled) {
		t.Errorf("Enable(nope) = %v; want a refusal, ErrNotInstalled", err)
	}
	if _, err := m.Rollback(ctx, 99); !isRefused(err) || !errors.Is(err, pipeline.ErrNoGeneration) {
		t.Errorf("Rollback(99) = %v; want a refusal, ErrNoGeneration", err)
	}
	// The lock is held until Close: a second machine's change waits, then
	// gives up; its reads need no lock, and answer.
	other := New(Options{Config: m.opts.Config, Log: m.opts.Log, LockWait: 10 * time.Millisecond, Extractor: m.opts.Extractor})
	if _, err := other.SyncDrop(ctx); !errors.Is(err, store.ErrLocked) {
		t.Errorf("Sync beside a machine holding the lock = %v; want a failure naming the holder", err)
	}
	if packs, err := other.Packs(ctx); err != nil || len(packs) != 0 {
		t.Errorf("Packs beside a machine holding the lock = %v, %v; want the empty list, read without the lock", packs, err)
	}
	other.Close()
}

// TestThroughDaemon: while a machine serves, another one's operations go
// through its daemon, whose refusals are refusals too, and Install says
// to drop the archive instead.
func TestThroughDaemon(t *testing.T) {
	opts := game(t)
	ctx, cancel := context.WithCancel(t.Context())
	started := make(chan struct{})
	served := make(chan error, 1)
	go func() {
		m := New(opts)
		defer m.Close()
		served <- m.Serve(ctx, ServeOptions{Version: "test", Started: func() { close(started) }})
	}()
	select {
	case <-started:
	case err := <-served:
		t.Fatalf("Serve = %v before it started", err)
	case <-time.After(20 * time.Second):
		t.Fatal("the daemon did not start")
	}
	m := New(opts)
	if m.Daemon(t.Context()) == nil {
		t.Fatal("Daemon = nil beside a serving machine")
	}
	if _, err := m.Enable(t.Context(), "nope"); !isRefused(err) || !errors.Is(err, errkind.NotFound) {
		t.Errorf("Enable(nope) through the daemon = %v; want a refusal, ErrNotFound", err)
	}
	if packs, err := m.Packs(t.Context()); err != nil || len(packs) != 0 {
		t.Errorf("Packs through the daemon = %v, %v", packs, err)
	}
	// Install goes through the daemon, by a copy under drop/.install/
	// that it removes afterwards.
	junk := filepath.Join(t.TempDir(), "x.zip")
	os.WriteFile(junk, []byte("not an archive"), 0o644)
	sum, err := m.Install(t.Context(), junk, pipeline.InstallOptions{Force: true})
	if err != nil || len(sum.Outcomes) != 1 || sum.Outcomes[0].Archive != "x.zip" || sum.Outcomes[0].Result != api.ResultRejected {
		t.Errorf("Install(junk) through the daemon = %+v, %v; want x.zip rejected", sum, err)
	}
	if left, _ := os.ReadDir(filepath.Join(opts.Config.Paths.Drop, ".install")); len(left) != 0 {
		t.Errorf("drop/.install holds %v after the install; want nothing", left)
	}
	if _, err := m.Install(t.Context(), filepath.Join(t.TempDir(), "gone.zip"), pipeline.InstallOptions{}); err == nil || !strings.Contains(err.Error(), "gone.zip") {
		t.Errorf("Install(a missing file) through the daemon = %v; want an error naming it", err)
	}
	m.Close()
	cancel()
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Serve = %v after cancel; want nil", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the daemon did not stop")
	}
}
