package daemon

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/api"
)

var fixedTime = time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)

func fixedClock() time.Time { return fixedTime }

// waitCtx is the deadline every wait of these tests has: a wait that does
// not end fails the test instead of hanging it.
func waitCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func publish(t testing.TB, e *Events, d api.EventData) api.Event {
	t.Helper()
	ev, err := e.Publish(d)
	if err != nil {
		t.Fatalf("Publish(%s) = %v", d.EventType(), err)
	}
	return ev
}

// next reads n events from s and fails unless they all come.
func next(t *testing.T, s *Subscription, n int) []api.Event {
	t.Helper()
	ctx := waitCtx(t)
	out := make([]api.Event, 0, n)
	for range n {
		ev, err := s.Next(ctx)
		if err != nil {
			t.Fatalf("Next after %d events = %v; want %d events", len(out), err, n)
		}
		out = append(out, ev)
	}
	return out
}

func ids(evs []api.Event) []uint64 {
	out := make([]uint64, len(evs))
	for i, ev := range evs {
		out[i] = ev.ID
	}
	return out
}

func wantIDs(t *testing.T, got []api.Event, from uint64) {
	t.Helper()
	for i, ev := range got {
		if want := from + uint64(i); ev.ID != want {
			t.Fatalf("event ids = %v; want consecutive from %d", ids(got), from)
		}
	}
}

func TestEventsConsecutiveIDsAndOrder(t *testing.T) {
	e := NewEvents(EventsOptions{Now: fixedClock})
	sub := e.Subscribe(0)
	defer sub.Close()
	data := []api.EventData{api.ArchiveSeen{Size: 0}, api.Progress{Done: 1}, api.PackInstalled{Version: "2"}, api.PackRejected{Pack: "3"},
		api.InventoryPublished{Packs: 4}, api.ModuleDeployed{Path: "5"}, api.Warning{Message: "6"}}
	var types []api.EventType
	for i, d := range data {
		types = append(types, d.EventType())
		ev := publish(t, e, d)
		if ev.ID != uint64(i+1) || !ev.Time.Equal(fixedTime) {
			t.Fatalf("Publish #%d = id %d time %v; want id %d time %v", i, ev.ID, ev.Time, i+1, fixedTime)
		}
	}
	got := next(t, sub, len(types))
	wantIDs(t, got, 1)
	for i, ev := range got {
		if ev.Type != types[i] {
			t.Errorf("event %d type = %s; want %s", ev.ID, ev.Type, types[i])
		}
		if d, err := ev.Decode(); err != nil || !reflect.DeepEqual(d, data[i]) {
			t.Errorf("event %d data = %s, decoded %#v, %v; want %#v", ev.ID, ev.Data, d, err, data[i])
		}
	}
	if got := e.LastID(); got != uint64(len(types)) {
		t.Errorf("LastID() = %d; want %d", got, len(types))
	}
}

func TestEventsSinceResume(t *testing.T) {
	e := NewEvents(EventsOptions{Ring: 8})
	for range 5 {
		publish(t, e, api.Progress{})
	}
	tests := []struct {
		name  string
		since uint64
		want  []uint64 // replayed, then 6 published live
	}{
		{"from start", 0, []uint64{1, 2, 3, 4, 5, 6}},
		{"resume", 3, []uint64{4, 5, 6}},
		{"up to date", 5, []uint64{6}},
		{"live", Live, []uint64{6}},
		{"restarted daemon", 99, []uint64{6}},
	}
	subs := make([]*Subscription, len(tests))
	for i, tc := range tests {
		subs[i] = e.Subscribe(tc.since)
		defer subs[i].Close()
	}
	publish(t, e, api.Warning{})
	for i, tc := range tests {
		got := ids(next(t, subs[i], len(tc.want)))
		if !equalIDs(got, tc.want) {
			t.Errorf("%s: Subscribe(%d) gave %v; want %v", tc.name, tc.since, got, tc.want)
		}
	}
}

func equalIDs(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestEventsGap checks that a subscriber asking for ids the ring no longer
// holds gets a first id greater than since+1.
func TestEventsGap(t *testing.T) {
	e := NewEvents(EventsOptions{Ring: 4})
	for range 10 {
		publish(t, e, api.Progress{})
	}
	sub := e.Subscribe(2)
	defer sub.Close()
	got := next(t, sub, 4)
	if got[0].ID != 7 {
		t.Fatalf("Subscribe(2) after 10 events with a ring of 4: first id %d; want 7 (a gap after 2)", got[0].ID)
	}
	wantIDs(t, got, 7)
}

// TestEventsSlowSubscriberDropped checks that a subscriber that does not
// read never holds up the publisher, gets what was buffered, then
// ErrSubscriberDropped, and that a resubscribe shows the gap.
func TestEventsSlowSubscriberDropped(t *testing.T) {
	e := NewEvents(EventsOptions{Ring: 16, Buffer: 4})
	slow := e.Subscribe(Live)
	fast := e.Subscribe(Live)
	defer fast.Close()

	published := make(chan struct{})
	go func() {
		defer close(published)
		for range 100 {
			if _, err := e.Publish(api.Progress{}); err != nil {
				t.Errorf("Publish = %v", err)
				return
			}
		}
	}()
	// The fast reader keeps up; the publisher must finish while the slow
	// one reads nothing.
	got := next(t, fast, 4)
	wantIDs(t, got, 1)
	fast.Close() // it cannot keep up with a goroutine that never waits either
	select {
	case <-published:
	case <-waitCtx(t).Done():
		t.Fatal("Publish blocked on a subscriber that does not read")
	}

	got = next(t, slow, 4)
	wantIDs(t, got, 1)
	if _, err := slow.Next(waitCtx(t)); !errors.Is(err, errSubscriberDropped) {
		t.Fatalf("Next after the buffer of a dropped subscriber = %v; want ErrSubscriberDropped", err)
	}
	if slow.LastID() != 4 {
		t.Fatalf("LastID() = %d; want 4", slow.LastID())
	}
	again := e.Subscribe(slow.LastID())
	defer again.Close()
	first := next(t, again, 1)[0]
	if first.ID <= slow.LastID()+1 {
		t.Fatalf("resubscribe after %d: first id %d; want a gap (the ring holds 16 of 100)", slow.LastID(), first.ID)
	}
}

func TestEventsCloseEndsSubscribers(t *testing.T) {
	e := NewEvents(EventsOptions{})
	sub := e.Subscribe(0)
	publish(t, e, api.Warning{Message: "disk nearly full"})
	e.Close()
	if got := next(t, sub, 1); string(got[0].Data) != `{"message":"disk nearly full"}` {
		t.Fatalf("event data = %s; want the buffered event", got[0].Data)
	}
	if _, err := sub.Next(waitCtx(t)); !errors.Is(err, errEventsClosed) {
		t.Fatalf("Next after Close = %v; want ErrEventsClosed", err)
	}
	if _, err := e.Publish(api.Warning{}); !errors.Is(err, errEventsClosed) {
		t.Fatalf("Publish after Close = %v; want ErrEventsClosed", err)
	}
	late := e.Subscribe(0)
	if got := next(t, late, 1); got[0].ID != 1 {
		t.Fatalf("Subscribe(0) after Close replays id %d; want 1", got[0].ID)
	}
	if _, err := late.Next(waitCtx(t)); !errors.Is(err, errEventsClosed) {
		t.Fatalf("Next of a subscription made after Close = %v; want ErrEventsClosed", err)
	}
	sub.Close()
	late.Close()
}

func TestEventsSubscriptionClose(t *testing.T) {
	e := NewEvents(EventsOptions{})
	sub := e.Subscribe(Live)
	sub.Close()
	sub.Close()
	if _, err := sub.Next(waitCtx(t)); !errors.Is(err, errSubscriptionClosed) {
		t.Fatalf("Next after Close = %v; want ErrSubscriptionClosed", err)
	}
	publish(t, e, api.Warning{}) // must not panic on a closed channel
}

func TestEventsNextHonoursContext(t *testing.T) {
	e := NewEvents(EventsOptions{})
	sub := e.Subscribe(Live)
	defer sub.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := sub.Next(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Next(cancelled) = %v; want context.Canceled", err)
	}
}

// TestEventsConcurrent runs publishers and subscribers together for the
// race detector, and checks every subscriber sees consecutive ids.
func TestEventsConcurrent(t *testing.T) {
	e := NewEvents(EventsOptions{Ring: 64, Buffer: 4096})
	const publishers, each = 4, 250
	var subs []*Subscription
	for range 3 {
		subs = append(subs, e.Subscribe(0))
	}
	var wg sync.WaitGroup
	for range publishers {
		wg.Go(func() {
			for range each {
				if _, err := e.Publish(api.Progress{}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	for _, s := range subs {
		wg.Go(func() {
			defer s.Close()
			ctx := waitCtx(t)
			for want := uint64(1); want <= publishers*each; want++ {
				ev, err := s.Next(ctx)
				if err != nil || ev.ID != want {
					t.Errorf("Next = id %d, %v; want id %d", ev.ID, err, want)
					return
				}
			}
		})
	}
	wg.Wait()
}
