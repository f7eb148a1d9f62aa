package follow

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/sets/fetch"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// noPassword fails the test when the file or any value holds the password.
func noPassword(t *testing.T, path string, values map[string]any) {
	t.Helper()
	file, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	values["set.json"] = string(file)
	for what, v := range values {
		if b, _ := json.Marshal(v); strings.Contains(string(b), "s3cret") {
			t.Errorf("the %s holds the password: %s", what, b)
		}
	}
}

// TestFollowedLockWithPasswords is issue 35's item 8: a followed lock whose
// mirror, index and chunk store URLs hold a password is stored without
// them, and every later check reads the lock again (no validators are
// kept for a copy that cannot reach its mirrors), after a restart too:
// an archive the machine lost is downloaded again with the password.
func TestFollowedLockWithPasswords(t *testing.T) {
	data := []byte("the bytes of an archive behind a password, followed")
	var mu sync.Mutex
	var lock string
	var conditional []string // If-None-Match of each request of the lock
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != "user" || p != "s3cret" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		switch r.URL.Path {
		case "/set/forgepacks.lock":
			mu.Lock()
			conditional = append(conditional, r.Header.Get("If-None-Match"))
			mu.Unlock()
			if r.Header.Get("If-None-Match") == `"v1"` {
				w.WriteHeader(http.StatusNotModified)
				return
			}
			w.Header().Set("ETag", `"v1"`)
			w.Write([]byte(lock))
		case "/a.zip":
			w.Write(data)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	authed := "http://user:s3cret@" + srv.Listener.Addr().String()
	lock, _ = lockOf(data, authed+"/a.zip")
	lock = strings.Replace(lock, "version = 1\n", "version = 1\nchunks = [\""+authed+"/chunks/\"]\n", 1)
	state := t.TempDir()
	w := &fakeWriter{}
	opts := Options{State: state, Follow: authed + "/set/"}
	s, err := New(w, opts)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Check(t.Context())
	if err != nil || len(res.Downloaded) != 1 || len(w.installed) != 1 {
		t.Fatalf("Check = %+v, %v; want the archive downloaded and the set applied", res, err)
	}
	noPassword(t, filepath.Join(state, recordName), map[string]any{"record": s.Record(), "status": s.Status(w.installed)})
	if st := s.Status(w.installed); st == nil || !st.Equal {
		t.Errorf("Status = %+v; want the machine equal to the set kept without its password", st)
	}

	// A restart, then the machine loses the pack and its cached archive:
	// the lock is read whole and the archive downloaded with the password.
	s, err = New(w, opts)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := s.Check(t.Context()); err != nil || res.Check.Result != CheckEqual || len(res.Downloaded) != 0 {
		t.Errorf("Check after a restart = %+v, %v; want the set found equal, nothing downloaded", res, err)
	}
	w.installed = nil
	entries, _ := os.ReadDir(filepath.Join(state, CacheDir))
	for _, e := range entries {
		os.Chmod(filepath.Join(state, CacheDir, e.Name()), 0o644)
		os.Remove(filepath.Join(state, CacheDir, e.Name()))
	}
	res, err = s.SyncSet(t.Context(), Request{Source: authed + "/set/"})
	if err != nil || len(res.Downloaded) != 1 || len(w.installed) != 1 {
		t.Fatalf("SyncSet after the archive was lost = %+v, %v; want it downloaded again and applied", res, err)
	}
	mu.Lock()
	defer mu.Unlock()
	for i, c := range conditional {
		if c != "" {
			t.Errorf("lock request %d sent If-None-Match %s; want the lock read whole: the record keeps no copy that reaches the mirrors", i+1, c)
		}
	}
	noPassword(t, filepath.Join(state, recordName), map[string]any{"record": s.Record(), "result": res})
}

// TestOldRecordLosesItsPasswords: a set.json that an older version wrote
// with the lock's passwords (its source, its lock, the last check's error
// and fallbacks) holds none once the Syncer opens it, and still says which
// set the machine followed.
func TestOldRecordLosesItsPasswords(t *testing.T) {
	data := []byte("the bytes of an archive an older version recorded")
	authed := "http://user:s3cret@mirror.example.org"
	text, e := lockOf(data, authed+"/a.zip")
	state := t.TempDir()
	old := Record{Format: recordFormat, Source: authed + "/set/forgepacks.lock", Fingerprint: lock.Fingerprint([]lock.Entry{e}),
		Lock: text, Signature: "untrusted comment: signature\n", Validators: fetch.Validators{ETag: `"v1"`},
		LastCheck: &StoredCheck{Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Source: authed + "/set/forgepacks.lock", Result: CheckFailed,
			Error: "download failed: " + authed + "/a.zip: HTTP 503", Fallbacks: []string{"held-pack: chunk index " + authed + "/a.caibx: HTTP 404"}}}
	b, _ := json.MarshalIndent(old, "", "  ")
	path := filepath.Join(state, recordName)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	installed := []lock.Installed{{ID: e.ID, Version: e.Version, SHA256: e.SHA256, Enabled: true}}
	s, err := New(&fakeWriter{installed: installed}, Options{State: state})
	if err != nil {
		t.Fatal(err)
	}
	noPassword(t, path, map[string]any{"record": s.Record(), "status": s.Status(installed)})
	if st := s.Status(installed); st == nil || !st.Equal || st.Fingerprint != old.Fingerprint {
		t.Errorf("Status = %+v; want the recorded set, equal to the machine", st)
	}
	if rec := s.Record(); rec.Validators != (fetch.Validators{}) || rec.Signature != "" {
		t.Errorf("record = %+v; want no validators nor signature for a lock no longer as it came", rec)
	}
}
