// Package follow owns making a machine follow a pack set (SPEC §10.2,
// §10.3): fetching a lock conditionally and checking its signature,
// downloading the archives the machine lacks into the bounded cache
// (state/cache/), applying the set through the pipeline's single writer as
// one transaction, following [sets] source, and remembering the set in
// state/set.json so that a check with nothing new costs one conditional
// request and publishes nothing. It is the glue between the set packages (which
// know nothing of the pipeline) and the pipeline (which knows nothing of
// HTTP). It reports in its own values ([Result], [Check], [Status]) and
// through its [Observer]; the daemon turns them into wire shapes.
package follow

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"aead.dev/minisign"

	"github.com/mjolnir-forge/forgesync/installer/store"
	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
	"github.com/mjolnir-forge/forgesync/internal/errkind"
	"github.com/mjolnir-forge/forgesync/internal/strictjson"
	"github.com/mjolnir-forge/forgesync/pipeline"
	"github.com/mjolnir-forge/forgesync/sets/casync"
	"github.com/mjolnir-forge/forgesync/sets/fetch"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// Names under the state folder.
const (
	// recordName is the file that remembers the set (state/set.json).
	recordName = "set.json"
	// maxRecordBytes bounds RecordName: the set's lock and a few fields.
	maxRecordBytes = 4 * lock.MaxLockBytes
	// CacheDir is the folder of downloaded archives (state/cache/).
	CacheDir = "cache"
	// recordFormat is the format key of set.json.
	recordFormat = "forgesync-set"
)

// downloadEvery throttles the download events of one archive.
const downloadEvery = 100 * time.Millisecond

// Writer applies a set as one transaction and tells which packs are
// installed: a [pipeline.Pipeline] in a command that holds the state, the
// [pipeline.Runner] in the daemon.
type Writer interface {
	ApplySet(ctx context.Context, pins []lock.Entry, opts pipeline.SetOptions) (*pipeline.Summary, error)
	Installed() ([]lock.Installed, error)
}

// Options configure a Syncer.
type Options struct {
	// State is the state folder: set.json and cache/ live there, and the
	// kept archives under archives/ are looked up.
	State string
	// Follow is the lock the daemon follows ([sets] source); empty: none.
	Follow string
	// TrustedKeys, when set, refuse a lock without a valid signature by
	// one of them.
	TrustedKeys []minisign.PublicKey
	// CacheMax bounds the cache; 0 or less: no bound.
	CacheMax int64
	// MaxStageBytes bounds what one stage fetches ([sets]
	// max_stage_bytes); 0 or less: no bound.
	MaxStageBytes int64
	// Fetcher is the template of every fetch (client, tries, delays); its
	// Dir and Progress are set by the Syncer.
	Fetcher fetch.Fetcher
	// Chunks, when set, is the machine's own chunk store, which it shares
	// with LAN peers (SPEC §13): every chunk a delta update fetches lands
	// there too. Empty: chunks are not kept.
	Chunks string
	// Observer, when set, hears each check and download (the pipeline's
	// observer hears the apply).
	Observer Observer
	Log      *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Ticks returns the ticks of Run's checks, every interval, and how to
	// stop them; nil means a time.Ticker.
	Ticks func(interval time.Duration) (<-chan time.Time, func())
}

// Request is one sync: a lock's location, or a lock's text with its
// signature (then relative URLs have nothing to resolve against).
type Request struct {
	Source string // a path, folder, file: or http(s) URL, or oci:// reference
	// From is Source as fetch.LockSource read it, for a caller that
	// did so already: the source is then not read a second time. When
	// set, Source is ignored.
	From      fetch.Source
	Lock      []byte
	Signature []byte
	Prune     bool
	// follow: apply only a set that changed since the last apply from
	// this source, so that packs dropped by hand stay until the set
	// changes (SPEC §10.2).
	follow bool
}

// remote reports whether the lock is read from a source, not given.
func (r Request) remote() bool { return r.Source != "" || r.From != (fetch.Source{}) }

// Record is what state/set.json remembers of the last set read: the lock
// itself (so that a 304 needs nothing more), the server's validators, and
// the last check and apply.
type Record struct {
	Format      string           `json:"format"`
	Source      string           `json:"source"`
	Name        string           `json:"name,omitempty"`
	Fingerprint string           `json:"fingerprint"`
	Lock        string           `json:"lock"`
	Signature   string           `json:"signature,omitempty"`
	Validators  fetch.Validators `json:"validators"`
	SignedBy    string           `json:"signed_by,omitempty"`
	// Applied is the fingerprint of the set last applied whole from
	// Source.
	Applied   string       `json:"applied,omitempty"`
	LastCheck *StoredCheck `json:"last_check,omitempty"`
	LastApply *StoredApply `json:"last_apply,omitempty"`
	// LastDownload is the last check from Source that downloaded an
	// archive, with its delta figures: they stay until the next download.
	LastDownload *StoredCheck `json:"last_download,omitempty"`
	// Serial and Expires are the lock's (SPEC §10.2c); 0 and nil when it
	// has none.
	Serial  int64      `json:"serial,omitempty"`
	Expires *time.Time `json:"expires,omitempty"`
	// Serials are the freshest lock applied from each source, by source
	// (at most maxSerials, the oldest forgotten first): a lock from there
	// with a lower serial is a replay (SPEC §10.2c).
	Serials map[string]lock.Applied `json:"serials,omitempty"`
	// Paused, when set, says a set applied by hand pinned the machine:
	// the follower checks nothing until following is resumed.
	Paused *Pause `json:"paused,omitempty"`
}

// maxSerials bounds Record.Serials: a machine follows one source, and a
// host tries a few.
const maxSerials = 256

// view is the record and its decoded pins, for readers.
type view struct {
	rec  Record
	pins []lock.Entry
}

// Syncer makes a machine equal to a pack set. Its methods are safe for
// concurrent use: syncs run one at a time (one download into the cache at
// a time, and eviction never during one), and a sync asked for while
// another runs is refused at once with ErrSyncRunning rather than queued
// behind a download that may take long; readers never wait for a sync.
type Syncer struct {
	opts  Options
	w     Writer
	obs   Observer // Options.Observer, or a NopObserver
	cache *fetch.Cache
	mu    sync.Mutex // serialises syncs, the record file and eviction
	// since is when the running sync started (Unix nanoseconds), 0 when
	// none runs; set and cleared while holding mu.
	since atomic.Int64
	view  atomic.Pointer[view]
}

// New returns a Syncer on the state folder, reading set.json. A damaged
// set.json is logged and forgotten: it only remembers a set, and the next
// check reads the set again.
func New(w Writer, opts Options) (*Syncer, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	cache, err := fetch.NewCache(filepath.Join(opts.State, CacheDir), opts.CacheMax, opts.Now)
	if err != nil {
		return nil, err
	}
	s := &Syncer{opts: opts, w: w, cache: cache, obs: opts.Observer}
	if s.obs == nil {
		s.obs = NopObserver{}
	}
	v := &view{}
	data, err := atomicfile.ReadFile(s.recordPath(), maxRecordBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case errors.Is(err, atomicfile.ErrNotRegular) || errors.Is(err, atomicfile.ErrTooLarge):
		return nil, fmt.Errorf("set record: %w; move it aside: forgesync then reads the set again and writes a new one", err)
	case err != nil:
		return nil, fmt.Errorf("read %s: %w", s.recordPath(), err)
	default:
		rec, err := decodeRecord(data)
		if err != nil {
			opts.Log.Warn("forgetting a damaged set record; the next check reads the set again", "path", s.recordPath(),
				"err", fmt.Errorf("%s: %w", s.recordPath(), err))
			break
		}
		v.rec = rec
		// A record of an older version may hold a password: it goes now.
		scrubbed := v.rec.scrub()
		if l, err := lock.Decode(v.rec.Source, []byte(v.rec.Lock), lock.DecodeOptions{Have: lock.HaveAll}); err == nil {
			v.pins = l.Entries()
		}
		if scrubbed {
			if err := s.save(v.rec, v.pins); err != nil {
				opts.Log.Warn("could not remove the passwords from the set record; removed when it is next written", "path", s.recordPath(), "err", err)
			}
		}
	}
	s.view.Store(v)
	return s, nil
}

// decodeRecord decodes set.json strictly, as the store reads packs.json:
// an unknown field, data after the record, a key twice in one object or
// another format is refused, saying which.
func decodeRecord(data []byte) (Record, error) {
	var rec Record
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rec); err != nil {
		return Record{}, fmt.Errorf("the record is damaged (%w)", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return Record{}, errors.New("the record is damaged (data after its end)")
	}
	if dup := strictjson.DuplicateKey(data); dup != "" {
		return Record{}, fmt.Errorf("the record is damaged (%s)", dup)
	}
	if rec.Format != recordFormat {
		return Record{}, fmt.Errorf("format %q is not %q", rec.Format, recordFormat)
	}
	return rec, nil
}

func (s *Syncer) recordPath() string { return filepath.Join(s.opts.State, recordName) }

// Cache returns the cache of downloaded archives.
func (s *Syncer) Cache() *fetch.Cache { return s.cache }

// Record returns a copy of what set.json holds.
func (s *Syncer) Record() Record { return s.view.Load().rec }

// save writes the record and publishes it to readers.
func (s *Syncer) save(rec Record, pins []lock.Entry) error {
	rec.Format = recordFormat
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(s.recordPath(), append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("save set record: %w", err)
	}
	s.view.Store(&view{rec: rec, pins: pins})
	return nil
}

// Error kinds of a failed sync, for exit codes and answers.
var (
	// errLock is wrapped when the lock could not be read, was invalid, or
	// its signature was refused; its kind is [errkind.Invalid].
	errLock = errkind.New(errkind.Invalid, "pack set refused")
	// errDownload is wrapped when an archive could not be downloaded.
	errDownload = errors.New("download failed")
	// errNoSource is returned by Check when no [sets] source is set.
	errNoSource = errors.New("no [sets] source is configured")
	// errSyncRunning is returned, wrapped with [errkind.Busy], by a sync
	// asked for while another runs (a download may take long).
	errSyncRunning = errors.New("a pack set sync is already running")
	// errArchiveGone is wrapped when an archive verified before a set
	// apply, or kept, is not there when the apply takes it: the apply
	// changes nothing and downloads nothing.
	errArchiveGone = errors.New("an archive of the set went away during the apply")
)

// SyncSet makes the machine's enabled set exactly the lock's (SPEC §10.2,
// `forgesync sync --set`): fetch the lock (conditionally, with the
// validators of the last read of the same source) and its signature,
// verify, download what the machine lacks into the cache, and apply the
// whole set as one transaction. Any fault before the apply changes
// nothing; the error wraps ErrLock or ErrDownload, or, from the apply,
// [errkind.Refused] or [errkind.Conflict]. A run with
// nothing to do downloads nothing and publishes nothing. The result is
// returned with the error too, saying what was checked.
func (s *Syncer) SyncSet(ctx context.Context, req Request) (*Result, error) {
	if !s.mu.TryLock() {
		msg := "try again when it ends"
		if since := s.since.Load(); since != 0 {
			msg = fmt.Sprintf("started %s; try again when it ends", time.Unix(0, since).UTC().Format(time.RFC3339))
		}
		return nil, fmt.Errorf("%w (%s): %w", errSyncRunning, msg, errkind.Busy)
	}
	s.since.Store(s.opts.Now().UnixNano())
	res, err := s.syncLocked(ctx, req)
	s.since.Store(0)
	s.mu.Unlock()
	// The observer hears of the check once another sync may start: a
	// client that applies a set when it sees one is not told "busy".
	s.obs.Checked(res.Check)
	return res, err
}

// syncLocked is SyncSet's work under its lock: the sync, the pin by hand,
// the cache's eviction and the record of the check.
func (s *Syncer) syncLocked(ctx context.Context, req Request) (*Result, error) {
	res := &Result{Downloaded: []Download{}}
	check := &res.Check
	check.Time = s.opts.Now().UTC()
	err := s.sync(ctx, req, res)
	if err == nil && !req.follow {
		err = s.pinByHand(check)
	}
	if err != nil {
		check.Error = err.Error()
		if check.Result == "" {
			check.Result = CheckFailed
		}
	}
	// Downloads are over: the cache may shrink to its bound. The archives
	// the machine needs are kept in archives/ whatever the cache holds.
	if removed, eerr := s.cache.Evict(nil); eerr != nil {
		s.opts.Log.Warn("could not evict from the archive cache", "err", eerr)
	} else if len(removed) > 0 {
		s.opts.Log.Info("evicted archives from the cache", "archives", len(removed))
	}
	s.pruneIndexes()
	s.pruneChunks()
	v := s.view.Load()
	rec := v.rec
	if check.Source == rec.Source || rec.Source == "" {
		rec.LastCheck = storedCheck(*check)
		if len(res.Downloaded) > 0 {
			rec.LastDownload = rec.LastCheck
		}
		if serr := s.save(rec, v.pins); serr != nil && err == nil {
			err = serr
		}
	}
	return res, err
}

// archiveSource gives the set apply each pinned archive from the cache, as
// verified before the apply began: it only opens local files and never
// touches the network, as the single writer's transaction must not wait on
// a mirror. An archive that is not in the cache as this sync verified it
// (it was kept under archives/ and went, or left the cache meanwhile) fails
// the apply, which then changes nothing; the pipeline checks every
// archive's SHA-256 as it unpacks it, so bytes changed meanwhile fail it
// too.
func (s *Syncer) archiveSource(byHash map[string]lock.Pack, verified map[string]bool) pipeline.ArchiveSource {
	return func(_ context.Context, pin lock.Entry) (string, error) {
		p, ok := byHash[pin.SHA256]
		if !ok {
			return "", fmt.Errorf("the set does not pin sha256 %s", pin.SHA256)
		}
		if !verified[p.SHA256] {
			return "", fmt.Errorf("%w: the archive of %s %s (sha256 %s) was kept under %s when the sync began and is gone; sync again to download it",
				errArchiveGone, p.ID, p.Version, p.SHA256, store.ArchivesDir)
		}
		if !s.cache.Has(p.SHA256, p.Size) {
			return "", fmt.Errorf("%w: the archive of %s %s left the cache as %s after it was verified; sync again to download it",
				errArchiveGone, p.ID, p.Version, s.cache.Path(p.SHA256))
		}
		s.cache.Touch(p.SHA256)
		return s.cache.Path(p.SHA256), nil
	}
}

// download fetches the archives of l that are not kept into the cache (a
// cached one is verified and fetched again only when its bytes changed),
// recording each download in res. It returns l's packs by SHA-256, and the
// SHA-256 of each archive it verified in the cache: every byte the apply
// may need from the cache.
func (s *Syncer) download(ctx context.Context, src fetch.Source, l *lock.Lock, kept keptSet, res *Result) (map[string]lock.Pack, map[string]bool, error) {
	byHash, verified := map[string]lock.Pack{}, map[string]bool{}
	var lacking []lock.Pack
	for _, p := range l.Packs {
		byHash[p.SHA256] = p
		if kept[store.KeptKey(p.ID, p.Version, p.SHA256)] && s.keptUsable(p) {
			continue
		}
		// A cached archive is verified by the fetch, which downloads it
		// again when its bytes changed.
		lacking = append(lacking, p)
	}
	if len(lacking) > 0 {
		results, err := s.fetch(ctx, src, l, lacking)
		for _, r := range results {
			verified[r.Pack.SHA256] = true
			if r.From != "" {
				res.Downloaded = append(res.Downloaded, Download{Pack: r.Pack.ID, URL: r.From, Bytes: r.Pack.Size, Delta: r.Delta, Fallback: r.Fallback})
			}
			addDelta(&res.Check, r)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%w: %w", errDownload, err)
		}
	}
	return byHash, verified, nil
}

// keptUsable reports whether the apply may take p's kept archive as it is:
// the machine has p installed at its pin (the apply needs no archive), or
// the kept file's bytes are still the pinned ones. A kept archive whose
// bytes changed on disk (the cache's copy is the same file, and a fetch
// heals only the cache's name) is fetched again, and the apply replaces
// it, rather than failing every sync on it.
func (s *Syncer) keptUsable(p lock.Pack) bool {
	if installed, err := s.w.Installed(); err == nil && slices.ContainsFunc(installed, func(in lock.Installed) bool {
		return in.ID == p.ID && in.SHA256 == p.SHA256
	}) {
		return true
	}
	names, err := s.keptNames()
	if err != nil {
		return false
	}
	path := filepath.Join(s.opts.State, store.ArchivesDir, names[store.KeptKey(p.ID, p.Version, p.SHA256)])
	if err := lock.VerifyFile(path, p.Size, p.SHA256); err != nil {
		s.opts.Log.Warn("a kept archive is damaged; fetching it again", "pack", p.ID, "version", p.Version, "err", err)
		return false
	}
	return true
}

// addDelta counts a fetch's delta update, or its fallback, into the
// check, for status, and where its bytes came from: LAN peers or mirrors
// (SPEC §13).
func addDelta(c *Check, r fetch.Result) {
	if r.Fallback != "" {
		c.Fallbacks = append(c.Fallbacks, r.Pack.ID+": "+r.Fallback)
	}
	d := r.Delta
	switch {
	case r.From == "": // in the cache already
	case r.Peer:
		c.PeerBytes += r.Pack.Size
	case d != nil:
		c.PeerBytes += d.PeerBytes
		c.MirrorBytes += d.FetchedBytes - d.PeerBytes
	default:
		c.MirrorBytes += r.Pack.Size
	}
	if d == nil {
		return
	}
	if c.Delta == nil {
		c.Delta = &fetch.DeltaStats{}
	}
	c.Delta.SeedBytes += d.SeedBytes
	c.Delta.FetchedBytes += d.FetchedBytes
	c.Delta.SeedChunks += d.SeedChunks
	c.Delta.FetchedChunks += d.FetchedChunks
	c.Delta.Requests += d.Requests
	c.Delta.WireBytes += d.WireBytes
	c.Delta.PeerBytes += d.PeerBytes
}

// readLock returns the lock of req and its signature: fetched from its
// source (or, when the source answers not modified, the copy kept in rec),
// or as given in the request.
// For a set in an OCI registry, layers are its manifest's blobs (nil when
// the manifest did not change).
func (s *Syncer) readLock(ctx context.Context, req Request, rec Record, check *Check) (src fetch.Source, data, sig []byte, val fetch.Validators, layers map[string]int64, err error) {
	if req.remote() {
		if src = req.From; src == (fetch.Source{}) {
			if src, err = fetch.LockSource(req.Source); err != nil {
				return src, nil, nil, val, nil, fmt.Errorf("%w: %w", errLock, err)
			}
		}
		// The source is shown, stored and compared without its password.
		check.Source = src.Redacted()
		var prev fetch.Validators
		if rec.Source == check.Source && rec.Lock != "" {
			prev = rec.Validators
		}
		f := s.opts.Fetcher
		lf, err := f.FetchLock(ctx, src, prev)
		if err != nil {
			return src, nil, nil, val, nil, fmt.Errorf("%w: %w", errLock, err)
		}
		val = lf.Validators
		src.Private = lf.Source.Private // whether its mirrors may be private
		if lf.NotModified {
			check.NotModified = true
			data, sig = []byte(rec.Lock), []byte(rec.Signature)
			if rec.Signature == "" {
				sig = nil
			}
		} else {
			data, sig, layers = lf.Data, lf.Signature, lf.Layers
		}
	} else {
		if len(req.Lock) == 0 {
			return src, nil, nil, val, nil, fmt.Errorf("%w: no lock given", errLock)
		}
		data, sig = req.Lock, req.Signature
		check.Source = "(request body)"
	}
	return src, data, sig, val, layers, nil
}

func (s *Syncer) sync(ctx context.Context, req Request, res *Result) error {
	check := &res.Check
	v := s.view.Load()
	rec := v.rec
	// 1. The lock and its signature.
	src, data, sig, val, layers, err := s.readLock(ctx, req, rec, check)
	if err != nil {
		return err
	}
	verification, err := lock.Verify(data, sig, s.opts.TrustedKeys)
	if err != nil {
		return fmt.Errorf("%w: %s: %w", errLock, check.Source, err)
	}
	res.SignedBy = verification.SignedBy()
	l, kept, err := s.decodeLock(check, src, data, layers, rec, req.remote())
	if err != nil {
		return err
	}
	if req.remote() {
		if rec, err = s.remember(rec, src, l, check.Fingerprint, res.SignedBy, data, sig, val); err != nil {
			return err
		}
	}
	if req.follow && rec.Applied == check.Fingerprint {
		// The set did not change since it was applied: what differs now
		// (packs dropped by hand) stays, and status says how.
		check.Result = CheckEqual
		if l.Serial > rec.Serials[rec.Source].Serial {
			return s.recordApplied(check, 0, l) // the same set, exported again
		}
		return nil
	}

	// 2. Download what the machine lacks and verify what the cache holds:
	// every byte the apply needs is local and checked before it begins.
	byHash, verified, err := s.download(ctx, src, l, kept, res)
	if err != nil {
		return err
	}
	// No eviction may take them while the apply runs.
	unpin := s.cache.Pin(slices.Collect(maps.Keys(verified))...)
	defer unpin()

	// 3. One transaction, reading local files only.
	return s.apply(ctx, req, res, l, s.archiveSource(byHash, verified))
}

// apply makes the machine's set l's in one transaction whose archives come
// from source, and records in res what it did and, for a lock read from a
// source, in the record that it was applied.
func (s *Syncer) apply(ctx context.Context, req Request, res *Result, l *lock.Lock, source pipeline.ArchiveSource) error {
	check := &res.Check
	sum, err := s.w.ApplySet(ctx, l.Entries(), pipeline.SetOptions{Prune: req.Prune, Source: source})
	if err != nil {
		if k := errkind.Of(err); k == errkind.Refused || k == errkind.Conflict {
			check.Result = CheckRefused
		}
		return err
	}
	res.Summary = sum
	check.Result = CheckEqual
	if sum.Set != nil && sum.Set.Changed() {
		// The pipeline reports set-applied with the transaction, and logs
		// each pack it changed; this line names the set's source.
		check.Result = CheckApplied
		s.opts.Log.Info("pack set applied from its source", "source", check.Source, "fingerprint", check.Fingerprint,
			"generation", sum.Generation, "signed_by", res.SignedBy, "downloaded", len(res.Downloaded))
	}
	if req.remote() {
		return s.recordApplied(check, sum.Generation, l)
	}
	return nil
}

// remember records the lock l read from src (its text data, signature sig
// and the server's validators val; without the passwords its URLs may
// hold, see storedLock), keeping what rec, the record before, says of the
// same source, and returns the new record.
func (s *Syncer) remember(rec Record, src fetch.Source, l *lock.Lock, fingerprint, signedBy string, data, sig []byte, val fetch.Validators) (Record, error) {
	nr := Record{Source: src.Redacted(), Name: l.Name, Fingerprint: fingerprint, SignedBy: signedBy,
		Serial: l.Serial, Expires: timeOrNil(l.Expires), Serials: rec.Serials, Paused: rec.Paused}
	nr.Lock, nr.Signature, nr.Validators, _ = storedLock(nr.Source, data, sig, val)
	if rec.Source == nr.Source {
		nr.Applied, nr.LastCheck, nr.LastApply, nr.LastDownload = rec.Applied, rec.LastCheck, rec.LastApply, rec.LastDownload
	}
	if err := s.save(nr, l.Entries()); err != nil {
		return rec, err
	}
	return nr, nil
}

// decodeLock decodes the lock read from src and checks what reading it
// promised: the archives available (kept, cached, or a registry's blobs),
// the registry's layers, and its freshness against rec, before a record
// remembers it as read (a replayed or frozen set is not the set). It sets
// check's fingerprint, and returns the lock and the archives kept.
func (s *Syncer) decodeLock(check *Check, src fetch.Source, data []byte, layers map[string]int64, rec Record, remote bool) (*lock.Lock, keptSet, error) {
	kept, err := s.keptKeys()
	if err != nil {
		return nil, kept, err
	}
	have := func(sha string) bool { return kept.hasSHA(sha) || s.cache.Has(sha, 0) }
	if src.OCI != "" {
		// A set in a registry has every archive as a blob (CheckLayers),
		// whatever URLs its lock names.
		have = lock.HaveAll
	}
	// A lock given as text names no local file (lock.DecodeOptions).
	l, err := lock.Decode(check.Source, data, lock.DecodeOptions{Have: have, Given: !remote})
	if err != nil {
		return nil, kept, fmt.Errorf("%w: %w", errLock, err)
	}
	if layers != nil {
		if err := fetch.CheckLayers(check.Source, l, layers); err != nil {
			return nil, kept, fmt.Errorf("%w: %w", errLock, err)
		}
	}
	check.Fingerprint = l.Fingerprint()
	if err := s.checkFresh(check.Source, l, rec, remote); err != nil {
		return nil, kept, fmt.Errorf("%w: %w", errLock, err)
	}
	return l, kept, nil
}

// checkFresh refuses a lock past its expires and, for one read from a
// source, one older than the freshest applied from there (SPEC §10.2c).
// A lock given as text has no source to compare with.
func (s *Syncer) checkFresh(source string, l *lock.Lock, rec Record, remote bool) error {
	if err := l.CheckExpiry(s.opts.Now()); err != nil {
		return fmt.Errorf("%s: %w", source, err)
	}
	if !remote {
		return nil
	}
	return lock.CheckSerial(source, l, rec.Serials[source])
}

// recordApplied records that the set l, read from the record's source,
// was checked and the machine equals it: when it changed the machine,
// applied as generation gen; with its serial, the freshest applied from
// there.
func (s *Syncer) recordApplied(check *Check, gen int, l *lock.Lock) error {
	rec := s.view.Load().rec
	rec.Applied = check.Fingerprint
	if check.Result == CheckApplied {
		rec.LastApply = &StoredApply{Time: check.Time, Fingerprint: check.Fingerprint, Generation: gen}
	}
	if l.Serial > 0 && l.Serial >= rec.Serials[rec.Source].Serial {
		// A copy: readers hold the published record's map.
		rec.Serials = maps.Clone(rec.Serials)
		if rec.Serials == nil {
			rec.Serials = map[string]lock.Applied{}
		}
		rec.Serials[rec.Source] = lock.Applied{Serial: l.Serial, Fingerprint: check.Fingerprint, Time: check.Time}
		forgetOldest(rec.Serials, maxSerials)
	}
	return s.save(rec, l.Entries())
}

// forgetOldest removes the entries applied longest ago until at most n
// are left.
func forgetOldest(m map[string]lock.Applied, n int) {
	for len(m) > n {
		oldest := ""
		for k, a := range m {
			if oldest == "" || a.Time.Before(m[oldest].Time) {
				oldest = k
			}
		}
		delete(m, oldest)
	}
}

// timeOrNil returns &t, or nil for the zero time.
func timeOrNil(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// fetch downloads packs of l into the cache, reporting progress as
// download events (at most one per archive every downloadEvery, and the
// last). A pack that names a chunk index is rebuilt from the archive of
// the version installed, when the machine keeps it, plus chunks (SPEC
// §10.2a); see [Syncer.seeds].
func (s *Syncer) fetch(ctx context.Context, base fetch.Source, l *lock.Lock, packs []lock.Pack) ([]fetch.Result, error) {
	f := s.opts.Fetcher
	f.Dir = s.cache.Dir()
	if slices.ContainsFunc(packs, func(p lock.Pack) bool { return p.Index != nil }) {
		seeds, err := s.seeds()
		if err != nil {
			// Without seeds every archive comes whole: a slower sync, not
			// a failed one.
			s.opts.Log.Warn("no seeds for delta updates", "err", err)
		}
		f.Delta = &fetch.Delta{Chunks: l.Chunks, Seeds: seeds, IndexPath: s.indexPath, Log: s.opts.Log, Keep: s.opts.Chunks}
	}
	if s.opts.Observer != nil {
		var mu sync.Mutex
		last := map[string]time.Time{}
		f.Progress = func(p fetch.Progress) {
			mu.Lock()
			now := time.Now()
			due := p.Done == p.Total || now.Sub(last[p.Pack]) >= downloadEvery
			if due {
				last[p.Pack] = now
			}
			mu.Unlock()
			if due {
				s.obs.Downloading(p)
			}
		}
	}
	return f.Fetch(ctx, base, packs)
}

// ArchivePath returns the file of the archive with this SHA-256 that the
// machine caches, or keeps under archives/ for an installed pack, or ""
// when it has none: what the machine serves its LAN peers (SPEC §13).
func (s *Syncer) ArchivePath(sha string) string {
	if s.cache.Has(sha, 0) {
		return s.cache.Path(sha)
	}
	installed, err := s.w.Installed()
	if err != nil {
		return ""
	}
	for _, in := range installed {
		if in.SHA256 != sha {
			continue
		}
		// A kept name holds 12 digits of the SHA-256; the installed
		// state holds all of them.
		names, err := s.keptNames()
		if name, ok := names[store.KeptKey(in.ID, in.Version, in.SHA256)]; ok && err == nil {
			return filepath.Join(s.opts.State, store.ArchivesDir, name)
		}
	}
	return ""
}

// indexPath is where the chunk index of the archive with this SHA-256 is
// kept: beside the archives of the cache, as <sha256>.caibx.
func (s *Syncer) indexPath(sha string) string { return s.cache.Path(sha) + casync.IndexExt }

// seeds returns, for a pack of a set, the archive of the version of the
// same pack id that the machine has installed (enabled or not; SPEC
// §10.2a's "earlier archive of the same pack"), when the machine still
// keeps it: under archives/ (which holds every archive the installed state
// and kept generations need) or in the cache. The cache knows no pack ids,
// so the installed state names the archive by its SHA-256. The seed's
// index is kept in the cache as <sha256>.caibx.
func (s *Syncer) seeds() (func(lock.Pack) []fetch.Seed, error) {
	installed, err := s.w.Installed()
	if err != nil {
		return nil, fmt.Errorf("installed packs: %w", err)
	}
	names, err := s.keptNames()
	if err != nil {
		return nil, err
	}
	return func(p lock.Pack) []fetch.Seed {
		var out []fetch.Seed
		for _, in := range installed {
			if in.ID != p.ID || in.SHA256 == p.SHA256 {
				continue
			}
			path := ""
			if name, ok := names[store.KeptKey(in.ID, in.Version, in.SHA256)]; ok {
				path = filepath.Join(s.opts.State, store.ArchivesDir, name)
			} else if s.cache.Has(in.SHA256, 0) {
				path = s.cache.Path(in.SHA256)
			}
			if path != "" {
				out = append(out, fetch.Seed{Path: path, Index: s.indexPath(in.SHA256)})
			}
		}
		return out
	}, nil
}

// pruneChunks removes from the machine's own chunk store (Options.Chunks,
// kept while it shares them with LAN peers) the chunks that no index kept
// in the cache uses: those of archives neither cached nor installed. An
// index that cannot be read keeps every chunk, as which it needs cannot be
// told.
func (s *Syncer) pruneChunks() {
	if s.opts.Chunks == "" {
		return
	}
	if _, err := os.Stat(s.opts.Chunks); err != nil {
		return
	}
	es, err := os.ReadDir(s.cache.Dir())
	if err != nil {
		return
	}
	keep := map[casync.ChunkID]bool{}
	for _, e := range es {
		if !strings.HasSuffix(e.Name(), casync.IndexExt) || !e.Type().IsRegular() {
			continue
		}
		path := filepath.Join(s.cache.Dir(), e.Name())
		raw, err := atomicfile.ReadFile(path, 64<<20)
		var ix *casync.Index
		if err == nil {
			ix, err = casync.ReadIndex(bytes.NewReader(raw), casync.Limits{})
		}
		if err != nil {
			s.opts.Log.Warn("chunks for LAN peers not pruned: an index cannot be read", "path", path, "err", err)
			return
		}
		for _, c := range ix.Chunks {
			keep[c.ID] = true
		}
	}
	if _, err := (casync.LocalStore{Dir: s.opts.Chunks}).Prune(func(id casync.ChunkID) bool { return keep[id] }); err != nil {
		s.opts.Log.Warn("could not prune the chunks kept for LAN peers", "err", err)
	}
}

// pruneIndexes removes the chunk indexes kept in the cache for archives
// that are neither in the cache nor installed: they seed nothing any more.
func (s *Syncer) pruneIndexes() {
	installed, err := s.w.Installed()
	if err != nil {
		return
	}
	keep := map[string]bool{}
	for _, in := range installed {
		keep[in.SHA256] = true
	}
	if _, err := s.cache.PruneIndexes(func(sha string) bool { return keep[sha] }); err != nil {
		s.opts.Log.Warn("could not prune chunk indexes from the cache", "err", err)
	}
}

// keptNames returns the file names of the archives kept under archives/
// by their keys (store.KeptKey).
func (s *Syncer) keptNames() (map[string]string, error) {
	entries, err := os.ReadDir(filepath.Join(s.opts.State, store.ArchivesDir))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read kept archives: %w", err)
	}
	out := map[string]string{}
	for _, e := range entries {
		if e.Type().IsRegular() && !strings.HasPrefix(e.Name(), atomicfile.TempPrefix) {
			if k := store.KeyOfKept(e.Name()); k != "" {
				out[k] = e.Name()
			}
		}
	}
	return out, nil
}

// keptSet is the keys (store.KeptKey) of the archives kept under
// archives/.
type keptSet map[string]bool

// hasSHA reports whether an archive with this SHA-256 is kept, by the
// 12-digit prefix its name holds.
func (k keptSet) hasSHA(sha string) bool {
	if len(sha) < 12 {
		return false
	}
	suffix := "-" + sha[:12]
	for key := range k {
		if strings.HasSuffix(key, suffix) {
			return true
		}
	}
	return false
}

func (s *Syncer) keptKeys() (keptSet, error) {
	names, err := s.keptNames()
	if err != nil {
		return nil, err
	}
	out := keptSet{}
	for k := range names {
		out[k] = true
	}
	return out, nil
}

// Check reads the followed source now and applies it when it changed
// since the last apply (POST /v1/set/check, and every interval). While a
// set applied by hand pins the machine it fails with ErrPaused.
func (s *Syncer) Check(ctx context.Context) (*Result, error) {
	if s.opts.Follow == "" {
		return nil, fmt.Errorf("%w: set one to follow a pack set: %w", errNoSource, errkind.Invalid)
	}
	if p := s.Paused(); p != nil {
		return nil, pausedError(p)
	}
	return s.SyncSet(ctx, Request{Source: s.opts.Follow, follow: true})
}

// Run follows [sets] source until ctx ends: a check at once, then every
// interval. A failed check is reported (status, events, log) and tried
// again at the next one. Without a source it returns at once.
func (s *Syncer) Run(ctx context.Context, interval time.Duration) error {
	if s.opts.Follow == "" {
		return nil
	}
	if interval <= 0 {
		interval = 5 * time.Minute
	}
	ticks, stop := s.ticks(interval)
	defer stop()
	paused := false
	for {
		_, err := s.Check(ctx)
		switch {
		case errors.Is(err, errPaused):
			if !paused { // said once per pause, not at every interval
				s.opts.Log.Info("pack set not checked: following is paused", "source", lock.Redact(s.opts.Follow), "err", err)
			}
		case errors.Is(err, errSyncRunning):
			s.opts.Log.Info("pack set check skipped: a sync is running", "source", lock.Redact(s.opts.Follow))
		case err != nil && ctx.Err() == nil:
			s.opts.Log.Warn("pack set check failed; tried again at the next one", "source", lock.Redact(s.opts.Follow), "err", err)
		}
		paused = errors.Is(err, errPaused)
		select {
		case <-ctx.Done():
			return nil
		case <-ticks:
		}
	}
}

// ticks returns Options.Ticks, or a time.Ticker's.
func (s *Syncer) ticks(interval time.Duration) (<-chan time.Time, func()) {
	if s.opts.Ticks != nil {
		return s.opts.Ticks(interval)
	}
	t := time.NewTicker(interval)
	return t.C, t.Stop
}

// Status says how the machine stands against its set: nil when it has
// none.
func (s *Syncer) Status(installed []lock.Installed) *Status {
	v := s.view.Load()
	if v.rec.Source == "" && s.opts.Follow == "" {
		return nil
	}
	st := &Status{Source: v.rec.Source, Name: v.rec.Name, Fingerprint: v.rec.Fingerprint, SignedBy: v.rec.SignedBy,
		Following: s.opts.Follow != "", LastCheck: v.rec.LastCheck.check(), LastApply: v.rec.LastApply, LastDownload: v.rec.LastDownload.check(),
		Machine: lock.MachineFingerprint(installed), Differences: []lock.Difference{}, Serial: v.rec.Serial, Expires: v.rec.Expires,
		Paused: s.Paused()}
	if st.Source == "" {
		st.Source = lock.Redact(s.opts.Follow)
	}
	if v.rec.Lock != "" {
		c := lock.Compare(installed, v.pins)
		st.Equal, st.Differences = c.Equal, c.Differences
	}
	return st
}

// Warnings are what status warns of the set: that it expires within
// lock.ExpiryWarning, or has expired (SPEC §10.2c).
func (s *Syncer) Warnings() []string {
	rec := s.view.Load().rec
	if rec.Expires == nil {
		return nil
	}
	if note := lock.ExpiryNote(*rec.Expires, s.opts.Now()); note != "" {
		return []string{rec.Source + ": " + note}
	}
	return nil
}

// Diff compares the machine with a lock given as TOML, or as the same in
// JSON (POST /v1/set/diff).
func Diff(installed []lock.Installed, body []byte) (lock.Comparison, error) {
	l, err := decodeBody("request body", body, lock.DecodeOptions{Have: lock.HaveAll})
	if err != nil {
		return lock.Comparison{}, err
	}
	return lock.Compare(installed, l.Entries()), nil
}

var (
	_ Writer = (*pipeline.Pipeline)(nil)
	_ Writer = (*pipeline.Runner)(nil)
)
