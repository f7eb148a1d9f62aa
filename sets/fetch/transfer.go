package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/mjolnir-forge/forgesync/inventory/rejection"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

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
		return fmt.Errorf("%w: the attempt ran past its deadline of %v, at %d of %d bytes", errTooSlow, p.deadline, have, size)
	}
	el := now.Sub(p.winStart)
	if el < p.window {
		return nil
	}
	got := have - p.winBytes
	if have < size && float64(got) < float64(p.minRate)*el.Seconds() {
		return fmt.Errorf("%w: %d bytes in %v, below the minimum of %d bytes/s", errTooSlow, got, el.Round(time.Millisecond), p.minRate)
	}
	p.winStart, p.winBytes = now, have
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

// lateError returns the permanent ErrTooSlow of an attempt that the
// deadline's timer ended, or nil.
func lateError(ctx context.Context) error {
	var de deadlineError
	if errors.As(context.Cause(ctx), &de) {
		return permanent(fmt.Errorf("%w: %v", errTooSlow, de))
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

// watchedReader calls reset after each read that brings bytes: it feeds a
// transfer's stall watchdog.
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

// httpStatusError is an HTTP answer that is not a success.
type httpStatusError struct {
	Code   int
	Status string
}

// Error names the status; the server's reason phrase is escaped
// (rejection.Escape), so that it cannot drive a terminal.
func (e *httpStatusError) Error() string { return "HTTP " + rejection.Escape(e.Status) }

// statusError returns the error of a failed response: 408, 429 and 5xx
// may pass and are retried; any other 4xx (and 3xx that were not followed)
// moves to the next mirror.
func statusError(resp *http.Response) error {
	c := resp.StatusCode
	if c < 300 || c == http.StatusNotModified {
		return nil
	}
	err := &httpStatusError{Code: c, Status: resp.Status}
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
