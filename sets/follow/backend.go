package follow

import (
	"bytes"
	"context"
	"fmt"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/internal/errkind"
	"github.com/mjolnir-forge/forgesync/pipeline"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// DecodeBody decodes the lock of a request body holding either the TOML
// file or the same keys in JSON (an object with format, version, name,
// fingerprint and a pack array), holding both to the same rules
// (lock.Decode, lock.DecodeJSON). name is used in errors only.
// Every error wraps errkind.Invalid.
func DecodeBody(name string, body []byte, opt lock.DecodeOptions) (*lock.Lock, error) {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return nil, fmt.Errorf("no lock in the request body: send a forgepacks.lock (TOML) or the same in JSON: %w", errkind.Invalid)
	}
	decode := lock.Decode
	if trimmed[0] == '{' {
		decode = lock.DecodeJSON
	}
	l, err := decode(name, body, opt)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", err, errkind.Invalid)
	}
	return l, nil
}

// Backend is the status socket's backend of a daemon that knows pack sets:
// the Runner's answers, the set in status, and the endpoints of SPEC
// §10.3.
type Backend struct {
	pipeline.WireBackend
	Sets *Syncer
}

// Status adds to the Runner's status how the machine stands against its
// set, and its warnings of the set's expiry.
func (b Backend) Status() api.Status {
	st := b.Runner.Status()
	installed, _ := b.Runner.Installed()
	st.Set = b.Sets.Status(installed)
	st.Warnings = append(st.Warnings, b.Sets.Warnings()...)
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
		return nil, fmt.Errorf("give either url or lock, not both: %w", errkind.Invalid)
	case req.URL == "" && req.Lock == "":
		return nil, fmt.Errorf("give the url of a lock, or a lock (with its signature): %w", errkind.Invalid)
	}
	r := Request{Source: req.URL, Prune: req.Prune}
	if req.Lock != "" {
		r.Lock = []byte(req.Lock)
		if req.Signature != "" {
			r.Signature = []byte(req.Signature)
		}
	}
	return b.Sets.SyncSet(ctx, r)
}

// SetCheck answers POST /v1/set/check.
func (b Backend) SetCheck(ctx context.Context) (*api.SetSyncResult, error) {
	return b.Sets.Check(ctx)
}
