package follow

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"sync/atomic"
	"testing"

	"github.com/mjolnir-forge/forgesync/sets/fetch"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// countingServer serves data and counts the requests it answers.
func countingServer(t *testing.T, data []byte) (*httptest.Server, *atomic.Int64) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.Write(data)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// TestApplyNeverDownloads: an archive that leaves the cache after it was
// verified fails the apply, which downloads nothing: the single writer's
// transaction never waits on a mirror.
func TestApplyNeverDownloads(t *testing.T) {
	data := []byte("the bytes of an archive evicted between the download and the apply")
	srv, requests := countingServer(t, data)
	text, _ := lockOf(data, srv.URL+"/a.zip")
	w := &fakeWriter{}
	s, err := New(w, Options{State: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	var atApply int64 = -1
	w.before = func(pin lock.Entry) {
		w.before = nil
		atApply = requests.Load()
		os.Remove(s.Cache().Path(pin.SHA256))
	}
	_, err = s.SyncSet(t.Context(), Request{Lock: []byte(text)})
	if !errors.Is(err, errArchiveGone) {
		t.Errorf("Sync(archive gone during the apply) = %v; want %v", err, errArchiveGone)
	}
	if got := requests.Load(); atApply < 0 || got != atApply {
		t.Errorf("requests after the apply began = %d (%d before it); want none", got-atApply, atApply)
	}
	if len(w.installed) != 0 {
		t.Errorf("installed = %+v; want nothing changed", w.installed)
	}
}

// TestApplyPinsItsArchives: an eviction while a set applies keeps the
// archives the apply verified, even over the cache's bound.
func TestApplyPinsItsArchives(t *testing.T) {
	data := []byte("the bytes of an archive that an eviction during the apply must keep")
	srv, requests := countingServer(t, data)
	text, _ := lockOf(data, srv.URL+"/a.zip")
	w := &fakeWriter{}
	s, err := New(w, Options{State: t.TempDir(), CacheMax: 1})
	if err != nil {
		t.Fatal(err)
	}
	var atApply int64 = -1
	w.before = func(pin lock.Entry) {
		w.before = nil
		atApply = requests.Load()
		if removed, err := s.Cache().Evict(nil); err != nil || len(removed) != 0 {
			t.Errorf("Evict during the apply = %v, %v; want nothing removed", removed, err)
		}
	}
	if _, err := s.SyncSet(t.Context(), Request{Lock: []byte(text)}); err != nil {
		t.Fatalf("Sync(eviction during the apply) = %v", err)
	}
	if got := requests.Load(); got != atApply {
		t.Errorf("requests after the apply began = %d; want none", got-atApply)
	}
	if len(w.installed) != 1 {
		t.Errorf("installed = %+v; want the pinned pack", w.installed)
	}
}

// TestSyncFromParsedSource: a caller that read the lock's source already
// passes it as it is, and the sync reads that source, not Source again.
func TestSyncFromParsedSource(t *testing.T) {
	data := []byte("the bytes of an archive of a set named by a parsed source")
	var served string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/set/"+lock.LockName {
			w.Write([]byte(served))
			return
		}
		w.Write(data)
	}))
	defer srv.Close()
	served, _ = lockOf(data, srv.URL+"/a.zip")
	src, err := fetch.LockSource(srv.URL + "/set/")
	if err != nil {
		t.Fatal(err)
	}
	w := &fakeWriter{}
	s, err := New(w, Options{State: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.SyncSet(t.Context(), Request{Source: "not a source: ignored", From: src})
	if err != nil || res.Check.Source != src.URL || len(w.installed) != 1 {
		t.Fatalf("Sync(From: %v) = %+v, %v; want the set at %s applied", src, res, err, src.URL)
	}
	if rec := s.Record(); rec.Source != src.URL {
		t.Errorf("Record().Source = %q; want %q", rec.Source, src.URL)
	}
}
