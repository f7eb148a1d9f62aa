package pipeline

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/internal/errkind"
)

// TestRunnerStoppedAnswersAtOnce: a request arriving after the writer
// stopped (the daemon shutting down while a handler still runs) is answered
// at once as unavailable, not left waiting for its own context to end.
func TestRunnerStoppedAnswersAtOnce(t *testing.T) {
	e := newEnv(t)
	p := e.open(t)
	r := NewRunner(p, RunnerOptions{})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	if _, err := r.SyncDrop(t.Context()); err != nil {
		t.Fatalf("Sync while running = %v", err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run = %v; want nil on cancellation", err)
	}

	// The request's own context would end long after: the answer must
	// not wait for it.
	reqCtx, stop := context.WithTimeout(t.Context(), 3*time.Second)
	defer stop()
	calls := []struct {
		name string
		call func() error
	}{
		{"Enable", func() error { _, err := r.Enable(reqCtx, "pack-a"); return err }},
		{"Sync", func() error { _, err := r.SyncDrop(reqCtx); return err }},
		{"Claim", func() error { _, err := r.Claim(reqCtx, []string{"a.zip"}); return err }},
		{"Do", func() error { return r.Do(reqCtx, func(context.Context, *Pipeline) error { return nil }) }},
	}
	for _, c := range calls {
		err := c.call()
		if errkind.Of(err) != errkind.Unavailable || !errors.Is(err, errStopping) || reqCtx.Err() != nil {
			t.Fatalf("%s after the writer stopped = %v (kind %v, request context %v); want ErrStopping, unavailable, at once",
				c.name, err, errkind.Of(err), reqCtx.Err())
		}
	}
}
