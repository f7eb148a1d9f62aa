package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mjolnir-forge/forgesync/api"
)

// fakeBackend is an in-memory Backend. Mutations record their call, signal
// entered (when set), wait for release (when set) and return err (when set)
// or a small JSON result.
type fakeBackend struct {
	entered chan string   // receives "enable foo" when a mutation starts
	release chan struct{} // mutations wait for it to close

	mu         sync.Mutex // guards the fields below
	status     api.Status
	packs      []api.Pack
	rejections []api.Rejection
	err        error
	result     *api.Summary
	nilResult  bool // the backend answers with no summary and no error
	calls      []string
}

func newFakeBackend() *fakeBackend {
	return &fakeBackend{
		status: api.Status{State: api.StateIdle, StartedAt: fixedTime, Counts: api.Counts{Packs: 2, Enabled: 1, Pieces: 3}},
		packs: []api.Pack{
			{ID: "foundry-wide", Version: "1.4.0", Name: "Foundry Wide", Enabled: true, ArchiveSHA256: strings.Repeat("a", 64), Pieces: json.RawMessage(`[{"id":"lift_pad_4x4","kind":"block"}]`)},
			{ID: "gates", Version: "0.1.0", Name: "Gates", ArchiveSHA256: strings.Repeat("b", 64), Pieces: json.RawMessage(`[]`)},
		},
		rejections: []api.Rejection{{Archive: "bad.zip", Time: fixedTime, Pack: "bad-pack", Version: "1.0.0",
			Reasons: []api.Reason{{File: "forgepack.json", Path: "id", Line: 2, Column: 9, Rule: "pattern", Value: `"A"`, Message: "must be a pack slug"}}}},
	}
}

func (f *fakeBackend) Status() api.Status {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.status
}

func (f *fakeBackend) Packs() []api.Pack {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]api.Pack(nil), f.packs...)
}

func (f *fakeBackend) Rejections() []api.Rejection {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]api.Rejection(nil), f.rejections...)
}

func (f *fakeBackend) setErr(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.err = err
}

func (f *fakeBackend) callLog() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

func (f *fakeBackend) mutate(ctx context.Context, op, id string) (*api.Summary, error) {
	call := strings.TrimSpace(op + " " + id)
	f.mu.Lock()
	f.calls = append(f.calls, call)
	err, result := f.err, f.result
	f.mu.Unlock()
	if f.entered != nil {
		select {
		case f.entered <- call:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if f.release != nil {
		select {
		case <-f.release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", call, err)
	}
	if result != nil {
		return result, nil
	}
	if f.nilResult {
		return nil, nil
	}
	return &api.Summary{Outcomes: []api.Outcome{}, Published: []string{}, Warnings: []string{call}}, nil
}

func (f *fakeBackend) Enable(ctx context.Context, id string) (*api.Summary, error) {
	return f.mutate(ctx, "enable", id)
}

func (f *fakeBackend) Disable(ctx context.Context, id string) (*api.Summary, error) {
	return f.mutate(ctx, "disable", id)
}

func (f *fakeBackend) Remove(ctx context.Context, id string) (*api.Summary, error) {
	return f.mutate(ctx, "remove", id)
}

func (f *fakeBackend) SyncDrop(ctx context.Context) (*api.Summary, error) {
	return f.mutate(ctx, "sync", "")
}

func (f *fakeBackend) History() *api.History {
	return &api.History{Current: 2, KeptBytes: 1788, Generations: []api.HistoryGeneration{
		{Generation: api.Generation{N: 2, Time: fixedTime, Cause: "drop", Fingerprint: "sha256:ab",
			Packs: []api.GenerationPack{{ID: "foundry-wide", Version: "1.4.0", SHA256: strings.Repeat("a", 64), Enabled: true}}},
			Changes: []api.GenerationChange{{Kind: api.ChangeAdded, ID: "foundry-wide", Version: "1.4.0"}}},
	}}
}

func (f *fakeBackend) Rollback(ctx context.Context, n int) (*api.Summary, error) {
	return f.mutate(ctx, "rollback", fmt.Sprint(n))
}

// sockDir returns a short folder for sockets (sun_path holds 107 bytes,
// and t.TempDir's names can be longer than that).
func sockDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "fs")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// logBuffer collects log lines for assertions.
type logBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// testServer is a Serve running on a real socket.
type testServer struct {
	path   string
	client *Client
	ev     *Events
	b      *fakeBackend
	logs   *logBuffer
	stop   func() error // cancels Serve and returns what it returned
}

// startServer listens on a fresh socket and serves b until the test ends.
func startServer(t testing.TB, b *fakeBackend, ev *Events, opts ServerOptions) *testServer {
	t.Helper()
	if ev == nil {
		ev = NewEvents(EventsOptions{Now: fixedClock})
	}
	path := filepath.Join(sockDir(t), "forgesync.sock")
	ln, err := Listen(path)
	if err != nil {
		t.Fatalf("Listen(%s) = %v", path, err)
	}
	logs := &logBuffer{}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	if opts.Now == nil {
		opts.Now = fixedClock
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- Serve(ctx, ln, b, ev, opts) }()
	var once sync.Once
	var serveErr error
	stop := func() error {
		once.Do(func() {
			cancel()
			select {
			case serveErr = <-served:
			case <-waitCtx(t).Done():
				serveErr = fmt.Errorf("Serve did not return after its context was cancelled")
			}
		})
		return serveErr
	}
	c := NewClient(path)
	t.Cleanup(func() {
		c.Close()
		if err := stop(); err != nil {
			t.Errorf("Serve = %v; want nil after cancellation", err)
		}
	})
	return &testServer{path: path, client: c, ev: ev, b: b, logs: logs, stop: stop}
}
