package pipeline

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mjolnir-forge/forgesync/internal/errkind"
	"github.com/mjolnir-forge/forgesync/inventory"
	"github.com/mjolnir-forge/forgesync/inventory/rejection"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// errStopping is returned, at once, by a request that arrives after the
// Runner's Run has stopped (the daemon is shutting down): nothing will
// take it. Its kind is [errkind.Unavailable].
var errStopping = errkind.New(errkind.Unavailable, "stopping: the writer takes no more requests; try again when the daemon is back")

// Runner is the single writer in a long-running process: one goroutine
// (Run) owns the Pipeline and applies requests one transaction at a time,
// while readers get an immutable Snapshot that never waits for a running
// sync. The daemon serves it on the status socket.
type Runner struct {
	p    *Pipeline
	opts RunnerOptions
	reqs chan request
	// stopped is closed when Run returns: a request sent after it is
	// answered ErrStopping at once.
	stopped  chan struct{}
	stopOnce sync.Once
	snap     atomic.Pointer[Snapshot]
	started  time.Time
	// warned holds the deploy warnings logged by the last deploy; only Run's
	// goroutine touches it.
	warned map[string]bool

	mu    sync.Mutex // guards queue
	queue []string   // archives claimed or waiting for the writer
}

// RunnerOptions configure a Runner.
type RunnerOptions struct {
	// Deploy keeps the Lua scripts and the native module deployed (see
	// [Pipeline.Deploy]): when Run starts, after every request, and every
	// Redeploy period, since a game update can wipe them at any time.
	Deploy   bool
	Redeploy time.Duration
}

// LastSync is how the last finished sync went: when it started, how it
// ended, how long it took, the failure or what waits in plain words (when
// Result says it failed or waits), and a pass's archives counted by
// outcome (empty for a change to one pack and for a failed pass).
type LastSync struct {
	Time            time.Time
	Result          SyncResult
	DurationSeconds float64
	Error           string
	Results         map[Result]int
}

// SyncResult is how a sync ended.
type SyncResult string

// The ends of a sync.
const (
	SyncOK       SyncResult = "ok"
	SyncRejected SyncResult = "rejected" // an archive was rejected
	SyncWaiting  SyncResult = "waiting"  // an archive waits for the machine's condition to pass
	SyncRefused  SyncResult = "refused"  // the install rules refused a request
	SyncError    SyncResult = "error"    // it failed
)

// State is what the writer is doing.
type State string

// The writer's states.
const (
	StateIdle    State = "idle"
	StateSyncing State = "syncing" // a transaction runs
	StateError   State = "error"   // the last sync failed: LastSync.Error says why
)

// Snapshot is the state as of the last finished transaction. A snapshot
// shares nothing with the writer: readers may keep it.
type Snapshot struct {
	State      State
	Started    time.Time
	LastSync   *LastSync
	Packs      []inventory.InstalledPack
	Rejections []rejection.Record
	Warnings   []string
	Queue      []string // archives waiting for or in the writer
	Modules    *Modules // nil before the first deploy
	// History is the kept generations, newest first, and the disk their
	// archives take; nil when it could not be read.
	History *History
	// Profiles are the profiles kept on the machine; nil when they could
	// not be read.
	Profiles *ProfileList
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

// NewRunner wraps an open Pipeline.
func NewRunner(p *Pipeline, opts RunnerOptions) *Runner {
	r := &Runner{p: p, opts: opts, reqs: make(chan request), stopped: make(chan struct{}), started: time.Now()}
	r.refresh(StateIdle, nil)
	return r
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

// dequeue takes names off the queue, once each, in one sweep: status
// waits for r.mu, and a pass of 50,000 names must not hold it long.
func (r *Runner) dequeue(names []string) {
	gone := make(map[string]int, len(names))
	for _, n := range names {
		gone[n]++
	}
	r.mu.Lock()
	r.queue = slices.DeleteFunc(r.queue, func(n string) bool {
		if gone[n] == 0 {
			return false
		}
		gone[n]--
		return true
	})
	r.mu.Unlock()
}

// Run applies requests until ctx ends; it returns nil on cancellation.
// Requests sent once it has returned fail at once with [errStopping].
func (r *Runner) Run(ctx context.Context) error {
	defer r.stopOnce.Do(func() { close(r.stopped) })
	var tick <-chan time.Time
	if r.opts.Deploy && r.opts.Redeploy > 0 {
		t := time.NewTicker(r.opts.Redeploy)
		defer t.Stop()
		tick = t.C
	}
	r.deploy(ctx)
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick:
			r.p.BeginPass()
			if r.p.owes() {
				// What a pass left waiting (an inventory a game held, an
				// interrupted set apply, an archive of a failed pass) is
				// tried again even when nothing is dropped.
				r.setState(StateSyncing)
				start := time.Now()
				sum, err := r.p.Resume(ctx)
				r.report(sum, cutShort(ctx, err), start)
			}
			r.deploy(ctx)
		case req := <-r.reqs:
			r.p.BeginPass()
			r.setState(StateSyncing)
			start := time.Now()
			sum, err := req.do(ctx)
			err = cutShort(ctx, err)
			r.deploy(ctx)
			if req.quiet {
				r.setState(StateIdle)
			} else {
				r.report(sum, err, start)
			}
			req.reply <- result{sum, err}
		}
	}
}

// deploy redeploys the scripts and the module, when the Runner keeps them,
// and publishes what it found in the snapshot.
func (r *Runner) deploy(ctx context.Context) {
	if !r.opts.Deploy || ctx.Err() != nil {
		return
	}
	m, warnings := r.p.DeployModules(ctx)
	// A problem is logged when it appears, not again at every redeploy
	// while it lasts (status shows it all along).
	now := make(map[string]bool, len(warnings))
	for _, w := range warnings {
		if !r.warned[w] {
			r.p.log.Warn("deploy", slog.String("problem", w))
		}
		now[w] = true
	}
	r.warned = now
	s := *r.snap.Load()
	s.Modules = m
	r.snap.Store(&s)
}

// submit hands work to the writer and waits for its result.
func (r *Runner) submit(ctx context.Context, do func(ctx context.Context) (*Summary, error)) (*Summary, error) {
	return r.send(ctx, request{do: do, reply: make(chan result, 1)})
}

// send hands req to Run. A request Run never takes is answered at once
// with ErrStopping when Run has returned, and with ctx's error, of kind
// [errkind.Busy], when ctx ends first (the client went away).
func (r *Runner) send(ctx context.Context, req request) (*Summary, error) {
	select {
	case r.reqs <- req:
	case <-r.stopped:
		return nil, errStopping
	case <-ctx.Done():
		return nil, errkind.Wrap(errkind.Busy, ctx.Err())
	}
	// Run answers every request it takes, even while stopping.
	select {
	case res := <-req.reply:
		return res.sum, res.err
	case <-ctx.Done():
		return nil, errkind.Wrap(errkind.Busy, ctx.Err())
	}
}

// Claim processes the named ready files of the drop folder as one batch.
func (r *Runner) Claim(ctx context.Context, names []string) (*Summary, error) {
	r.enqueue(names)
	defer r.dequeue(names)
	return r.submit(ctx, func(ctx context.Context) (*Summary, error) { return r.p.Claim(ctx, names) })
}

// SyncDrop rescans the drop folder now and waits for the result; archives
// waiting for the machine's condition are tried at once (see FaultRetry).
func (r *Runner) SyncDrop(ctx context.Context) (*Summary, error) {
	return r.submit(ctx, func(ctx context.Context) (*Summary, error) {
		names, err := readyArchives(r.p.opts.Drop)
		if err != nil {
			return nil, err
		}
		r.p.retryNow()
		r.enqueue(names)
		defer r.dequeue(names)
		return r.p.claim(ctx, names, TriggerRequest)
	})
}

// Enable enables an installed pack through the writer.
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

// ApplySet applies a pack set through the writer; see Pipeline.ApplySet.
func (r *Runner) ApplySet(ctx context.Context, pins []lock.Entry, opts SetOptions) (*Summary, error) {
	return r.submit(ctx, func(ctx context.Context) (*Summary, error) { return r.p.ApplySet(ctx, pins, opts) })
}

// Rollback returns to generation n (0: the one before the current one)
// through the writer; see Pipeline.Rollback.
func (r *Runner) Rollback(ctx context.Context, n int) (*Summary, error) {
	return r.submit(ctx, func(ctx context.Context) (*Summary, error) { return r.p.Rollback(ctx, n) })
}

// SwitchProfile switches to profile name through the writer (see
// Pipeline.SwitchProfile).
func (r *Runner) SwitchProfile(ctx context.Context, name string) (*Summary, error) {
	return r.submit(ctx, func(ctx context.Context) (*Summary, error) { return r.p.SwitchProfile(ctx, name) })
}

// SaveProfile records the installed set as profile name through the
// writer (see Pipeline.SaveProfile).
func (r *Runner) SaveProfile(ctx context.Context, name string) error {
	return r.profileDo(ctx, func(ctx context.Context, p *Pipeline) error {
		_, err := p.SaveProfile(ctx, name)
		return err
	})
}

// RemoveProfile forgets profile name through the writer (see
// Pipeline.RemoveProfile).
func (r *Runner) RemoveProfile(ctx context.Context, name string) error {
	return r.profileDo(ctx, func(ctx context.Context, p *Pipeline) error { return p.RemoveProfile(ctx, name) })
}

// profileDo runs fn on the writer, as Do does, and puts the profiles it
// leaves in the snapshot (Do is housekeeping, which refreshes nothing).
func (r *Runner) profileDo(ctx context.Context, fn func(ctx context.Context, p *Pipeline) error) error {
	return r.Do(ctx, func(ctx context.Context, p *Pipeline) error {
		err := fn(ctx, p)
		if pl, lerr := p.Profiles(); lerr == nil {
			s := *r.snap.Load()
			s.Profiles = pl
			r.snap.Store(&s)
		}
		return err
	})
}

// Profiles returns the profiles of the latest snapshot; it never waits
// for the writer.
func (r *Runner) Profiles() (*ProfileList, error) {
	if pl := r.Snapshot().Profiles; pl != nil {
		return pl, nil
	}
	return ReadProfiles(r.p.store.Dir)
}

// Do runs fn with the pipeline on the writer goroutine, for housekeeping
// that must not overlap a transaction; it is not reported as a sync.
func (r *Runner) Do(ctx context.Context, fn func(ctx context.Context, p *Pipeline) error) error {
	_, err := r.send(ctx, request{do: func(ctx context.Context) (*Summary, error) { return &Summary{}, fn(ctx, r.p) },
		reply: make(chan result, 1), quiet: true})
	return err
}

// cutShort gives a request's error that says its transaction was cancelled
// a kind: unavailable when the Runner is stopping (ctx, Run's, ended), else
// busy; a cancelled request may succeed when sent again.
func cutShort(ctx context.Context, err error) error {
	if !errors.Is(err, context.Canceled) || errkind.Of(err) != errkind.Internal {
		return err
	}
	if ctx.Err() != nil {
		return errkind.Wrap(errkind.Unavailable, err)
	}
	return errkind.Wrap(errkind.Busy, err)
}

func (r *Runner) setState(state State) {
	s := *r.snap.Load()
	s.State = state
	r.snap.Store(&s)
}

func (r *Runner) report(sum *Summary, err error, start time.Time) {
	info := &LastSync{Time: start.UTC(), DurationSeconds: time.Since(start).Seconds(), Result: SyncOK}
	state := StateIdle
	switch {
	case err != nil && (errors.Is(err, errkind.Refused) || errors.Is(err, errkind.NotFound)):
		info.Result, info.Error = SyncRefused, err.Error()
	case err != nil && isFault(err):
		// A set or a rollback that a held file or a full disk stopped
		// before it changed anything: the machine's condition, not an
		// error of the daemon's.
		info.Result, info.Error = SyncWaiting, err.Error()
	case err != nil:
		info.Result, info.Error, state = SyncError, err.Error(), StateError
		r.p.obs.Warning(err.Error())
	case sum.Waiting():
		// The machine's condition, not an archive: status says which
		// archives wait and what to do.
		var why []string
		for _, r := range sum.Pending {
			why = append(why, r.Message)
		}
		for _, o := range sum.Outcomes {
			if o.Result == ResultWaiting {
				for _, rs := range o.Reasons {
					why = append(why, o.Archive+": "+rs.Message)
				}
			}
		}
		info.Result, info.Error = SyncWaiting, strings.Join(why, "; ")
	case sum.Rejected():
		info.Result = SyncRejected
	}
	if err == nil && sum != nil {
		for _, o := range sum.Outcomes {
			if info.Results == nil {
				info.Results = map[Result]int{}
			}
			info.Results[o.Result]++
		}
	}
	r.refresh(state, info)
}

// refresh builds a new snapshot on the writer goroutine.
func (r *Runner) refresh(state State, info *LastSync) {
	s := &Snapshot{State: state, Started: r.started, Warnings: []string{}}
	if old := r.snap.Load(); old != nil {
		s.Modules = old.Modules
		if info == nil {
			info = old.LastSync
		}
	}
	s.LastSync = info
	if packs, err := r.p.Packs(); err == nil {
		// A copy: the writer's next transaction must not reach into a
		// snapshot readers hold.
		s.Packs = slices.Clone(packs)
		if w := inventory.LiftClassWarning(packs); w != "" {
			s.Warnings = append(s.Warnings, w)
		}
	} else {
		s.Warnings = append(s.Warnings, err.Error())
	}
	if h, err := r.p.History(); err == nil {
		s.History = h // built afresh: shares nothing with the writer
	} else {
		s.Warnings = append(s.Warnings, err.Error())
	}
	if pl, err := r.p.Profiles(); err == nil {
		s.Profiles = pl // built afresh, like History
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

// Installed returns the installed packs of the latest snapshot as a set
// sees them; it never waits for the writer.
func (r *Runner) Installed() ([]lock.Installed, error) {
	return SetPacks(r.Snapshot().Packs), nil
}
