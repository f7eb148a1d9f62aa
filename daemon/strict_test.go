package daemon

import (
	"net/http"
	"strings"
	"testing"
)

func TestBodyDuplicateKeysRefused(t *testing.T) {
	b := newFakeBackend()
	s := startServer(t, b, nil, ServerOptions{})
	tests := []struct{ body, key string }{
		{`{"generation": 1, "generation": 7}`, `\"generation\"`},
		{`{"generation": 1, "Generation": 7}`, `\"Generation\"`},
	}
	for _, tc := range tests {
		status, body := rawRequest(t, s, http.MethodPost, "/v1/rollback", tc.body)
		if status != http.StatusBadRequest || !strings.Contains(body, CodeInvalid) || !strings.Contains(body, "duplicate key") || !strings.Contains(body, tc.key) {
			t.Errorf("POST /v1/rollback %s = %d %s; want 400 naming the duplicate key %s", tc.body, status, body, tc.key)
		}
	}
	if calls := b.callLog(); len(calls) != 0 {
		t.Errorf("a body with duplicate keys reached the backend: %q", calls)
	}
}
