package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/mjolnir-forge/forgesync/api"
)

// Live, as the since of [Events.Subscribe], replays nothing and follows live
// events only.
const Live uint64 = math.MaxUint64

// Errors that end a [Subscription].
var (
	// errSubscriberDropped is returned by Subscription.Next after the
	// buffered events when the subscriber fell behind and was dropped so
	// that the publisher never waits for it.
	errSubscriberDropped = errors.New("daemon: event subscriber fell behind and was dropped; subscribe again with since set to the last id received")
	// errEventsClosed is returned by Publish and Subscription.Next once the
	// bus is closed.
	errEventsClosed = errors.New("daemon: event bus closed")
	// errSubscriptionClosed is returned by Subscription.Next after Close.
	errSubscriptionClosed = errors.New("daemon: subscription closed")
)

// Defaults of [EventsOptions].
const (
	defaultEventRing   = 4096
	defaultEventBuffer = 512
)

// EventsOptions configures an [Events] bus. Zero values take the defaults.
type EventsOptions struct {
	// Ring is how many of the latest events are held for replay.
	Ring int
	// Buffer is how many live events one subscriber may have waiting
	// before it is dropped.
	Buffer int
	// Now stamps events; time.Now by default. Tests pass a fixed clock.
	Now func() time.Time
}

// Events is the daemon's event bus: the pipeline publishes, the status
// socket's clients subscribe. Publish never blocks on a subscriber. The zero
// value is not usable; call [NewEvents].
type Events struct {
	now    func() time.Time
	buffer int

	mu     sync.Mutex  // guards the fields below
	ring   []api.Event // circular; the oldest held event is ring[head] once full
	head   int
	lastID uint64
	subs   map[*Subscription]struct{}
	closed bool
}

// NewEvents returns an empty bus.
func NewEvents(opts EventsOptions) *Events {
	if opts.Ring <= 0 {
		opts.Ring = defaultEventRing
	}
	if opts.Buffer <= 0 {
		opts.Buffer = defaultEventBuffer
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Events{
		now:    opts.Now,
		buffer: opts.Buffer,
		ring:   make([]api.Event, 0, opts.Ring),
		subs:   make(map[*Subscription]struct{}),
	}
}

// Publish stamps an event of d's type with the next id and the time,
// holds it in the ring and hands it to every subscriber. A subscriber whose
// buffer is full is dropped rather than waited for. Publish fails only when
// d does not marshal or the bus is closed; then no id is used.
func (e *Events) Publish(d api.EventData) (api.Event, error) {
	typ := d.EventType()
	raw, err := json.Marshal(d)
	if err != nil {
		return api.Event{}, fmt.Errorf("publish %s event: %w", typ, err)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return api.Event{}, fmt.Errorf("publish %s event: %w", typ, errEventsClosed)
	}
	e.lastID++
	ev := api.Event{ID: e.lastID, Time: e.now().UTC(), Type: typ, Data: raw}
	if len(e.ring) < cap(e.ring) {
		e.ring = append(e.ring, ev)
	} else {
		e.ring[e.head] = ev
		e.head = (e.head + 1) % len(e.ring)
	}
	for s := range e.subs {
		select {
		case s.ch <- ev:
		default:
			e.endLocked(s, errSubscriberDropped)
		}
	}
	return ev, nil
}

// Subscribe returns a subscription that first replays the held events whose
// id is greater than since, oldest first, then follows live events. When
// the ring no longer holds since+1 the first event has a greater id: that is
// how a subscriber tells it missed events. A since at or beyond the latest
// id (such as [Live]) replays nothing. The caller must Close the
// subscription.
func (e *Events) Subscribe(since uint64) *Subscription {
	s := &Subscription{bus: e, ch: make(chan api.Event, e.buffer)}
	e.mu.Lock()
	defer e.mu.Unlock()
	for i := range e.ring {
		ev := e.ring[(e.head+i)%len(e.ring)]
		if ev.ID > since {
			s.replay = append(s.replay, ev)
		}
	}
	if e.closed {
		s.err = errEventsClosed
		close(s.ch)
		return s
	}
	e.subs[s] = struct{}{}
	return s
}

// Close ends every subscription (their Next returns [errEventsClosed] after
// the buffered events) and refuses further events.
func (e *Events) Close() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closed = true
	for s := range e.subs {
		e.endLocked(s, errEventsClosed)
	}
}

// endLocked removes s from the bus and closes its channel, recording why.
// e.mu must be held.
func (e *Events) endLocked(s *Subscription, why error) {
	delete(e.subs, s)
	s.err = why
	close(s.ch)
}

// Subscription is one subscriber's view of an [Events] bus. Its methods are
// for one goroutine, except Close, which any goroutine may call.
type Subscription struct {
	bus    *Events
	replay []api.Event    // held events still to hand out, oldest first; owned by the reader
	ch     chan api.Event // live events; closed by the bus under bus.mu once err is set
	err    error          // why ch was closed; written under bus.mu before close(ch)
	last   uint64         // id of the last event Next returned; owned by the reader
}

// Next returns the next event, waiting for one while ctx lasts. When the
// subscription ends it returns, after the events still buffered,
// [errSubscriberDropped], [errEventsClosed] or [errSubscriptionClosed].
func (s *Subscription) Next(ctx context.Context) (api.Event, error) {
	if len(s.replay) > 0 {
		ev := s.replay[0]
		s.replay[0] = api.Event{}
		s.replay = s.replay[1:]
		s.last = ev.ID
		return ev, nil
	}
	select {
	case ev, ok := <-s.ch:
		if !ok {
			return api.Event{}, s.err
		}
		s.last = ev.ID
		return ev, nil
	case <-ctx.Done():
		return api.Event{}, ctx.Err()
	}
}

// LastID returns the id of the last event Next returned, 0 before the first.
func (s *Subscription) LastID() uint64 { return s.last }

// Close ends the subscription; Next then returns what is still buffered,
// then [errSubscriptionClosed]. Closing twice is harmless.
func (s *Subscription) Close() {
	s.bus.mu.Lock()
	defer s.bus.mu.Unlock()
	if _, ok := s.bus.subs[s]; ok {
		s.bus.endLocked(s, errSubscriptionClosed)
	}
}
