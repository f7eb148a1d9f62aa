package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mjolnir-forge/forgesync/inventory/rejection"
	"github.com/mjolnir-forge/forgesync/sets/casync"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// errChunk is wrapped when no chunk store mirror gave a chunk's right
// bytes.
var errChunk = errors.New("chunk not available")

// chunkStall is how long one chunk's transfer may go without a byte; a
// chunk is at most a few hundred KiB, so a mirror that keeps it longer is
// given up for the next.
const chunkStall = 30 * time.Second

// lateRebuild ends a rebuild from chunks that ran past its deadline (see
// [Fetcher.fetchDelta]); it matches ErrTooSlow.
type lateRebuild struct{ d time.Duration }

func (e lateRebuild) Error() string {
	return fmt.Sprintf("%v: the rebuild ran past its deadline of %v, the time one attempt at the whole archive may take", errTooSlow, e.d)
}

// Is reports whether target is ErrTooSlow.
func (e lateRebuild) Is(target error) bool { return target == errTooSlow }

// maxCompressedChunk is the most bytes a chunk file of size uncompressed
// bytes may have: zstd's worst case for incompressible data (its
// ZSTD_COMPRESSBOUND, size + size/256 + a little) plus room for a frame
// header and checksum. A larger answer is refused unread.
func maxCompressedChunk(size uint64) uint64 { return size + size>>7 + 1<<10 }

// ChunkStore fetches chunks from a lock's chunk store (SPEC §10.2a) over
// HTTP, or from a folder for a lock read from a folder: each mirror in
// order, at BASE/xxxx/<id>.cacnk, with a Fetcher's client, tries and
// back-off. A 4xx moves to the next mirror; connection errors, timeouts and
// 5xx are tried again first. A response over [maxCompressedChunk] of the
// chunk's size, or one that does not decompress to the chunk's bytes
// (casync.DecodeChunk checks the digest), moves to the next mirror. A chunk
// is held to the rules of an archive's download: the Fetcher's minimum
// rate over its window and a deadline per attempt ([attemptDeadline] of
// the chunk's bound); a mirror too slow for one chunk is given up for the
// rest of the store's chunks. It implements casync.Store and is safe for
// concurrent use.
type ChunkStore struct {
	f       *Fetcher
	client  *http.Client
	mirrors []Source
	// slow marks, by index in mirrors, those given up as too slow.
	slow []atomic.Bool
	// due, when set, is the deadline of the whole rebuild on the
	// Fetcher's clock: a chunk asked for after it is refused.
	due   time.Time
	dueIn time.Duration
	// peer is, by index in mirrors, the LAN peer (SPEC §13) whose store
	// the mirror is, or "" for one of the lock's: the peers come first.
	peer []string
	// keep, when set, is the machine's own chunk store: every chunk
	// fetched lands there too, for its peers.
	keep string
	// requests and wire count HTTP requests made and the body bytes they
	// received; local counts chunks read from a folder. peerBytes counts
	// the chunks' (uncompressed) bytes that peers gave.
	requests, wire, peerBytes atomic.Int64
}

// NewChunkStore returns the chunk store of a lock read from base whose
// chunks key lists refs. Relative references resolve against the lock's
// location; a reference that does not resolve is an error naming it.
func (f *Fetcher) NewChunkStore(base Source, refs []string) (*ChunkStore, error) {
	s := &ChunkStore{f: f, client: f.mirrorClient(base)}
	if f.Peers != nil && len(refs) > 0 {
		for _, peer := range f.Peers.List() {
			s.mirrors = append(s.mirrors, Source{URL: peer + peerChunks})
			s.peer = append(s.peer, peer)
		}
	}
	if f.Delta != nil {
		s.keep = f.Delta.Keep
	}
	for _, ref := range refs {
		src, err := resolve(base, ref)
		if err != nil {
			return nil, fmt.Errorf("chunk store: %w", err)
		}
		if src.URL != "" && !strings.HasSuffix(src.URL, "/") {
			src.URL += "/"
		}
		s.mirrors = append(s.mirrors, src)
		s.peer = append(s.peer, "")
	}
	s.slow = make([]atomic.Bool, len(s.mirrors))
	return s, nil
}

// Requests returns how many HTTP requests the store made.
func (s *ChunkStore) Requests() int64 { return s.requests.Load() }

// WireBytes returns how many response body bytes the store received.
func (s *ChunkStore) WireBytes() int64 { return s.wire.Load() }

// GetChunk returns the verified bytes of the chunk id of size bytes from
// the first mirror that has them.
func (s *ChunkStore) GetChunk(ctx context.Context, id casync.ChunkID, size uint64) ([]byte, error) {
	name := id.String()
	rel := name[:4] + "/" + name + ".cacnk"
	if !s.due.IsZero() && s.f.now().After(s.due) {
		return nil, fmt.Errorf("chunk %s: %w", name, lateRebuild{s.dueIn})
	}
	var errs []string
	for i, m := range s.mirrors {
		var data []byte
		var err error
		shown := m.Redacted()
		if s.slow[i].Load() {
			errs = append(errs, fmt.Sprintf("%s: given up as %v earlier in this rebuild", rejection.Escape(shown), errTooSlow))
			continue
		}
		switch {
		case m.Path != "":
			data, err = casync.LocalStore{Dir: m.Path}.GetChunk(ctx, id, size)
		case s.peer[i] != "":
			data, err = s.fromPeer(ctx, i, m.URL+rel, id, size)
		default:
			data, err = s.fromURL(ctx, s.f, m.URL+rel, id, size)
		}
		if err == nil {
			s.kept(id, data, m.Path == "")
			return data, nil
		}
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		if errors.Is(err, errTooSlow) {
			s.slow[i].Store(true)
		}
		errs = append(errs, fmt.Sprintf("%s: %v", rejection.Escape(shown), err))
	}
	if len(errs) == 0 {
		return nil, fmt.Errorf("chunk %s: %w: the lock names no chunk store", name, errChunk)
	}
	return nil, fmt.Errorf("chunk %s: %w: %s", name, errChunk, strings.Join(errs, "; "))
}

// fromPeer returns a LAN peer's chunk, with one try: a peer that does not
// have it (404) or is busy (503) is passed over; one that errs, stalls or sends wrong bytes
// is dropped, and not asked again in this rebuild.
func (s *ChunkStore) fromPeer(ctx context.Context, i int, u string, id casync.ChunkID, size uint64) ([]byte, error) {
	data, err := s.fromURL(ctx, s.f.peerFetcher(), u, id, size)
	if err == nil {
		s.peerBytes.Add(int64(len(data)))
		return data, nil
	}
	if ctx.Err() == nil && !passOver(err) {
		s.slow[i].Store(true)
		s.f.Peers.Drop(s.peer[i], err)
	}
	return nil, err
}

// kept puts a chunk fetched over the network into the machine's own chunk
// store, when it has one; a chunk that cannot be kept costs only a peer's
// later fetch.
func (s *ChunkStore) kept(id casync.ChunkID, data []byte, fetched bool) {
	if s.keep == "" || !fetched {
		return
	}
	if err := (casync.LocalStore{Dir: s.keep}).PutChunk(id, data); err != nil {
		s.f.deltaLog().Warn("could not keep a chunk for LAN peers", "chunk", id.String(), "err", err)
	}
}

// PeerBytes returns the (uncompressed) bytes of the chunks LAN peers gave.
func (s *ChunkStore) PeerBytes() int64 { return s.peerBytes.Load() }

// fromURL returns one mirror's chunk, fetched with f's tries.
func (s *ChunkStore) fromURL(ctx context.Context, f *Fetcher, u string, id casync.ChunkID, size uint64) ([]byte, error) {
	data, err := f.smallGet(ctx, s.client, u, maxCompressedChunk(size), &s.requests, &s.wire)
	if err != nil {
		return nil, err
	}
	out, err := casync.DecodeChunk(id, data, size)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", lock.ErrWrongBytes, err)
	}
	if uint64(len(out)) != size {
		return nil, fmt.Errorf("%w: the chunk has %d bytes, the index says %d", lock.ErrWrongBytes, len(out), size)
	}
	return out, nil
}

// smallGet returns the body of u, at most limit bytes, with the Fetcher's
// tries and back-off for failures that may pass; requests and wire, when
// set, count the requests made and the body bytes received.
func (f *Fetcher) smallGet(ctx context.Context, client *http.Client, u string, limit uint64, requests, wire *atomic.Int64) ([]byte, error) {
	var data []byte
	tries, err := f.retry(ctx, retryable, func() (err error) {
		data, err = f.smallOnce(ctx, client, u, limit, requests, wire)
		return err
	})
	if err != nil && tries > 1 {
		err = fmt.Errorf("%w (%d tries)", err, tries)
	}
	return data, err
}

// smallOnce makes one request of smallGet, held to the stall watchdog, the
// minimum rate and a deadline, as an archive's attempt is.
func (f *Fetcher) smallOnce(ctx context.Context, client *http.Client, u string, limit uint64, requests, wire *atomic.Int64) ([]byte, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stall := pos(f.Stall, chunkStall)
	watchdog := time.AfterFunc(stall, func() { cancel(errStalled) })
	defer watchdog.Stop()
	minRate := pos(f.MinRate, defaultMinRate)
	deadline := attemptDeadline(int64(limit), minRate)
	late := time.AfterFunc(deadline, func() { cancel(deadlineError{deadline}) })
	defer late.Stop()
	start := f.now()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, permanent(err)
	}
	if requests != nil {
		requests.Add(1)
	}
	resp, err := client.Do(req)
	if err != nil {
		if errors.Is(context.Cause(ctx), errStalled) {
			return nil, errStalled
		}
		if lerr := lateError(ctx); lerr != nil {
			return nil, lerr
		}
		return nil, requestError(err)
	}
	defer resp.Body.Close()
	if err := statusError(resp); err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, permanent(fmt.Errorf("unexpected answer %s", rejection.Escape(resp.Status)))
	}
	if resp.ContentLength > int64(limit) {
		return nil, permanent(fmt.Errorf("%w: the server sends %d bytes, over the limit of %d", errTooLarge, resp.ContentLength, limit))
	}
	size := int64(limit) + 1 // unknown: the transfer is never taken as done
	if resp.ContentLength >= 0 {
		size = resp.ContentLength
	}
	body := &pacedReader{r: &watchedReader{r: resp.Body, reset: func() { watchdog.Reset(stall) }}, size: size,
		pace: &pace{now: f.now, start: start, deadline: deadline, minRate: minRate, window: pos(f.RateWindow, defaultRateWindow), winStart: f.now()}}
	data, err := io.ReadAll(io.LimitReader(body, int64(limit)+1))
	if wire != nil {
		wire.Add(int64(len(data)))
	}
	if err != nil {
		if errors.Is(context.Cause(ctx), errStalled) {
			err = errStalled
		} else if lerr := lateError(ctx); lerr != nil {
			err = lerr
		}
		return nil, fmt.Errorf("transfer cut at %d bytes: %w", len(data), err)
	}
	if uint64(len(data)) > limit {
		return nil, permanent(fmt.Errorf("%w: over the limit of %d bytes", errTooLarge, limit))
	}
	return data, nil
}

// pacedReader holds a body to a pace: the read after which the transfer
// is below the minimum rate, or past its deadline, fails with a permanent
// ErrTooSlow.
type pacedReader struct {
	r          io.Reader
	pace       *pace
	have, size int64
}

func (p *pacedReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	if n > 0 {
		p.have += int64(n)
		if perr := p.pace.check(p.have, p.size); perr != nil {
			return n, permanent(perr)
		}
	}
	return n, err
}

var _ casync.Store = (*ChunkStore)(nil)
