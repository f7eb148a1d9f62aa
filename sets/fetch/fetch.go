package fetch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/mjolnir-forge/forgesync/inventory/rejection"
	"github.com/mjolnir-forge/forgesync/sets/lock"
	"github.com/mjolnir-forge/forgesync/sets/oci"
)

// Defaults of a Fetcher.
const (
	// maxConcurrency is the most archives fetched at once (SPEC §10.2).
	maxConcurrency = 4
	// defaultTries is how often one mirror is tried for a failure that may
	// pass (a connection error, a timeout, a 5xx, a cut transfer).
	defaultTries = 4
	// defaultInitialDelay is the first back-off delay; it doubles per try,
	// with ±50% jitter, up to DefaultMaxDelay.
	defaultInitialDelay = 500 * time.Millisecond
	// defaultMaxDelay bounds one back-off delay.
	defaultMaxDelay = 15 * time.Second
	// defaultStall is how long a transfer may go without a byte before
	// the attempt fails as a timeout.
	defaultStall = 30 * time.Second
	// defaultMinRate is the slowest a transfer may be, in bytes per
	// second averaged over DefaultRateWindow: a mirror below it (say, a
	// byte every two seconds, which the stall watchdog never catches) is
	// given up for the next one, not retried.
	defaultMinRate = 16 << 10
	// defaultRateWindow is how long the rate is averaged over.
	defaultRateWindow = 30 * time.Second
	// defaultAttemptSlack is added to the time the archive's remaining
	// bytes take at the minimum rate to give one attempt's deadline
	// (see [attemptDeadline]).
	defaultAttemptSlack = 2 * time.Minute
	// progressStep is how many bytes pass between two progress reports.
	progressStep = 256 << 10
)

// Errors of fetching, wrapped with the URL and the details.
var (
	// errAllMirrorsFailed is matched by a *FetchError: no mirror of a pack
	// gave its archive.
	errAllMirrorsFailed = errors.New("every mirror failed")
	// errTooLarge is returned when a lock or a signature is over its
	// limit.
	errTooLarge = errors.New("too large")
	// errTooSlow is returned when a mirror sends below the minimum rate,
	// or an attempt runs past its deadline: the next mirror is tried.
	errTooSlow = errors.New("too slow")
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
	// Peer is set when the bytes come from a LAN peer (SPEC §13), not a
	// mirror.
	Peer bool
}

// Peers are the LAN peers a [Fetcher] asks first for each archive and
// chunk (SPEC §13): List returns their base URLs (http://HOST:PORT), in the
// order to ask them; Drop drops one, until the daemon restarts, with why.
type Peers interface {
	List() []string
	Drop(peer string, why error)
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
	// Peers, when set, are asked for each archive (after a delta update,
	// whose chunks they are asked for first) before its mirrors: one try
	// each, under the mirrors' stall, minimum-rate and deadline rules. A
	// peer without the archive (404) is passed over; one that errs,
	// stalls or sends wrong bytes is dropped.
	Peers Peers
}

// Result is a pack whose archive is in the destination folder.
type Result struct {
	Pack lock.Pack
	// Path is the archive's file: Dir/<sha256>.
	Path string
	// From is the mirror that served it, its password redacted (see
	// lock.Redact); empty when the archive was in the folder already. For an
	// archive rebuilt from chunks, the first chunk store.
	From string
	// Delta says how an archive rebuilt from chunks was made; nil for a
	// whole download.
	Delta *DeltaStats
	// Fallback says why an archive whose pack names a chunk index was
	// downloaded whole.
	Fallback string
	// Peer is set when a LAN peer served the whole archive (SPEC §13).
	Peer bool
}

// attempt is one mirror's failure for one pack; URL is redacted (see
// lock.Redact).
type attempt struct {
	URL   string `json:"url"`
	Tries int    `json:"tries"`
	Err   error  `json:"-"`
	// Reason is Err in words, for JSON.
	Reason string `json:"reason"`
}

// fetchError says why a pack could not be fetched: every mirror, in order,
// with what went wrong.
type fetchError struct {
	Pack     lock.Pack
	Attempts []attempt
}

// Error names the pack and each URL with why it failed.
func (e *fetchError) Error() string {
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
func (e *fetchError) Is(target error) bool { return target == errAllMirrorsFailed }

// Unwrap returns each mirror's error.
func (e *fetchError) Unwrap() []error {
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
	MaxIdleConnsPerHost:   maxConcurrency,
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

// attemptDeadline is how long one attempt at a mirror may take to send
// remaining bytes at minRate bytes per second (0: DefaultMinRate):
// DefaultAttemptSlack for the request and the first bytes, plus the
// bytes at the minimum rate.
func attemptDeadline(remaining, minRate int64) time.Duration {
	minRate = pos(minRate, defaultMinRate)
	return defaultAttemptSlack + time.Duration(remaining/minRate)*time.Second
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
	g.SetLimit(min(pos(f.Concurrency, maxConcurrency), maxConcurrency))
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
			if d := r.Delta; d != nil {
				f.deltaLog().Info("archive rebuilt from chunks", "pack", p.ID, "version", p.Version, "bytes", p.Size,
					"seed_bytes", d.SeedBytes, "fetched_bytes", d.FetchedBytes, "wire_bytes", d.WireBytes, "requests", d.Requests)
			}
			return r, nil
		}
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		// No seed is the first download of a pack, not a fault: it is
		// logged as such, and results and events name only real faults.
		var first noSeedsError
		switch {
		case errors.As(err, &first):
			f.deltaLog().Info("downloading the whole archive: no earlier version of the pack to rebuild it from", "pack", p.ID, "version", p.Version)
		case errors.Is(err, errNoSeed):
			f.deltaLog().Info("downloading the whole archive: the delta update could not be used", "pack", p.ID, "version", p.Version, "err", err)
		default:
			fallback = err.Error()
			f.deltaLog().Info("downloading the whole archive: the delta update could not be used", "pack", p.ID, "version", p.Version, "err", err)
		}
	}
	if r := f.fetchFromPeers(ctx, p, dst, fallback); r != nil {
		return r, nil
	}
	if base.OCI != "" {
		return f.fetchBlob(ctx, base, p, dst)
	}
	fe := &fetchError{Pack: p}
	client := f.mirrorClient(base)
	for _, ref := range p.URLs {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		src, err := resolve(base, ref)
		if err != nil {
			fe.Attempts = append(fe.Attempts, attempt{URL: lock.Redact(ref), Tries: 0, Err: err, Reason: err.Error()})
			continue
		}
		tries, err := f.fetchFrom(ctx, client, p, src, dst, fallback, nil, false)
		if err == nil {
			return &Result{Pack: p, Path: dst, From: src.Redacted(), Fallback: fallback}, nil
		}
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		fe.Attempts = append(fe.Attempts, attempt{URL: src.Redacted(), Tries: tries, Err: err, Reason: err.Error()})
	}
	return nil, fe
}

// fetchBlob brings p's archive from a set in a registry: the blob by its
// SHA-256, whatever URLs its lock names.
func (f *Fetcher) fetchBlob(ctx context.Context, base Source, p lock.Pack, dst string) (*Result, error) {
	ref, err := oci.ParseReference(base.OCI)
	if err != nil {
		return nil, err
	}
	src := Source{OCI: ref.Blob(p.SHA256)}
	tries, err := f.fetchFrom(ctx, nil, p, src, dst, "", &blobSource{reg: f.registry(), ref: ref}, false)
	if err == nil {
		return &Result{Pack: p, Path: dst, From: src.OCI}, nil
	}
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	fe := &fetchError{Pack: p}
	fe.Attempts = append(fe.Attempts, attempt{URL: src.OCI, Tries: tries, Err: err, Reason: err.Error()})
	return nil, fe
}
