package daemon

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mjolnir-forge/forgesync/api"
)

// fakeStager is a backend that stages: it counts the stages it was asked
// for.
type fakeStager struct {
	*fakeBackend
	stages atomic.Int32
}

func (f *fakeStager) SetStage(_ context.Context, req api.SetStageRequest) (*api.SetStageResult, error) {
	f.stages.Add(1)
	return &api.SetStageResult{Name: "staged", Fingerprint: "sha256:" + strings.Repeat("a", 64), Downloaded: []api.Downloaded{}}, nil
}

func (f *fakeStager) SetApplyStaged(context.Context, string) (*api.SetSyncResult, error) {
	return &api.SetSyncResult{Downloaded: []api.Downloaded{}}, nil
}

func (f *fakeStager) SetFingerprint(fp string) (api.SetFingerprintCheck, error) {
	return api.SetFingerprintCheck{Fingerprint: fp}, nil
}

// TestStageNamedKeyNeedsTheAPIKey: behind the TCP API's key check (a
// request that passed it another way, as a page session may), a stage that
// names a key of its own is refused unless the request itself carries the
// API key, and the backend never hears of it; one naming no key, or
// carrying the key, goes through.
func TestStageNamedKeyNeedsTheAPIKey(t *testing.T) {
	b := &fakeStager{fakeBackend: newFakeBackend()}
	opts := ServerOptions{APIKey: "the-key"}.withDefaults()
	s := &server{b: b, opts: opts, log: opts.Logger}
	h := s.routes() // without requireKey in front
	post := func(body, key string) (int, string) {
		req := httptest.NewRequestWithContext(t.Context(), http.MethodPost, "http://127.0.0.1/v1/set/stage", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if key != "" {
			req.Header.Set("X-API-Key", key)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code, rec.Body.String()
	}
	named := `{"url":"https://forge.example.org/","key":"RWQ` + strings.Repeat("A", 53) + `"}`
	if code, body := post(named, ""); code != http.StatusForbidden || !strings.Contains(body, "needs the API key on the request itself") {
		t.Errorf("stage naming a key, no API key = %d %s; want 403 saying so", code, body)
	}
	if code, body := post(named, "another-key"); code != http.StatusForbidden {
		t.Errorf("stage naming a key, a wrong API key = %d %s; want 403", code, body)
	}
	if n := b.stages.Load(); n != 0 {
		t.Fatalf("the backend staged %d times for refused requests", n)
	}
	if code, body := post(named, "the-key"); code != http.StatusOK {
		t.Errorf("stage naming a key, with the API key = %d %s; want 200", code, body)
	}
	if code, body := post(`{"url":"https://forge.example.org/"}`, ""); code != http.StatusOK {
		t.Errorf("stage naming no key = %d %s; want 200", code, body)
	}
	if n := b.stages.Load(); n != 2 {
		t.Errorf("the backend staged %d times; want 2", n)
	}

	// A page session may name a key only for the forgesync:// link it was
	// opened on: that link's set, that link's key.
	key := "RWQ" + strings.Repeat("A", 53)
	viaPage := func(link *api.PageLink, body string) int {
		req := httptest.NewRequestWithContext(t.Context(), http.MethodPost, "http://127.0.0.1/v1/set/stage", strings.NewReader(body))
		req = req.WithContext(context.WithValue(req.Context(), sessionKey{}, pageSession{link: link}))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code
	}
	for _, c := range []struct {
		name string
		link *api.PageLink
		want int
	}{
		{"no link", nil, http.StatusForbidden},
		{"another link's set", &api.PageLink{URL: "https://evil.example/", Key: key}, http.StatusForbidden},
		{"another key", &api.PageLink{URL: "https://forge.example.org/", Key: "RWQ" + strings.Repeat("B", 53)}, http.StatusForbidden},
		{"the link's set and key", &api.PageLink{URL: "https://forge.example.org/", Key: key}, http.StatusOK},
	} {
		if got := viaPage(c.link, named); got != c.want {
			t.Errorf("a page session (%s) staging with a named key = %d; want %d", c.name, got, c.want)
		}
	}
	if n := b.stages.Load(); n != 3 {
		t.Errorf("the backend staged %d times; want 3", n)
	}
}
