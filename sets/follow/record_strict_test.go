package follow

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSetRecordStrict: set.json is decoded as strictly as packs.json: an
// unknown field, data after the record or a key twice in one object is
// refused, with a warning naming the file and the rule, and forgotten.
func TestSetRecordStrict(t *testing.T) {
	const good = `{"format":"` + recordFormat + `","source":"https://example.invalid/set.lock","fingerprint":"","lock":"","validators":{}}`
	for _, tc := range []struct {
		name, data, want string
	}{
		{"unknown field", `{"format":"` + recordFormat + `","source":"https://example.invalid/set.lock","colour":"red"}`, `unknown field "colour"`},
		{"unknown nested field", `{"format":"` + recordFormat + `","source":"https://example.invalid/set.lock","validators":{"etag":"x","age":3}}`, `unknown field "age"`},
		{"trailing data", good + ` {}`, "data after its end"},
		{"duplicate key", `{"format":"` + recordFormat + `","source":"https://example.invalid/a.lock","source":"https://example.invalid/b.lock"}`, `duplicate key "source"`},
		{"another format", `{"format":"forgesync-other","source":"https://example.invalid/set.lock"}`, `format "forgesync-other"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			state := t.TempDir()
			path := filepath.Join(state, recordName)
			if err := os.WriteFile(path, []byte(tc.data), 0o600); err != nil {
				t.Fatal(err)
			}
			var logs bytes.Buffer
			s, err := New(nil, Options{State: state, Log: slog.New(slog.NewTextHandler(&logs, nil))})
			if err != nil {
				t.Fatalf("New(set.json with %s) = %v; want it forgotten", tc.name, err)
			}
			if rec := s.Record(); rec.Source != "" {
				t.Errorf("Record() = %+v; want nothing remembered", rec)
			}
			if !strings.Contains(logs.String(), path) || !strings.Contains(logs.String(), strings.ReplaceAll(tc.want, `"`, `\"`)) {
				t.Errorf("log %q; want a warning naming %s and %s", logs.String(), path, tc.want)
			}
		})
	}
	// The record as written is read back.
	state := t.TempDir()
	if err := os.WriteFile(filepath.Join(state, recordName), []byte(good), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := New(nil, Options{State: state})
	if err != nil || s.Record().Source != "https://example.invalid/set.lock" {
		t.Fatalf("New(a good set.json) = %+v, %v; want it read", s.Record(), err)
	}
}
