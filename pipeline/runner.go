package pipeline

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mjolnir-forge/forgesync/inventory"
	"github.com/mjolnir-forge/forgesync/rejection"
)

// Runner is the single writer in a long-running process: one goroutine
// (Run) owns the Pipeline and applies requests one transaction at a time,
// while readers get an immutable Snapshot that never waits for a running
// sync.
type Runner struct {
	p       *Pipeline
	reqs    chan request
	snap    atomic.Pointer[Snapshot]
	onEvent func(kind string, data any)
	after   func(ctx context.Context, p *Pipeline)
	started time.Time

	mu    sync.Mutex // guards queue
	queue []string   // archives claimed or waiting for the writer
}

// Event kinds a Runner reports, with their data: archive-seen (the file
// name), progress (ProgressInfo), pack-installed and pack-rejected (an
// Outcome), inventory-published (the files rewritten) and warning (the
// message).
const (
	EventArchiveSeen = "archive-seen"
	EventProgress    = "progress"
	EventInstalled   = "pack-installed"
	EventRejected    = "pack-rejected"
	EventPublished   = "inventory-published"
	EventWarning     = "warning"
)

// Snapshot is the state as of the last finished transaction.
type Snapshot struct {
	State      string                    `json:"state"` // idle, syncing or error
	Started    time.Time                 `json:"started"`
	LastSync   *SyncInfo                 `json:"last_sync,omitempty"`
	Packs      []inventory.InstalledPack `json:"-"`
	Rejections []rejection.Record        `json:"rejections"`
	Warnings   []string                  `json:"warnings"`
	Queue      []string                  `json:"queue"` // archives waiting for or in the writer
}

// SyncInfo describes the last transaction.
type SyncInfo struct {
	Time     time.Time     `json:"time"`
	Result   string        `json:"result"` // ok, rejected or error
	Duration time.Duration `json:"duration_ns"`
	Error    string        `json:"error,omitempty"`
}

type request struct {
	do    func(ctx context.Context) (*Summary, error)
	reply chan result
	quiet bool // housekeeping: not reported as a sync
}

type result struct {
	sum *Summary
	err error
}

// progressEvery throttles progress events of one archive.
const progressEvery = 100 * time.Millisecond

// NewRunner wraps an open Pipeline. onEvent, when set, receives events
// from the writer goroutine (it must not block for long); after, when set,
// runs on the writer after every transaction (the daemon deploys scripts
// and the module there).
func NewRunner(p *Pipeline, onEvent func(kind string, data any), after func(ctx context.Context, p *Pipeline)) *Runner {
	r := &Runner{p: p, reqs: make(chan request), onEvent: onEvent, after: after, started: time.Now()}
	var last time.Time
	p.opts.Progress = func(archive string, done, total int64) {
		if now := time.Now(); now.Sub(last) >= progressEvery || (total > 0 && done >= total) {
			last = now
			r.emit(EventProgress, ProgressInfo{Archive: archive, Done: done, Total: total})
		}
	}
	r.refresh("idle", nil)
	return r
}

// ProgressInfo is the data of a progress event: bytes of an archive
// extracted so far, and the total (0 when unknown).
type ProgressInfo struct {
	Archive     string
	Done, Total int64
}

func (r *Runner) emit(kind string, data any) {
	if r.onEvent != nil {
		r.onEvent(kind, data)
	}
}

// Snapshot returns the latest snapshot; it never blocks on the writer.
func (r *Runner) Snapshot() *Snapshot {
	s := *r.snap.Load()
	r.mu.Lock()
	s.Queue = append([]string{}, r.queue...)
	r.mu.Unlock()
	return &s
}

func (r *Runner) enqueue(names []string) {
	r.mu.Lock()
	r.queue = append(r.queue, names...)
	r.mu.Unlock()
}

func (r *Runner) dequeue(names []string) {
	r.mu.Lock()
	for _, n := range names {
		if i := slices.Index(r.queue, n); i >= 0 {
			r.queue = slices.Delete(r.queue, i, i+1)
		}
	}
	r.mu.Unlock()
}

// Run applies requests until ctx ends; it returns nil on cancellation.
func (r *Runner) Run(ctx context.Context) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case req := <-r.reqs:
			r.setState("syncing")
			start := time.Now()
			sum, err := req.do(ctx)
			if r.after != nil && ctx.Err() == nil {
				r.after(ctx, r.p)
			}
			if req.quiet {
				r.setState("idle")
			} else {
				r.report(sum, err, start)
			}
			req.reply <- result{sum, err}
		}
	}
}

// submit hands work to the writer and waits for its result.
func (r *Runner) submit(ctx context.Context, do func(ctx context.Context) (*Summary, error)) (*Summary, error) {
	return r.send(ctx, request{do: do, reply: make(chan result, 1)})
}

func (r *Runner) send(ctx context.Context, req request) (*Summary, error) {
	select {
	case r.reqs <- req:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case res := <-req.reply:
		return res.sum, res.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Claim processes the named ready files of the drop folder as one batch.
func (r *Runner) Claim(ctx context.Context, names []string) (*Summary, error) {
	for _, n := range names {
		r.emit(EventArchiveSeen, n)
	}
	r.enqueue(names)
	defer r.dequeue(names)
	return r.submit(ctx, func(ctx context.Context) (*Summary, error) { return r.p.Claim(ctx, names) })
}

// Sync rescans the drop folder now and waits for the result.
func (r *Runner) Sync(ctx context.Context) (*Summary, error) {
	return r.submit(ctx, func(ctx context.Context) (*Summary, error) {
		names, err := ReadyArchives(r.p.opts.Drop)
		if err != nil {
			return nil, err
		}
		for _, n := range names {
			r.emit(EventArchiveSeen, n)
		}
		r.enqueue(names)
		defer r.dequeue(names)
		return r.p.Claim(ctx, names)
	})
}

// Enable, Disable and Remove change the installed set through the writer.
func (r *Runner) Enable(ctx context.Context, id string) (*Summary, error) {
	return r.submit(ctx, func(ctx context.Context) (*Summary, error) { return r.p.Enable(ctx, id) })
}

// Disable disables an installed pack through the writer.
func (r *Runner) Disable(ctx context.Context, id string) (*Summary, error) {
	return r.submit(ctx, func(ctx context.Context) (*Summary, error) { return r.p.Disable(ctx, id) })
}

// Remove uninstalls a pack through the writer.
func (r *Runner) Remove(ctx context.Context, id string) (*Summary, error) {
	return r.submit(ctx, func(ctx context.Context) (*Summary, error) { return r.p.Remove(ctx, id) })
}

// Do runs fn with the pipeline on the writer goroutine, for housekeeping
// that must not overlap a transaction; the after hook follows it, and it is
// not reported as a sync.
func (r *Runner) Do(ctx context.Context, fn func(ctx context.Context, p *Pipeline) error) error {
	_, err := r.send(ctx, request{do: func(ctx context.Context) (*Summary, error) { return &Summary{}, fn(ctx, r.p) },
		reply: make(chan result, 1), quiet: true})
	return err
}

func (r *Runner) setState(state string) {
	s := *r.snap.Load()
	s.State = state
	r.snap.Store(&s)
}

func (r *Runner) report(sum *Summary, err error, start time.Time) {
	info := &SyncInfo{Time: start.UTC(), Duration: time.Since(start), Result: "ok"}
	state := "idle"
	switch {
	case err != nil && errors.Is(err, ErrNotInstalled), err != nil && errors.Is(err, ErrRefused):
		info.Result, info.Error = "refused", err.Error()
	case err != nil:
		info.Result, info.Error, state = "error", err.Error(), "error"
		r.emit(EventWarning, err.Error())
	case sum.Rejected():
		info.Result = "rejected"
	}
	if sum != nil {
		for _, o := range sum.Outcomes {
			if o.Result == ResultRejected {
				r.emit(EventRejected, o)
			} else {
				r.emit(EventInstalled, o)
			}
		}
		if len(sum.Published) > 0 {
			r.emit(EventPublished, sum.Published)
		}
		for _, w := range sum.Warnings {
			r.emit(EventWarning, w)
		}
	}
	r.refresh(state, info)
}

// refresh builds a new snapshot on the writer goroutine.
func (r *Runner) refresh(state string, info *SyncInfo) {
	s := &Snapshot{State: state, Started: r.started, Warnings: []string{}}
	if old := r.snap.Load(); old != nil && info == nil {
		s.LastSync = old.LastSync
	} else {
		s.LastSync = info
	}
	if packs, err := r.p.Packs(); err == nil {
		// A copy: the writer's next transaction must not reach into a
		// snapshot readers hold.
		s.Packs = slices.Clone(packs)
		if _, ignored := inventory.LiftClasses(packs); len(ignored) > 0 {
			s.Warnings = append(s.Warnings, "lift classes the runtime ignores (over 16): "+strings.Join(ignored, ", "))
		}
	} else {
		s.Warnings = append(s.Warnings, err.Error())
	}
	rej, err := Rejections(r.p.opts.Drop, r.p.store.Dir)
	if err != nil {
		s.Warnings = append(s.Warnings, err.Error())
	}
	s.Rejections = rej
	r.snap.Store(s)
}
