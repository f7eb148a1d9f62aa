package setsync

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/pelletier/go-toml/v2"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/internal/errkind"
	"github.com/mjolnir-forge/forgesync/pipeline"
)

// LockText returns a lock's TOML text from a request body holding either
// the TOML itself or the same keys in JSON (an object with format,
// version, name, fingerprint and a pack array). The JSON form is turned
// into TOML and decoded like any lock, so it is held to the same rules.
func LockText(body []byte) ([]byte, error) {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return nil, fmt.Errorf("no lock in the request body: send a forgepacks.lock (TOML) or the same in JSON: %w", errkind.Invalid)
	}
	if trimmed[0] != '{' {
		return body, nil
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.UseNumber()
	var v map[string]any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("lock in JSON: %v: %w", err, errkind.Invalid)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("lock in JSON: data after the object: %w", errkind.Invalid)
	}
	if dup := api.DuplicateKey(trimmed); dup != "" {
		return nil, fmt.Errorf("lock in JSON: %s: %w", dup, errkind.Invalid)
	}
	conv, err := tomlValue(v)
	if err != nil {
		return nil, fmt.Errorf("lock in JSON: %v: %w", err, errkind.Invalid)
	}
	out, err := toml.Marshal(conv)
	if err != nil {
		return nil, fmt.Errorf("lock in JSON: %v: %w", err, errkind.Invalid)
	}
	return out, nil
}

// tomlValue turns decoded JSON into values TOML writes the same way: whole
// numbers as integers, others as floats, null refused (TOML has none).
func tomlValue(v any) (any, error) {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i, nil
		}
		f, err := x.Float64()
		if err != nil {
			return nil, fmt.Errorf("number %s: %w", x, err)
		}
		return f, nil
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			c, err := tomlValue(e)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			out[k] = c
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			c, err := tomlValue(e)
			if err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
			out[i] = c
		}
		// An array of objects is an array of tables.
		if len(out) > 0 {
			if _, ok := out[0].(map[string]any); ok {
				tables := make([]map[string]any, len(out))
				for i, e := range out {
					m, ok := e.(map[string]any)
					if !ok {
						return nil, fmt.Errorf("[%d]: mixed objects and values", i)
					}
					tables[i] = m
				}
				return tables, nil
			}
		}
		return out, nil
	case nil:
		return nil, errors.New("null is not a value of a lock")
	}
	return v, nil
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
