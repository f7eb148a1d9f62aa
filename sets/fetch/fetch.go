package fetch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/cenkalti/backoff/v5"
	"golang.org/x/sync/errgroup"

	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
	"github.com/mjolnir-forge/forgesync/rejection"
	"github.com/mjolnir-forge/forgesync/sets/lock"
	"github.com/mjolnir-forge/forgesync/sets/oci"
)

// Defaults of a Fetcher.
const (
	// MaxConcurrency is the most archives fetched at once (SPEC §10.2).
	MaxConcurrency = 4
	// DefaultTries is how often one mirror is tried for a failure that may
	// pass (a connection error, a timeout, a 5xx, a cut transfer).
	DefaultTries = 4
	// DefaultInitialDelay is the first back-off delay; it doubles per try,
	// with ±50% jitter, up to DefaultMaxDelay.
	DefaultInitialDelay = 500 * time.Millisecond
	// DefaultMaxDelay bounds one back-off delay.
	DefaultMaxDelay = 15 * time.Second
	// DefaultStall is how long a transfer may go without a byte before
	// the attempt fails as a timeout.
	DefaultStall = 30 * time.Second
	// DefaultMinRate is the slowest a transfer may be, in bytes per
	// second averaged over DefaultRateWindow: a mirror below it (say, a
	// byte every two seconds, which the stall watchdog never catches) is
	// given up for the next one, not retried.
	DefaultMinRate = 16 << 10
	// DefaultRateWindow is how long the rate is averaged over.
	DefaultRateWindow = 30 * time.Second
	// DefaultAttemptSlack is added to the time the archive's remaining
	// bytes take at the minimum rate to give one attempt's deadline
	// (see [AttemptDeadline]).
	DefaultAttemptSlack = 2 * time.Minute
	// progressStep is how many bytes pass between two progress reports.
	progressStep = 256 << 10
)

// Errors of fetching, wrapped with the URL and the details.
var (
	// ErrAllMirrorsFailed is matched by a *FetchError: no mirror of a pack
	// gave its archive.
	ErrAllMirrorsFailed = errors.New("every mirror failed")
	// ErrTooLarge is returned when a lock or a signature is over its
	// limit.
	ErrTooLarge = errors.New("too large")
	// ErrTooSlow is returned when a mirror sends below the minimum rate,
	// or an attempt runs past its deadline: the next mirror is tried.
	ErrTooSlow = errors.New("too slow")
)

// Progress is one report of a download: how many of an archive's bytes
// came from which mirror so far (the `download` event of SPEC §10.3).
// Total is the size the lock names.
type Progress struct {
	Pack  string
	URL   string
	Done  int64
	Total int64
	// Delta, in the last report of an archive rebuilt from chunks, says
	// how many bytes came from seeds and how many were fetched.
	Delta *DeltaStats
	// Fallback says why an archive whose pack names a chunk index is
	// downloaded whole.
	Fallback string
}

// Fetcher downloads archives from the mirrors a lock names, into a folder
// by content: each archive lands as Dir/<sha256> only after its size and
// SHA-256 are checked, through a temp file and a rename, so a wrong byte
// never reaches the folder. The zero value with Dir set is ready to use.
type Fetcher struct {
	// Dir receives the archives; it must exist.
	Dir string
	// Client makes the requests; nil means a client with bounded dial,
	// TLS and response-header timeouts.
	Client *http.Client
	// Concurrency is how many archives are fetched at once: 0 means, and
	// more is lowered to, MaxConcurrency.
	Concurrency int
	// Tries, InitialDelay, MaxDelay, Stall, MinRate (bytes per second)
	// and RateWindow override the defaults above when positive.
	Tries        int
	InitialDelay time.Duration
	MaxDelay     time.Duration
	Stall        time.Duration
	MinRate      int64
	RateWindow   time.Duration
	// Sleep waits out a back-off delay, or returns the context's error;
	// nil means a timer. Tests record the delays instead of sleeping.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now is the clock of the rate and deadline checks; nil means
	// time.Now. Tests make it run fast.
	Now func() time.Time
	// Progress, when set, hears each download's progress; it is called
	// from several goroutines at once.
	Progress func(Progress)
	// AllowPrivate lets a lock served from a public address name mirrors
	// on loopback, private and link-local addresses ([sets]
	// allow_private_mirrors). Without it such a mirror is refused when
	// dialled, with ErrPrivateAddress; a lock served from such an address
	// itself (a LAN host, a test's loopback server) or read from a file
	// may name them.
	AllowPrivate bool
	// Registry reads sets in OCI registries (a Source's OCI); nil means
	// one with the Docker config of the user forgesync runs as.
	Registry *oci.Registry
	// Delta, when set, rebuilds the archives of packs that name a chunk
	// index from earlier archives plus chunks (SPEC §10.2a) before their
	// mirrors are tried.
	Delta *Delta
}

// Result is a pack whose archive is in the destination folder.
type Result struct {
	Pack lock.Pack
	// Path is the archive's file: Dir/<sha256>.
	Path string
	// From is the mirror that served it, its password redacted (see
	// Redact); empty when the archive was in the folder already. For an
	// archive rebuilt from chunks, the first chunk store.
	From string
	// Delta says how an archive rebuilt from chunks was made; nil for a
	// whole download.
	Delta *DeltaStats
	// Fallback says why an archive whose pack names a chunk index was
	// downloaded whole.
	Fallback string
}

// Attempt is one mirror's failure for one pack; URL is redacted (see
// Redact).
type Attempt struct {
	URL   string `json:"url"`
	Tries int    `json:"tries"`
	Err   error  `json:"-"`
	// Reason is Err in words, for JSON.
	Reason string `json:"reason"`
}

// FetchError says why a pack could not be fetched: every mirror, in order,
// with what went wrong.
type FetchError struct {
	Pack     lock.Pack
	Attempts []Attempt
}

// Error names the pack and each URL with why it failed.
func (e *FetchError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "download %s %s: every mirror failed", e.Pack.ID, e.Pack.Version)
	if len(e.Attempts) == 0 {
		b.WriteString(" (the lock lists no URL)")
	}
	for _, a := range e.Attempts {
		fmt.Fprintf(&b, "\n  %s: %s", rejection.Escape(a.URL), rejection.Escape(a.Err.Error()))
		if a.Tries > 1 {
			fmt.Fprintf(&b, " (%d tries)", a.Tries)
		}
	}
	return b.String()
}

// Is reports whether target is ErrAllMirrorsFailed.
func (e *FetchError) Is(target error) bool { return target == ErrAllMirrorsFailed }

// Unwrap returns each mirror's error.
func (e *FetchError) Unwrap() []error {
	errs := make([]error, len(e.Attempts))
	for i, a := range e.Attempts {
		errs[i] = a.Err
	}
	return errs
}

// The dialer's bounds.
const (
	dialTimeout   = 15 * time.Second
	dialKeepAlive = 30 * time.Second
)

// defaultClient bounds each phase of a request but not the body: a large
// archive may take long, and a stalled one is caught by Fetcher.Stall.
var defaultClient = &http.Client{Transport: &http.Transport{
	Proxy:                 http.ProxyFromEnvironment,
	DialContext:           (&net.Dialer{Timeout: dialTimeout, KeepAlive: dialKeepAlive}).DialContext,
	TLSHandshakeTimeout:   15 * time.Second,
	ResponseHeaderTimeout: 30 * time.Second,
	IdleConnTimeout:       90 * time.Second,
	MaxIdleConnsPerHost:   MaxConcurrency,
	ForceAttemptHTTP2:     true,
}}

func (f *Fetcher) client() *http.Client {
	if f.Client != nil {
		return f.Client
	}
	return defaultClient
}

// mirrorClient is the client for the mirrors of a lock from base: one that
// refuses non-public addresses when the lock came from a public one.
func (f *Fetcher) mirrorClient(base Source) *http.Client {
	if !base.Remote() || base.Private || f.AllowPrivate {
		return f.client()
	}
	if f.Client == nil {
		return guardedDefault
	}
	return guardClient(f.Client)
}

func (f *Fetcher) sleep(ctx context.Context, d time.Duration) error {
	if f.Sleep != nil {
		return f.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

func (f *Fetcher) now() time.Time {
	if f.Now != nil {
		return f.Now()
	}
	return time.Now()
}

// AttemptDeadline is how long one attempt at a mirror may take to send
// remaining bytes at minRate bytes per second (0: DefaultMinRate):
// DefaultAttemptSlack for the request and the first bytes, plus the
// bytes at the minimum rate.
func AttemptDeadline(remaining, minRate int64) time.Duration {
	minRate = pos(minRate, DefaultMinRate)
	return DefaultAttemptSlack + time.Duration(remaining/minRate)*time.Second
}

func pos[T int | int64 | time.Duration](v, def T) T {
	if v > 0 {
		return v
	}
	return def
}

// Path returns where the archive with this SHA-256 lands.
func (f *Fetcher) Path(sha string) string { return filepath.Join(f.Dir, sha) }

// Fetch brings every pack's archive into Dir, at most Concurrency at once:
// a pack already there is not fetched again, and is marked used, once its
// bytes are checked again (a file changed in place, even to the same size,
// is removed and fetched again); the others are tried mirror by mirror, in
// the lock's order, with relative URLs resolved against base (the lock's
// location). Archives land read-only (0444): the store may hard-link them,
// and an archive is never written in place. It returns a result for each
// pack that is in Dir, and for the others one *FetchError each, joined. A
// failed pack does not stop the others: what was fetched stays for the
// next run.
func (f *Fetcher) Fetch(ctx context.Context, base Source, packs []lock.Pack) ([]Result, error) {
	results := make([]*Result, len(packs))
	errs := make([]error, len(packs))
	var g errgroup.Group
	g.SetLimit(min(pos(f.Concurrency, MaxConcurrency), MaxConcurrency))
	for i, p := range packs {
		g.Go(func() error {
			r, err := f.fetchPack(ctx, base, p)
			results[i], errs[i] = r, err
			return nil
		})
	}
	g.Wait()
	var out []Result
	for _, r := range results {
		if r != nil {
			out = append(out, *r)
		}
	}
	if err := context.Cause(ctx); err != nil && ctx.Err() != nil {
		return out, err
	}
	return out, errors.Join(errs...)
}

func (f *Fetcher) fetchPack(ctx context.Context, base Source, p lock.Pack) (*Result, error) {
	dst := f.Path(p.SHA256)
	switch err := lock.VerifyFile(dst, p.Size, p.SHA256); {
	case err == nil:
		now := time.Now() // used now: a Cache on Dir evicts it last
		os.Chtimes(dst, now, now)
		return &Result{Pack: p, Path: dst}, nil
	case errors.Is(err, lock.ErrWrongBytes):
		// Changed in place: its name no longer tells its bytes.
		if rerr := os.Remove(dst); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			return nil, fmt.Errorf("remove %s, which lost its bytes (%w): %w", dst, err, rerr)
		}
	}
	var fallback string
	// A set in a registry has no chunk store: its archives are blobs.
	if f.Delta != nil && p.Index != nil && base.OCI == "" {
		r, err := f.fetchDelta(ctx, base, p, dst)
		if err == nil {
			return r, nil
		}
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		// No seed is the first download of a pack, not a fault: it is
		// logged, and results and events name only real faults.
		if !errors.Is(err, ErrNoSeed) {
			fallback = err.Error()
		}
		f.deltaLog().Info("downloading the whole archive: the delta update could not be used", "pack", p.ID, "version", p.Version, "err", err)
	}
	fe := &FetchError{Pack: p}
	if base.OCI != "" {
		// A set in a registry: the archive is the blob by its SHA-256,
		// whatever URLs its lock names.
		ref, err := oci.ParseReference(base.OCI)
		if err != nil {
			return nil, err
		}
		src := Source{OCI: ref.Blob(p.SHA256)}
		tries, err := f.fetchFrom(ctx, nil, p, src, dst, "", &blobSource{reg: f.registry(), ref: ref})
		if err == nil {
			return &Result{Pack: p, Path: dst, From: src.OCI}, nil
		}
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		fe.Attempts = append(fe.Attempts, Attempt{URL: src.OCI, Tries: tries, Err: err, Reason: err.Error()})
		return nil, fe
	}
	client := f.mirrorClient(base)
	for _, ref := range p.URLs {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		src, err := Resolve(base, ref)
		if err != nil {
			fe.Attempts = append(fe.Attempts, Attempt{URL: lock.Redact(ref), Tries: 0, Err: err, Reason: err.Error()})
			continue
		}
		tries, err := f.fetchFrom(ctx, client, p, src, dst, fallback, nil)
		if err == nil {
			return &Result{Pack: p, Path: dst, From: src.Redacted(), Fallback: fallback}, nil
		}
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		fe.Attempts = append(fe.Attempts, Attempt{URL: src.Redacted(), Tries: tries, Err: err, Reason: err.Error()})
	}
	return nil, fe
}

// download is one archive being written into its temp file.
type download struct {
	f      *Fetcher
	client *http.Client
	ctx    context.Context // stops a local copy; a request has its own
	pack   lock.Pack
	url    string
	// shown is url as it may be shown: without its password.
	shown string
	file  *os.File
	hash  hash.Hash
	have  int64
	// validator is the strong ETag or Last-Modified of the first response,
	// sent as If-Range so that a resumed transfer continues the same file.
	validator string
	reported  int64
	// fallback is why the archive is downloaded whole though its pack
	// names a chunk index, for progress reports.
	fallback string
	// pace, during a request, holds the transfer to the minimum rate and
	// the attempt's deadline; nil for a local copy.
	pace *pace
	// blob, when set, reads the archive from an OCI registry instead of
	// url.
	blob *blobSource
}

// blobSource is the registry and repository an archive's blob is read
// from.
type blobSource struct {
	reg *oci.Registry
	ref oci.Reference
}

// pace checks a transfer's rate over windows of a fixed length, and the
// deadline of the whole attempt, on the Fetcher's clock.
type pace struct {
	now      func() time.Time
	start    time.Time
	deadline time.Duration
	minRate  int64
	window   time.Duration
	winStart time.Time
	winBytes int64
}

// check is called after each read with the bytes received so far.
func (p *pace) check(have, size int64) error {
	now := p.now()
	if now.Sub(p.start) > p.deadline {
		return fmt.Errorf("%w: the attempt ran past its deadline of %v, at %d of %d bytes", ErrTooSlow, p.deadline, have, size)
	}
	el := now.Sub(p.winStart)
	if el < p.window {
		return nil
	}
	got := have - p.winBytes
	if have < size && float64(got) < float64(p.minRate)*el.Seconds() {
		return fmt.Errorf("%w: %d bytes in %v, below the minimum of %d bytes/s", ErrTooSlow, got, el.Round(time.Millisecond), p.minRate)
	}
	p.winStart, p.winBytes = now, have
	return nil
}

// fetchFrom brings the archive from one mirror into dst and returns how
// many tries it took. Failures that may pass are retried with back-off;
// a 4xx or wrong bytes end this mirror at once.
func (f *Fetcher) fetchFrom(ctx context.Context, client *http.Client, p lock.Pack, src Source, dst, fallback string, blob *blobSource) (int, error) {
	pending, err := atomicfile.Create(dst, 0o644)
	if err != nil {
		return 0, err
	}
	defer pending.Cleanup()
	d := &download{f: f, client: client, ctx: ctx, pack: p, url: src.String(), shown: src.Redacted(), file: pending.File(), hash: sha256.New(), blob: blob, fallback: fallback}
	tries := 0
	if src.Path != "" {
		tries = 1
		err = d.copyFile(src.Path)
	} else {
		bo := backoff.NewExponentialBackOff()
		bo.InitialInterval = pos(f.InitialDelay, DefaultInitialDelay)
		bo.MaxInterval = pos(f.MaxDelay, DefaultMaxDelay)
		bo.RandomizationFactor = 0.5
		bo.Multiplier = 2
		for {
			tries++
			err = d.attempt(ctx)
			if err == nil || ctx.Err() != nil || !retryable(err) || tries >= pos(f.Tries, DefaultTries) {
				break
			}
			if serr := f.sleep(ctx, bo.NextBackOff()); serr != nil {
				return tries, serr
			}
		}
	}
	if err != nil {
		return tries, err
	}
	if d.have != p.Size {
		return tries, fmt.Errorf("%w: %d bytes, the lock pins %d", lock.ErrWrongBytes, d.have, p.Size)
	}
	if got := hex.EncodeToString(d.hash.Sum(nil)); got != p.SHA256 {
		return tries, fmt.Errorf("%w: SHA-256 %s, the lock pins %s", lock.ErrWrongBytes, got, p.SHA256)
	}
	if err := pending.Commit(atomicfile.Renamer{}); err != nil {
		return tries, err
	}
	// Read-only once in place (written writable: a read-only file is not
	// written through on every system).
	if err := os.Chmod(dst, 0o444); err != nil {
		return tries, permanent(err)
	}
	return tries, atomicfile.SyncDir(f.Dir)
}

// copyFile reads a local mirror: at most size bytes, after checking the
// file's size.
func (d *download) copyFile(path string) error {
	in, err := os.Open(path)
	if err != nil {
		return err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%w: not a regular file", lock.ErrWrongBytes)
	}
	if st.Size() != d.pack.Size {
		return fmt.Errorf("%w: %d bytes, the lock pins %d", lock.ErrWrongBytes, st.Size(), d.pack.Size)
	}
	d.report()
	return d.copy(in)
}

// copy appends at most the remaining bytes of the archive from r.
func (d *download) copy(r io.Reader) error {
	buf := make([]byte, 64<<10)
	lr := io.LimitReader(r, d.pack.Size-d.have)
	for {
		if err := d.ctx.Err(); err != nil {
			return context.Cause(d.ctx)
		}
		n, err := lr.Read(buf)
		if n > 0 {
			if _, werr := d.file.Write(buf[:n]); werr != nil {
				return permanent(werr)
			}
			d.hash.Write(buf[:n])
			d.have += int64(n)
			if d.have-d.reported >= progressStep || d.have == d.pack.Size {
				d.report()
			}
			if d.pace != nil {
				if err := d.pace.check(d.have, d.pack.Size); err != nil {
					return permanent(err)
				}
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func (d *download) report() {
	d.reported = d.have
	if d.f.Progress != nil {
		d.f.Progress(Progress{Pack: d.pack.ID, URL: d.shown, Done: d.have, Total: d.pack.Size, Fallback: d.fallback})
	}
}

// restart throws away what was received.
func (d *download) restart() error {
	if err := d.file.Truncate(0); err != nil {
		return permanent(err)
	}
	if _, err := d.file.Seek(0, io.SeekStart); err != nil {
		return permanent(err)
	}
	d.hash.Reset()
	d.have, d.reported = 0, 0
	return nil
}

// errStalled ends an attempt whose transfer stopped moving.
var errStalled = errors.New("timeout: no data received")

// deadlineError ends an attempt that ran past its deadline by the wall
// clock, when no read came to check it.
type deadlineError struct{ d time.Duration }

func (e deadlineError) Error() string {
	return fmt.Sprintf("the attempt ran past its deadline of %v", e.d)
}

// attempt makes one request, resuming with Range when part of the archive
// is in already.
func (d *download) attempt(ctx context.Context) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stall := pos(d.f.Stall, DefaultStall)
	watchdog := time.AfterFunc(stall, func() { cancel(errStalled) })
	defer watchdog.Stop()
	minRate := pos(d.f.MinRate, DefaultMinRate)
	deadline := AttemptDeadline(d.pack.Size-d.have, minRate)
	late := time.AfterFunc(deadline, func() { cancel(deadlineError{deadline}) })
	defer late.Stop()
	start := d.f.now()
	d.pace = nil
	defer func() { d.pace = nil }()
	if d.blob != nil {
		return d.attemptBlob(ctx, watchdog, stall, start, deadline, minRate)
	}

	req, err := http.NewRequestWithContext(ctx, http.MethodGet, d.url, nil)
	if err != nil {
		return permanent(err)
	}
	ranged := d.have > 0
	if ranged {
		req.Header.Set("Range", "bytes="+strconv.FormatInt(d.have, 10)+"-")
		if d.validator != "" {
			req.Header.Set("If-Range", d.validator)
		}
	}
	resp, err := d.client.Do(req)
	if err != nil {
		if c := context.Cause(ctx); errors.Is(c, errStalled) {
			return errStalled
		}
		if err := lateError(ctx); err != nil {
			return err
		}
		return requestError(err)
	}
	defer resp.Body.Close()
	if err := statusError(resp); err != nil {
		return err
	}
	switch {
	case resp.StatusCode == http.StatusPartialContent && ranged:
		start, total, ok := contentRange(resp.Header.Get("Content-Range"))
		if !ok || start != d.have || (total >= 0 && total != d.pack.Size) {
			// Not the range we asked for: start again from the first byte.
			if err := d.restart(); err != nil {
				return err
			}
			return fmt.Errorf("the server answered the range bytes=%d- with %q; starting again", start, resp.Header.Get("Content-Range"))
		}
	case resp.StatusCode == http.StatusOK:
		if ranged { // the server ignored the Range: the body is the whole file
			if err := d.restart(); err != nil {
				return err
			}
		}
		if d.validator == "" {
			if et := resp.Header.Get("ETag"); et != "" && !strings.HasPrefix(et, "W/") {
				d.validator = et
			} else if lm := resp.Header.Get("Last-Modified"); lm != "" {
				d.validator = lm
			}
		}
	default:
		return permanent(fmt.Errorf("unexpected answer %s", rejection.Escape(resp.Status)))
	}
	if resp.ContentLength >= 0 && resp.ContentLength != d.pack.Size-d.have {
		// Nothing to throw away: a permanent error ends this mirror, and
		// fetchFrom removes its file, whatever it holds.
		return permanent(fmt.Errorf("%w: the server sends %d bytes, the lock pins %d", lock.ErrWrongBytes, resp.ContentLength+d.have, d.pack.Size))
	}
	return d.receive(ctx, resp.Body, watchdog, stall, start, deadline, minRate)
}

// attemptBlob reads the archive's blob from its registry, from the bytes
// already in on when the registry serves ranges.
func (d *download) attemptBlob(ctx context.Context, watchdog *time.Timer, stall time.Duration, start time.Time, deadline time.Duration, minRate int64) error {
	rc, from, err := d.blob.reg.OpenBlob(ctx, d.blob.ref, d.pack.SHA256, d.pack.Size, d.have)
	if err != nil {
		if c := context.Cause(ctx); errors.Is(c, errStalled) {
			return errStalled
		}
		if err := lateError(ctx); err != nil {
			return err
		}
		if !oci.Retryable(err) {
			return permanent(err)
		}
		return err
	}
	defer rc.Close()
	if from != d.have { // no range: the body is the whole blob
		if err := d.restart(); err != nil {
			return err
		}
	}
	return d.receive(ctx, rc, watchdog, stall, start, deadline, minRate)
}

// receive copies the rest of the archive from body, under the stall
// watchdog, the minimum rate and the attempt's deadline.
func (d *download) receive(ctx context.Context, r io.Reader, watchdog *time.Timer, stall time.Duration, start time.Time, deadline time.Duration, minRate int64) error {
	if d.have == 0 {
		d.report()
	}
	d.pace = &pace{now: d.f.now, start: start, deadline: deadline, minRate: minRate,
		window: pos(d.f.RateWindow, DefaultRateWindow), winStart: d.f.now(), winBytes: d.have}
	body := &watchedReader{r: r, reset: func() { watchdog.Reset(stall) }}
	if err := d.copy(body); err != nil {
		if c := context.Cause(ctx); errors.Is(c, errStalled) {
			return fmt.Errorf("transfer cut at %d of %d bytes: %w", d.have, d.pack.Size, errStalled)
		}
		if lerr := lateError(ctx); lerr != nil {
			return fmt.Errorf("transfer cut at %d of %d bytes: %w", d.have, d.pack.Size, lerr)
		}
		return fmt.Errorf("transfer cut at %d of %d bytes: %w", d.have, d.pack.Size, err)
	}
	if d.have < d.pack.Size {
		return fmt.Errorf("transfer cut at %d of %d bytes: %w", d.have, d.pack.Size, io.ErrUnexpectedEOF)
	}
	return nil
}

// lateError returns the permanent ErrTooSlow of an attempt that the
// deadline's timer ended, or nil.
func lateError(ctx context.Context) error {
	var de deadlineError
	if errors.As(context.Cause(ctx), &de) {
		return permanent(fmt.Errorf("%w: %v", ErrTooSlow, de))
	}
	return nil
}

// requestError drops the method and URL that net/http puts in front of a
// request's error: the caller names the URL once.
func requestError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

type watchedReader struct {
	r     io.Reader
	reset func()
}

func (w *watchedReader) Read(p []byte) (int, error) {
	n, err := w.r.Read(p)
	if n > 0 {
		w.reset()
	}
	return n, err
}

// contentRange parses "bytes START-END/TOTAL"; total is -1 for "*".
func contentRange(s string) (start, total int64, ok bool) {
	rest, found := strings.CutPrefix(s, "bytes ")
	if !found {
		return 0, 0, false
	}
	rng, tot, found := strings.Cut(rest, "/")
	if !found {
		return 0, 0, false
	}
	a, _, found := strings.Cut(rng, "-")
	if !found {
		return 0, 0, false
	}
	start, err := strconv.ParseInt(a, 10, 64)
	if err != nil {
		return 0, 0, false
	}
	if tot == "*" {
		return start, -1, true
	}
	total, err = strconv.ParseInt(tot, 10, 64)
	return start, total, err == nil
}

// StatusError is an HTTP answer that is not a success.
type StatusError struct {
	Code   int
	Status string
}

// Error names the status; the server's reason phrase is escaped
// (rejection.Escape), so that it cannot drive a terminal.
func (e *StatusError) Error() string { return "HTTP " + rejection.Escape(e.Status) }

// statusError returns the error of a failed response: 408, 429 and 5xx
// may pass and are retried; any other 4xx (and 3xx that were not followed)
// moves to the next mirror.
func statusError(resp *http.Response) error {
	c := resp.StatusCode
	if c < 300 || c == http.StatusNotModified {
		return nil
	}
	err := &StatusError{Code: c, Status: resp.Status}
	if c >= 500 || c == http.StatusRequestTimeout || c == http.StatusTooManyRequests {
		return err
	}
	return permanent(err)
}

// permanentError marks a failure that retrying the same mirror cannot
// mend.
type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

func permanent(err error) error { return &permanentError{err} }

func retryable(err error) bool {
	var p *permanentError
	return !errors.As(err, &p) && !errors.Is(err, lock.ErrWrongBytes) && !errors.Is(err, ErrPrivateAddress)
}
