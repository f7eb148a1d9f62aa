package fetch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
	"github.com/mjolnir-forge/forgesync/inventory/rejection"
	"github.com/mjolnir-forge/forgesync/sets/lock"
	"github.com/mjolnir-forge/forgesync/sets/oci"
)

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
	// peer is set when url is a LAN peer's.
	peer bool
}

// blobSource is the registry and repository an archive's blob is read
// from.
type blobSource struct {
	reg *oci.Registry
	ref oci.Reference
}

// fetchFrom brings the archive from one mirror into dst and returns how
// many tries it took. Failures that may pass are retried with back-off;
// a 4xx or wrong bytes end this mirror at once.
func (f *Fetcher) fetchFrom(ctx context.Context, client *http.Client, p lock.Pack, src Source, dst, fallback string, blob *blobSource, peer bool) (int, error) {
	pending, err := atomicfile.Create(dst, 0o644)
	if err != nil {
		return 0, err
	}
	defer pending.Cleanup()
	d := &download{f: f, client: client, ctx: ctx, pack: p, url: src.String(), shown: src.Redacted(), file: pending.File(), hash: sha256.New(), blob: blob, fallback: fallback, peer: peer}
	tries := 0
	if src.Path != "" {
		tries = 1
		err = d.copyFile(src.Path)
	} else {
		tries, err = f.retry(ctx, retryable, func() error { return d.attempt(ctx) })
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
		d.f.Progress(Progress{Pack: d.pack.ID, URL: d.shown, Done: d.have, Total: d.pack.Size, Fallback: d.fallback, Peer: d.peer})
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

// attempt makes one request, resuming with Range when part of the archive
// is in already.
func (d *download) attempt(ctx context.Context) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stall := pos(d.f.Stall, defaultStall)
	watchdog := time.AfterFunc(stall, func() { cancel(errStalled) })
	defer watchdog.Stop()
	minRate := pos(d.f.MinRate, defaultMinRate)
	deadline := attemptDeadline(d.pack.Size-d.have, minRate)
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
		window: pos(d.f.RateWindow, defaultRateWindow), winStart: d.f.now(), winBytes: d.have}
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
