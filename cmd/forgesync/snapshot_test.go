package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mjolnir-forge/forgesync/config"
	"github.com/mjolnir-forge/forgesync/daemon"
	"github.com/mjolnir-forge/forgesync/pipeline"
)

// TestSnapshotsDuringChanges hammers GET /v1/status and /v1/packs while the
// writer enables, disables, removes and reinstalls packs: every answer must
// be a whole one (a snapshot that shared its packs with the writer once
// made the handler dereference a pack the writer had just zeroed, and the
// client got an empty reply). Run it under -race.
func TestSnapshotsDuringChanges(t *testing.T) {
	root, err := os.MkdirTemp("", "fssnap")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	opts := pipeline.Options{Drop: filepath.Join(root, "drop"), Mods: filepath.Join(root, "mods"),
		Paks: filepath.Join(root, "paks"), State: filepath.Join(root, "state"), Extractor: daemon.SelfExtractor(config.Default())}
	p, _, err := pipeline.Open(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	r := pipeline.NewRunner(p, pipeline.RunnerOptions{})
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	wg.Go(func() { r.Run(ctx) })
	ln, err := daemon.Listen(filepath.Join(root, "s.sock"))
	if err != nil {
		t.Fatal(err)
	}
	wg.Go(func() {
		daemon.Serve(ctx, ln, daemon.NewBackend(r, nil), daemon.NewEvents(daemon.EventsOptions{}), daemon.ServerOptions{})
	})

	const packs = 6
	archives := make([][]byte, packs)
	for i := range packs {
		archives[i] = packZip(t, fmt.Sprintf("pack-%d", i), "1.0.0", 0)
	}
	install := func() {
		t.Helper()
		var names []string
		for i, data := range archives {
			name := fmt.Sprintf("p%d.zip", i)
			if err := os.WriteFile(filepath.Join(opts.Drop, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
			names = append(names, name)
		}
		if _, err := r.Claim(t.Context(), names); err != nil {
			t.Fatal(err)
		}
	}
	install()

	var answers, failures atomic.Int64
	var firstFailure atomic.Value
	c := daemon.NewClient(filepath.Join(root, "s.sock"))
	defer c.Close()
	readers, stop := context.WithCancel(t.Context())
	var rg sync.WaitGroup
	for range 4 {
		rg.Go(func() {
			for readers.Err() == nil {
				_, err1 := c.Status(readers)
				_, err2 := c.Packs(readers)
				for _, err := range []error{err1, err2} {
					if err != nil && readers.Err() == nil {
						failures.Add(1)
						firstFailure.CompareAndSwap(nil, err.Error())
					} else if err == nil {
						answers.Add(1)
					}
				}
			}
		})
	}
	for range 8 {
		for i := range packs {
			id := fmt.Sprintf("pack-%d", i)
			if _, err := r.Disable(t.Context(), id); err != nil {
				t.Fatal(err)
			}
			if _, err := r.Enable(t.Context(), id); err != nil {
				t.Fatal(err)
			}
		}
		for i := range packs {
			if _, err := r.Remove(t.Context(), fmt.Sprintf("pack-%d", i)); err != nil {
				t.Fatal(err)
			}
		}
		install()
	}
	stop()
	rg.Wait()
	t.Logf("%d whole answers, %d failed", answers.Load(), failures.Load())
	if n := failures.Load(); n > 0 {
		t.Fatalf("%d of %d reads failed during changes; first: %v", n, n+answers.Load(), firstFailure.Load())
	}
}
