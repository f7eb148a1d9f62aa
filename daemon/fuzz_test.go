package daemon

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzHandler sends arbitrary methods, paths, queries and bodies to the
// socket's handler (in process, no socket): it must never panic, and every
// answer that is not a success must be the JSON error shape.
func FuzzHandler(f *testing.F) {
	f.Add("GET", "/v1/status", "", []byte(nil))
	f.Add("GET", "/v1/packs/foundry-wide", "", []byte(nil))
	f.Add("POST", "/v1/packs/gates/enable", "", []byte(`{}`))
	f.Add("POST", "/v1/sync", "", []byte(`{"force":true}`))
	f.Add("DELETE", "/v1/packs/%2e%2e", "", []byte(`{} {}`))
	f.Add("GET", "/v1/events", "since=abc", []byte(nil))
	f.Add("PUT", "/v1/packs/x/disable", "a=b&since=1", []byte(`[`))
	f.Add("HEAD", "/v1/events", "since=0", []byte(nil))
	b := newFakeBackend()
	ev := NewEvents(EventsOptions{})
	ev.Close() // event streams end at once instead of following live
	s := &server{b: b, ev: ev, opts: ServerOptions{}.withDefaults(), streams: f.Context(), pid: 1}
	s.log = s.opts.Logger
	h := s.routes()
	f.Fuzz(func(t *testing.T, method, path, query string, body []byte) {
		req, err := http.NewRequest(method, "http://forgesync/", bytes.NewReader(body))
		if err != nil {
			return // not a request net/http would hand to a handler
		}
		req.URL.Path, req.URL.RawQuery = path, query
		if !strings.HasPrefix(path, "/") {
			return
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code < 400 {
			return
		}
		if w.Code == http.StatusMovedPermanently { // ServeMux cleaning a path
			return
		}
		var eb errorBody
		dec := json.NewDecoder(w.Body)
		dec.DisallowUnknownFields()
		if err := dec.Decode(&eb); err != nil || eb.Error.Code == "" || eb.Error.Message == "" {
			t.Fatalf("%s %s?%s = %d %q (%v); want the JSON error shape", method, path, query, w.Code, w.Body.String(), err)
		}
	})
}
