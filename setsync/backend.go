package setsync

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/packset"
	"github.com/mjolnir-forge/forgesync/pipeline"
)

// DecodeBody decodes the lock of a request body holding either the TOML
// file or the same keys in JSON (an object with format, version, name,
// fingerprint and a pack array), holding both to the same rules
// (packset.Decode, packset.DecodeJSON). name is used in errors only.
// Every error wraps api.ErrInvalid.
func DecodeBody(name string, body []byte, opt packset.DecodeOptions) (*packset.Lock, error) {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return nil, fmt.Errorf("no lock in the request body: send a forgepacks.lock (TOML) or the same in JSON: %w", api.ErrInvalid)
	}
	decode := packset.Decode
	if trimmed[0] == '{' {
		decode = packset.DecodeJSON
	}
	l, err := decode(name, body, opt)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", err, api.ErrInvalid)
	}
	return l, nil
}

// Backend is the status socket's backend of a daemon that knows pack sets:
// the Runner's answers, the set in status, and the endpoints of SPEC
// §10.3.
type Backend struct {
	*pipeline.Runner
	Sets *Syncer
}

// Status adds to the Runner's status how the machine stands against its
// set.
func (b Backend) Status() api.Status {
	st := b.Runner.Status()
	installed, _ := b.Runner.Installed()
	st.Set = b.Sets.Status(installed)
	return st
}

// SetInfo answers GET /v1/set.
func (b Backend) SetInfo() api.SetInfo {
	installed, _ := b.Runner.Installed()
	return b.Sets.Info(installed)
}

// SetDiff answers POST /v1/set/diff.
func (b Backend) SetDiff(_ context.Context, body []byte) (api.SetComparison, error) {
	installed, _ := b.Runner.Installed()
	return Diff(installed, body)
}

// SetApply answers POST /v1/set/apply.
func (b Backend) SetApply(ctx context.Context, req api.SetApplyRequest) (*api.SetSyncResult, error) {
	switch {
	case req.URL != "" && req.Lock != "":
		return nil, fmt.Errorf("give either url or lock, not both: %w", api.ErrInvalid)
	case req.URL == "" && req.Lock == "":
		return nil, fmt.Errorf("give the url of a lock, or a lock (with its signature): %w", api.ErrInvalid)
	}
	r := Request{Source: req.URL, Prune: req.Prune}
	if req.Lock != "" {
		r.Lock = []byte(req.Lock)
		if req.Signature != "" {
			r.Signature = []byte(req.Signature)
		}
	}
	return answer(b.Sets.Sync(ctx, r))
}

// SetCheck answers POST /v1/set/check.
func (b Backend) SetCheck(ctx context.Context) (*api.SetSyncResult, error) {
	return answer(b.Sets.Check(ctx))
}

// answer gives a sync's errors the kinds the socket answers with: a set
// the rules refuse is a conflict, a lock refused or a bad request is
// invalid; a download that failed is the daemon's trouble (500).
func answer(res *api.SetSyncResult, err error) (*api.SetSyncResult, error) {
	switch {
	case err == nil:
		return res, nil
	case errors.Is(err, pipeline.ErrRefused), errors.Is(err, api.ErrConflict):
		return nil, kindError{err, api.ErrConflict}
	case errors.Is(err, ErrLock):
		return nil, kindError{err, api.ErrInvalid}
	}
	return nil, err
}

// kindError is an error that also matches a socket error kind.
type kindError struct{ err, kind error }

func (e kindError) Error() string   { return e.err.Error() }
func (e kindError) Unwrap() []error { return []error{e.err, e.kind} }
