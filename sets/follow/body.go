package follow

import (
	"bytes"
	"fmt"

	"github.com/mjolnir-forge/forgesync/internal/errkind"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// decodeBody decodes the lock of a request body holding either the TOML
// file or the same keys in JSON (an object with format, version, name,
// fingerprint and a pack array), holding both to the same rules
// (lock.Decode, lock.DecodeJSON). name is used in errors only.
// Every error wraps errkind.Invalid.
func decodeBody(name string, body []byte, opt lock.DecodeOptions) (*lock.Lock, error) {
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
