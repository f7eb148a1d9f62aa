package pipeline

import (
	"context"
	"sync"
	"testing"
	"time"
)

func TestRunnerSerialisesAndSnapshotsNeverWait(t *testing.T) {
	e := newEnv(t)
	p := e.open(t)
	var mu sync.Mutex
	var kinds []string
	afters := 0
	r := NewRunner(p, func(kind string, data any) {
		mu.Lock()
		kinds = append(kinds, kind)
		mu.Unlock()
	}, func(ctx context.Context, p *Pipeline) { afters++ })
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error)
	go func() { done <- r.Run(ctx) }()

	e.dropPack(t, "a.zip", spec{id: "pack-a", version: "1.0.0", doors: 1})
	e.dropPack(t, "b.zip", spec{id: "pack-b", version: "1.0.0", doors: 1, bad: true})
	sum, err := r.Sync(t.Context())
	if err != nil || len(sum.Outcomes) != 2 {
		t.Fatalf("Sync = %+v, %v", sum, err)
	}
	snap := r.Snapshot()
	if snap.State != "idle" || len(snap.Packs) != 1 || len(snap.Rejections) != 1 || snap.LastSync.Result != "rejected" {
		t.Fatalf("snapshot = %+v", snap)
	}
	if len(snap.Rejections[0].Reasons) == 0 {
		t.Fatalf("rejection without reasons: %+v", snap.Rejections[0])
	}

	// While the writer is busy, snapshots answer at once.
	release := make(chan struct{})
	busy := make(chan struct{})
	go r.Do(t.Context(), func(ctx context.Context, p *Pipeline) error {
		close(busy)
		<-release
		return nil
	})
	<-busy
	got := make(chan *Snapshot)
	go func() { got <- r.Snapshot() }()
	select {
	case s := <-got:
		if s.State != "syncing" {
			t.Errorf("state while busy = %q; want syncing", s.State)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Snapshot waited for the running transaction")
	}
	close(release)

	if _, err := r.Disable(t.Context(), "pack-a"); err != nil {
		t.Fatal(err)
	}
	if afters != 3 {
		t.Errorf("after hook ran %d times; want once per request (3)", afters)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run = %v; want nil on cancellation", err)
	}
	mu.Lock()
	defer mu.Unlock()
	want := map[string]bool{EventArchiveSeen: false, EventInstalled: false, EventRejected: false, EventPublished: false, EventProgress: false}
	for _, k := range kinds {
		want[k] = true
	}
	for k, seen := range want {
		if !seen {
			t.Errorf("no %s event; got %v", k, kinds)
		}
	}
}
