// Package watch owns the drop-folder watcher: file-system events from
// fsnotify, settle detection (an archive is ready once its size and
// modification time stay unchanged for the settle window), batching of the
// archives that become ready together, periodic rescans and a rescan of
// everything on an event overflow, with an injectable clock and event
// source for tests. It knows nothing of transactions: it hands the names
// of ready archives to a callback, which claims them.
package watch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Defaults of the batching window of a [Watcher], used when the matching
// [Options] field is zero.
const (
	// defaultBatchQuiet is how long nothing may happen in drop before the
	// archives that are ready are handed over together.
	defaultBatchQuiet = 50 * time.Millisecond
	// defaultBatchMaxWait is the longest an archive that is ready waits for
	// others still arriving; the default is the larger of this and four
	// times Settle.
	defaultBatchMaxWait = 10 * time.Second
)

// Options configures a [Watcher]. Drop, Settle, Rescan, Ignore and
// OnBatch are required; every other field has a default.
type Options struct {
	// Drop is the folder players drop archives into. A relative path is made
	// absolute when the Watcher is made, since a service starts in another
	// working directory.
	Drop string
	// Settle is how long an archive's size and modification time must stay
	// unchanged before it is ready (config watch.settle).
	Settle time.Duration
	// Rescan is the period of the full rescan of Drop, the safety net for
	// lost events (config watch.rescan). It also bounds every back-off.
	Rescan time.Duration
	// BatchQuiet and BatchMaxWait shape batches; see [Watcher]. Zero means
	// [defaultBatchQuiet] and [defaultBatchMaxWait].
	BatchQuiet   time.Duration
	BatchMaxWait time.Duration

	// Ignore reports whether a base name marks an unfinished download or a
	// temp file (SPEC §2). Such files are not tracked until renamed.
	Ignore func(name string) bool
	// OnBatch receives the names, relative to Drop and sorted, of archives
	// that are ready. It is called from Run's goroutine, one batch at a
	// time; events that arrive meanwhile wait in the kernel (an overflow
	// there leads to a full rescan). A non-nil error ends Run with that
	// error, unless ctx was cancelled.
	OnBatch func(ctx context.Context, names []string) error

	// OpenCheck reports, by returning nil, whether the file at path opens
	// for reading. Nil means opening it with os.Open and closing it again,
	// which on Windows fails with a sharing violation while a browser still
	// holds the download. Tests inject a failure to simulate such a lock.
	OpenCheck func(path string) error
	// Clock is the time source; nil means [systemClock].
	Clock Clock
	// NewSource makes the event source each time Drop is (re)watched; nil
	// means [newFSNotifySource].
	NewSource func() (EventSource, error)
	// Logger receives what the watcher notices; nil discards it.
	Logger *slog.Logger
}

// A Watcher reports the archives that land in one drop folder, in batches.
//
// A regular file directly in Drop is ready when its size and modification
// time have not changed for Settle and it opens for reading. A file that
// does not open (on Windows, one another program holds without sharing) is
// held and tried again after Settle, then after twice as long each time, up
// to Rescan; a change to it starts its settling again. Names for which
// Ignore reports true are never tracked, so a download is first seen when it
// is renamed to its real name. Folders in Drop (among them drop/rejected/)
// and their contents are never watched, scanned nor reported; other
// non-regular files are logged and left alone.
//
// Batching, after Syncthing's watch aggregator: ready archives collect in a
// batch, and OnBatch receives the batch at the first of
//   - BatchQuiet after the last activity, once no tracked file is still
//     settling (activity: a file appeared or changed), or
//   - BatchMaxWait after the batch's first archive became ready, however
//     busy Drop still is.
//
// So archives dropped together, whose settling overlaps, become one batch,
// while a lone archive goes as soon as it is ready: its settling was a
// quiet window (of Settle; when Settle is shorter than BatchQuiet, it
// waits the difference). An archive that
// changes while in the batch leaves it and settles again.
//
// Each appearance of a file is reported once. After OnBatch returns, the
// Watcher forgets the names it delivered; the pipeline is expected to move
// them out of Drop. A name still present afterwards (one the pipeline
// skipped) is found again by its next event or the next rescan, settles
// again and is reported again, so OnBatch must tolerate seeing a name twice.
//
// Safety nets: Drop is scanned fully when Run starts, every Rescan, and at
// once after the event source reports an error or an overflow. If Drop is
// deleted or replaced, it is created again (os.MkdirAll), watched again and
// scanned; if that fails, it is retried after Settle, then after twice as
// long each time, up to Rescan.
//
// When nothing happens (no file settling or held, no batch waiting), the only
// wake-up is the Rescan timer.
type Watcher struct {
	drop      string
	settle    time.Duration
	rescan    time.Duration
	quiet     time.Duration
	maxWait   time.Duration
	ignore    func(string) bool
	onBatch   func(context.Context, []string) error
	openCheck func(string) error
	clock     Clock
	newSource func() (EventSource, error)
	log       *slog.Logger
	running   atomic.Bool // Run is running

	// Test hooks, nil outside tests; called from Run's goroutine.
	hookWake    func()                        // on waking, before handling what woke it
	hookIdle    func(next time.Time)          // before blocking; next is the next wake-up
	hookSeen    func(name string, size int64) // a file's recorded state is new or changed
	hookWatched func()                        // Drop is watched and was scanned
}

// New checks opts and returns a Watcher; it touches no file.
func New(opts Options) (*Watcher, error) {
	var errs []error
	if opts.Drop == "" {
		//lint:ignore ST1005 the error starts with the Options field it is about, spelled as in Go
		errs = append(errs, errors.New("Drop is empty"))
	}
	if opts.Settle <= 0 {
		//lint:ignore ST1005 the error starts with the Options field it is about, spelled as in Go
		errs = append(errs, fmt.Errorf("Settle = %v: must be positive", opts.Settle))
	}
	if opts.Rescan <= 0 {
		//lint:ignore ST1005 the error starts with the Options field it is about, spelled as in Go
		errs = append(errs, fmt.Errorf("Rescan = %v: must be positive", opts.Rescan))
	}
	if opts.BatchQuiet < 0 {
		errs = append(errs, fmt.Errorf("BatchQuiet = %v: must not be negative", opts.BatchQuiet))
	}
	if opts.BatchMaxWait < 0 {
		errs = append(errs, fmt.Errorf("BatchMaxWait = %v: must not be negative", opts.BatchMaxWait))
	}
	if opts.Ignore == nil {
		//lint:ignore ST1005 the error starts with the Options field it is about, spelled as in Go
		errs = append(errs, errors.New("Ignore is nil"))
	}
	if opts.OnBatch == nil {
		errs = append(errs, errors.New("OnBatch is nil"))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("watch options: %w", err)
	}
	drop, err := filepath.Abs(opts.Drop)
	if err != nil {
		return nil, fmt.Errorf("watch options: Drop %s: %w", opts.Drop, err)
	}
	w := &Watcher{
		drop:      drop,
		settle:    opts.Settle,
		rescan:    opts.Rescan,
		quiet:     opts.BatchQuiet,
		maxWait:   opts.BatchMaxWait,
		ignore:    opts.Ignore,
		onBatch:   opts.OnBatch,
		openCheck: opts.OpenCheck,
		clock:     opts.Clock,
		newSource: opts.NewSource,
		log:       opts.Logger,
	}
	if w.quiet == 0 {
		w.quiet = defaultBatchQuiet
	}
	if w.maxWait == 0 {
		w.maxWait = max(defaultBatchMaxWait, 4*w.settle)
	}
	if w.openCheck == nil {
		w.openCheck = openForReading
	}
	if w.clock == nil {
		w.clock = osClock()
	}
	if w.newSource == nil {
		w.newSource = newFSNotifySource
	}
	if w.log == nil {
		w.log = slog.New(slog.DiscardHandler)
	}
	return w, nil
}

// openForReading opens the file at path for reading and closes it again.
func openForReading(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	return f.Close()
}

// Run watches Drop until ctx is cancelled, calling OnBatch with the archives
// that are ready. It returns nil on cancellation, an error if Drop cannot be
// created or watched when Run starts, and the error of OnBatch if it fails.
// Run may be called again after it returned, not twice at once.
func (w *Watcher) Run(ctx context.Context) error {
	if !w.running.CompareAndSwap(false, true) {
		return fmt.Errorf("watch %s: already running", w.drop)
	}
	defer w.running.Store(false)
	r := &watchRun{w: w, files: make(map[string]*watchedFile)}
	defer r.unwatch()
	if err := r.watch(w.clock.Now()); err != nil {
		return fmt.Errorf("watch %s: %w", w.drop, err)
	}
	timer := w.clock.NewTimer(w.rescan)
	defer timer.Stop()
	for {
		if err := r.due(ctx, w.clock.Now()); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		next := r.next()
		timer.Reset(next.Sub(w.clock.Now()))
		if w.hookIdle != nil {
			w.hookIdle(next)
		}
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-r.events:
			w.woke()
			if !ok {
				r.lost(w.clock.Now())
				continue
			}
			r.event(w.clock.Now(), ev)
		case err, ok := <-r.errs:
			w.woke()
			if !ok {
				r.lost(w.clock.Now())
				continue
			}
			r.sourceError(w.clock.Now(), err)
		case <-timer.C():
			w.woke()
		}
	}
}

// woke calls the wake-up test hook, if any.
func (w *Watcher) woke() {
	if w.hookWake != nil {
		w.hookWake()
	}
}

// fileState is where a tracked file is on its way to a batch.
type fileState int

const (
	settling fileState = iota // changed less than Settle ago, or not checked since
	held                      // unchanged, but did not open for reading
	ready                     // in the batch
	skipped                   // not a regular file; logged, never reported
)

// watchedFile is what a Watcher remembers of one name in Drop.
type watchedFile struct {
	state   fileState
	size    int64
	mod     time.Time
	since   time.Time     // settling: when the file was last seen to change
	retry   time.Time     // held: when to try opening it again
	backoff time.Duration // held: the wait before retry
}

// watchRun is the state of one call of Run; only Run's goroutine uses it.
type watchRun struct {
	w *Watcher

	src      EventSource
	events   <-chan fsnotify.Event // nil while Drop is not watched
	errs     <-chan error          // nil while Drop is not watched
	dropInfo fs.FileInfo           // identity of the watched Drop

	rewatchAt    time.Time // when to try watching Drop again; zero if watched
	rewatchDelay time.Duration
	rescanAt     time.Time

	files      map[string]*watchedFile
	nReady     int
	batchStart time.Time // when the batch's first archive became ready
	activity   time.Time // when a file last appeared or changed
}

// watch (re)creates Drop, watches it with a new event source and scans it.
func (r *watchRun) watch(now time.Time) error {
	r.unwatch()
	if err := os.MkdirAll(r.w.drop, 0o755); err != nil {
		return err
	}
	src, err := r.w.newSource()
	if err != nil {
		return fmt.Errorf("start event source: %w", err)
	}
	if err := src.Add(r.w.drop); err != nil {
		src.Close()
		return fmt.Errorf("add watch: %w", err)
	}
	// Stat after Add, so that a replacement between the two is caught by
	// the next scan's identity check rather than missed.
	info, err := os.Stat(r.w.drop)
	if err == nil && !info.IsDir() {
		err = fmt.Errorf("stat %s: not a folder", r.w.drop)
	}
	if err != nil {
		src.Close()
		return err
	}
	// On Windows os.SameFile reads the file ID lazily, from the path; read
	// it now, while the path still names this folder.
	os.SameFile(info, info)
	r.src, r.events, r.errs, r.dropInfo = src, src.Events(), src.Errors(), info
	r.rewatchAt, r.rewatchDelay = time.Time{}, 0
	r.w.log.Debug("watching drop folder", "path", r.w.drop)
	r.rescanAt = now.Add(r.w.rescan)
	r.read(now)
	if r.w.hookWatched != nil {
		r.w.hookWatched()
	}
	return nil
}

// unwatch closes the event source, if any.
func (r *watchRun) unwatch() {
	if r.src == nil {
		return
	}
	if err := r.src.Close(); err != nil {
		r.w.log.Warn("closing the drop folder's watcher failed", "path", r.w.drop, "err", err)
	}
	r.src, r.events, r.errs, r.dropInfo = nil, nil, nil, nil
}

// rewatch tries to watch Drop again at once, and schedules another try with
// back-off if that fails.
func (r *watchRun) rewatch(now time.Time) {
	err := r.watch(now)
	if err == nil {
		r.w.log.Info("watching the drop folder again", "path", r.w.drop)
		return
	}
	r.scheduleRewatch(now)
	r.w.log.Warn("cannot watch the drop folder; will retry", "path", r.w.drop, "err", err, "retry_in", r.rewatchDelay)
}

// scheduleRewatch sets the next try to watch Drop: after Settle, then
// twice as long as the time before, up to Rescan.
func (r *watchRun) scheduleRewatch(now time.Time) {
	if r.rewatchDelay == 0 {
		r.rewatchDelay = min(r.w.settle, r.w.rescan)
	} else {
		r.rewatchDelay = min(2*r.rewatchDelay, r.w.rescan)
	}
	r.rewatchAt = now.Add(r.rewatchDelay)
}

// lost handles an event source that stopped on its own: Drop is watched
// again after a pause, so that a source that keeps stopping cannot make the
// watcher spin.
func (r *watchRun) lost(now time.Time) {
	r.unwatch()
	r.scheduleRewatch(now)
	r.w.log.Warn("drop folder watcher stopped; will watch again", "path", r.w.drop, "retry_in", r.rewatchDelay)
}

// sourceError handles an error from the event source. Events may have been
// lost either way, so Drop is scanned fully rather than guessed at.
func (r *watchRun) sourceError(now time.Time, err error) {
	if errors.Is(err, fsnotify.ErrEventOverflow) {
		r.w.log.Info("drop folder events overflowed; rescanning", "path", r.w.drop)
	} else {
		r.w.log.Warn("drop folder watcher error; rescanning", "path", r.w.drop, "err", err)
	}
	r.scan(now)
}

// scan is a full rescan: it reads Drop and brings the tracked files in line
// with it. If Drop is gone or was replaced, it is watched again instead
// (which reads it).
func (r *watchRun) scan(now time.Time) {
	r.rescanAt = now.Add(r.w.rescan)
	if r.src == nil {
		return // a rewatch is scheduled and will scan
	}
	info, err := os.Stat(r.w.drop)
	if err != nil || !os.SameFile(info, r.dropInfo) {
		r.w.log.Info("drop folder was removed or replaced", "path", r.w.drop)
		r.unwatch()
		r.rewatch(now)
		return
	}
	r.read(now)
}

// read lists Drop and brings the tracked files in line with it.
func (r *watchRun) read(now time.Time) {
	entries, err := os.ReadDir(r.w.drop)
	if err != nil {
		r.w.log.Warn("cannot read the drop folder; will rescan", "path", r.w.drop, "err", err)
		return
	}
	present := make(map[string]bool, len(entries))
	for _, de := range entries {
		name := de.Name()
		if de.IsDir() || r.w.ignore(name) {
			continue
		}
		info, err := de.Info()
		if err != nil {
			continue // gone since ReadDir
		}
		present[name] = true
		r.observe(now, name, info, false)
	}
	for name := range r.files {
		if !present[name] {
			r.forget(name)
		}
	}
}

// event handles one event from the source.
func (r *watchRun) event(now time.Time, ev fsnotify.Event) {
	path := filepath.Clean(eventPath(ev.Name))
	if path == r.w.drop {
		if !ev.Has(fsnotify.Remove) && !ev.Has(fsnotify.Rename) {
			return // a change to Drop's own attributes
		}
		// Drop itself was removed or renamed away; its watch is gone.
		r.w.log.Info("drop folder was removed or renamed", "path", r.w.drop, "op", ev.Op.String())
		r.unwatch()
		r.rewatch(now)
		return
	}
	if filepath.Dir(path) != r.w.drop {
		return // not directly in Drop
	}
	name := filepath.Base(path)
	if r.w.ignore(name) {
		return
	}
	info, err := os.Lstat(path)
	if err != nil || info.IsDir() {
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			r.w.log.Warn("cannot stat a file in the drop folder", "path", path, "err", err)
		}
		r.forget(name)
		return
	}
	r.observe(now, name, info, ev.Op != fsnotify.Chmod)
}

// observe records what a stat of name in Drop found. A change to the size
// or modification time, or an event other than a bare chmod (touched), starts
// the file's settling over.
func (r *watchRun) observe(now time.Time, name string, info fs.FileInfo, touched bool) {
	f, ok := r.files[name]
	if !info.Mode().IsRegular() {
		if ok && f.state == skipped {
			return
		}
		if ok {
			r.forget(name)
		}
		r.files[name] = &watchedFile{state: skipped}
		r.w.log.Warn("not a regular file; leaving it in the drop folder", "path", filepath.Join(r.w.drop, name), "mode", info.Mode().String())
		return
	}
	if !ok {
		f = &watchedFile{}
		r.files[name] = f
	}
	changed := !ok || f.state == skipped || f.size != info.Size() || !f.mod.Equal(info.ModTime())
	if !changed && !touched {
		return
	}
	if changed {
		f.size, f.mod = info.Size(), info.ModTime()
		if r.w.hookSeen != nil {
			r.w.hookSeen(name, f.size)
		}
	}
	r.startSettling(now, f)
}

// startSettling puts f back at the start of its settling.
func (r *watchRun) startSettling(now time.Time, f *watchedFile) {
	if f.state == ready {
		r.nReady--
	}
	f.state, f.since, f.backoff = settling, now, 0
	r.activity = now
}

// forget drops name, which left Drop, from the tracked files and the batch.
func (r *watchRun) forget(name string) {
	if f, ok := r.files[name]; ok {
		if f.state == ready {
			r.nReady--
		}
		delete(r.files, name)
	}
}

// check looks again at a file whose settling or hold is over: if it is
// unchanged and opens for reading, it joins the batch.
func (r *watchRun) check(now time.Time, name string, f *watchedFile) {
	path := filepath.Join(r.w.drop, name)
	info, err := os.Lstat(path)
	if err != nil || !info.Mode().IsRegular() {
		if err == nil {
			r.observe(now, name, info, false)
		} else {
			r.forget(name)
		}
		return
	}
	if f.size != info.Size() || !f.mod.Equal(info.ModTime()) {
		r.observe(now, name, info, false)
		return
	}
	err = r.w.openCheck(path)
	if err == nil {
		// A writer that shares the file for reading may still be at work:
		// look once more, after the open.
		if info, err := os.Lstat(path); err != nil || f.size != info.Size() || !f.mod.Equal(info.ModTime()) {
			if err == nil {
				r.observe(now, name, info, false)
			} else {
				r.forget(name)
			}
			return
		}
	}
	switch {
	case err == nil:
		if f.state == held {
			r.w.log.Info("archive can be opened now", "archive", name)
		}
		f.state = ready
		if r.nReady == 0 {
			r.batchStart = now
		}
		r.nReady++
		// Becoming ready is no activity: the file's own settling was a
		// quiet window, so a lone archive goes the moment it is ready.
	case errors.Is(err, fs.ErrNotExist):
		r.forget(name)
	default:
		if f.state != held {
			if isInUse(err) {
				r.w.log.Info("archive is in use by another program; waiting", "archive", name, "err", err)
			} else {
				r.w.log.Warn("cannot open archive; will retry", "archive", name, "err", err)
			}
			f.state, f.backoff = held, min(r.w.settle, r.w.rescan)
		} else {
			r.w.log.Debug("archive still does not open", "archive", name, "err", err)
			f.backoff = min(2*f.backoff, r.w.rescan)
		}
		f.retry = now.Add(f.backoff)
	}
}

// due does whatever is due at now: a rewatch, a rescan, the checks of files
// whose settling or hold is over, and the delivery of the batch.
func (r *watchRun) due(ctx context.Context, now time.Time) error {
	if !r.rewatchAt.IsZero() && !now.Before(r.rewatchAt) {
		r.rewatch(now)
	}
	if !now.Before(r.rescanAt) {
		r.scan(now)
	}
	for name, f := range r.files {
		switch {
		case f.state == settling && !now.Before(f.since.Add(r.w.settle)),
			f.state == held && !now.Before(f.retry):
			r.check(now, name, f)
		}
	}
	if deliver, _ := r.batchDue(now); deliver {
		return r.deliver(ctx)
	}
	return nil
}

// batchDue reports whether the batch is to be delivered at now, and if not,
// when it will be at the latest as things stand (zero if there is no batch).
func (r *watchRun) batchDue(now time.Time) (bool, time.Time) {
	if r.nReady == 0 {
		return false, time.Time{}
	}
	at := r.batchStart.Add(r.w.maxWait)
	if !r.anySettling() {
		at = minTime(at, r.activity.Add(r.w.quiet))
	}
	return !now.Before(at), at
}

func (r *watchRun) anySettling() bool {
	for _, f := range r.files {
		if f.state == settling {
			return true
		}
	}
	return false
}

// deliver hands the batch to OnBatch and forgets its names.
func (r *watchRun) deliver(ctx context.Context) error {
	names := make([]string, 0, r.nReady)
	for name, f := range r.files {
		if f.state == ready {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		delete(r.files, name)
	}
	r.nReady, r.batchStart = 0, time.Time{}
	r.w.log.Info("archives ready", "path", r.w.drop, "count", len(names))
	if err := r.w.onBatch(ctx, names); err != nil {
		return fmt.Errorf("watch %s: batch of %d archives: %w", r.w.drop, len(names), err)
	}
	return nil
}

// next returns the time of the next thing due.
func (r *watchRun) next() time.Time {
	t := r.rescanAt
	if !r.rewatchAt.IsZero() {
		t = minTime(t, r.rewatchAt)
	}
	for _, f := range r.files {
		switch f.state {
		case settling:
			t = minTime(t, f.since.Add(r.w.settle))
		case held:
			t = minTime(t, f.retry)
		}
	}
	if _, at := r.batchDue(time.Time{}); !at.IsZero() {
		t = minTime(t, at)
	}
	return t
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}
