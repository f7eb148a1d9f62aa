package follow

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/mjolnir-forge/forgesync/sets/fetch"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/internal/errkind"
	"github.com/mjolnir-forge/forgesync/pipeline"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// fakeWriter applies a set by remembering it.
type fakeWriter struct {
	installed []lock.Installed
	// before, when set, runs before each archive is asked for.
	before func(pin lock.Entry)
}

func (w *fakeWriter) ApplySet(ctx context.Context, pins []lock.Entry, opts pipeline.SetOptions) (*pipeline.Summary, error) {
	for _, p := range pins {
		if w.before != nil {
			w.before(p)
		}
		path, err := opts.Source(ctx, p)
		if err != nil {
			return nil, err
		}
		// As the pipeline does: the archive's bytes must be the pin's.
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != p.SHA256 {
			return nil, fmt.Errorf("%s: sha256 %x, want %s", path, sum, p.SHA256)
		}
	}
	w.installed = w.installed[:0]
	for _, p := range pins {
		w.installed = append(w.installed, lock.Installed{ID: p.ID, Version: p.Version, SHA256: p.SHA256, Enabled: true})
	}
	return &pipeline.Summary{}, nil
}

func (w *fakeWriter) Installed() ([]lock.Installed, error) { return w.installed, nil }

// lockOf returns a lock of one pack with these bytes at these URLs.
func lockOf(data []byte, urls ...string) (string, lock.Entry) {
	sum := sha256.Sum256(data)
	e := lock.Entry{ID: "held-pack", Version: "1.0.0", SHA256: hex.EncodeToString(sum[:])}
	q := ""
	for i, u := range urls {
		if i > 0 {
			q += ", "
		}
		q += fmt.Sprintf("%q", u)
	}
	return fmt.Sprintf("format = \"forgepacks-lock\"\nversion = 1\nfingerprint = %q\n\n[[pack]]\nid = %q\nversion = %q\nsha256 = %q\nsize = %d\nurls = [%s]\n",
		lock.Fingerprint([]lock.Entry{e}), e.ID, e.Version, e.SHA256, len(data), q), e
}

func TestCheckDuringDownloadAnswersAtOnce(t *testing.T) {
	data := []byte("the bytes of an archive that a mirror holds back")
	arrived, release := make(chan struct{}), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(arrived)
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		w.Write(data)
	}))
	defer srv.Close()
	lock, _ := lockOf(data, srv.URL+"/a.zip")
	s, err := New(&fakeWriter{}, Options{State: t.TempDir(), Follow: srv.URL + "/forgepacks.lock"})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := s.SyncSet(t.Context(), Request{Lock: []byte(lock)})
		done <- err
	}()
	<-arrived
	checked := make(chan error, 1)
	go func() {
		_, err := s.Check(t.Context())
		checked <- err
	}()
	select {
	case err := <-checked:
		if !errors.Is(err, errkind.Busy) || !errors.Is(err, errSyncRunning) {
			t.Errorf("Check during a download = %v; want ErrSyncRunning, busy", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Check during a download waited for it")
	}
	if st := s.Status(nil); st == nil {
		t.Errorf("Status during a download = nil")
	}
	close(release)
	if err := <-done; err != nil {
		t.Errorf("Sync = %v", err)
	}
}

func TestSyncCachedArchiveEditedInPlace(t *testing.T) {
	data := []byte("the bytes of an archive, cached and then edited in place")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(data) }))
	defer srv.Close()
	lock, e := lockOf(data, srv.URL+"/a.zip")
	state := t.TempDir()
	s, err := New(&fakeWriter{}, Options{State: state})
	if err != nil {
		t.Fatal(err)
	}
	edited := []byte(string(data))
	edited[0] ^= 0x20
	if err := os.WriteFile(filepath.Join(state, CacheDir, e.SHA256), edited, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := s.SyncSet(t.Context(), Request{Lock: []byte(lock)})
	if err != nil || len(res.Downloaded) != 1 {
		t.Fatalf("Sync(cached archive edited in place) = %+v, %v; want it downloaded again and applied", res, err)
	}
	if got, err := os.ReadFile(s.Cache().Path(e.SHA256)); err != nil || string(got) != string(data) {
		t.Errorf("cached archive = %q, %v; want the pinned bytes", got, err)
	}
}

func TestCredentialsRedacted(t *testing.T) {
	data := []byte("the bytes of an archive behind a password")
	var lock string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != "user" || p != "s3cret" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		switch r.URL.Path {
		case "/set/forgepacks.lock":
			w.Write([]byte(lock))
		case "/a.zip":
			w.Write(data)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	authed := "http://user:s3cret@" + srv.Listener.Addr().String()
	lock, _ = lockOf(data, authed+"/gone.zip", authed+"/a.zip")
	state := t.TempDir()
	events := &recorder{}
	s, err := New(&fakeWriter{}, Options{State: state, Follow: authed + "/set/", Observer: events})
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Check(t.Context())
	if err != nil || len(res.Downloaded) != 1 {
		t.Fatalf("Check = %+v, %v", res, err)
	}
	file, err := os.ReadFile(filepath.Join(state, recordName))
	if err != nil || !strings.Contains(string(file), `"lock": "format`) {
		t.Fatalf("set.json = %s, %v; want the lock kept", file, err)
	}
	for what, v := range map[string]any{"result": res, "record": s.Record(), "status": s.Status(nil), "events": events.all, "set.json": string(file)} {
		b, _ := json.Marshal(v)
		if strings.Contains(string(b), "s3cret") {
			t.Errorf("the %s holds the password: %s", what, b)
		}
	}
	// A mirror that fails names its URL without the password.
	lock, _ = lockOf([]byte("other bytes"), authed+"/gone.zip")
	_, err = s.SyncSet(t.Context(), Request{Source: authed + "/set/"})
	if err == nil || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "gone.zip") {
		t.Errorf("Sync(a mirror gone) = %v; want the URL named without its password", err)
	}
	b, _ := json.Marshal(s.Record().LastCheck)
	if strings.Contains(string(b), "s3cret") {
		t.Errorf("the last check holds the password: %s", b)
	}
}

func TestSyncHealsAnArchiveEditedDuringTheApply(t *testing.T) {
	data := []byte("the bytes of an archive edited between the download and the apply")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(data) }))
	defer srv.Close()
	text, _ := lockOf(data, srv.URL+"/a.zip")
	w := &fakeWriter{}
	s, err := New(w, Options{State: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	w.before = func(pin lock.Entry) {
		w.before = nil
		path := s.Cache().Path(pin.SHA256)
		os.Chmod(path, 0o644)
		os.WriteFile(path, []byte(strings.ToUpper(string(data))), 0o644)
	}
	if _, err := s.SyncSet(t.Context(), Request{Lock: []byte(text)}); err == nil {
		t.Fatalf("Sync(archive edited during the apply) = nil; want the apply's check to refuse it")
	}
	res, err := s.SyncSet(t.Context(), Request{Lock: []byte(text)})
	if err != nil || len(res.Downloaded) != 1 {
		t.Errorf("Sync again = %+v, %v; want the archive downloaded again and applied", res, err)
	}
}

// recorder keeps what a Syncer tells its Observer, in order.
type recorder struct {
	mu  sync.Mutex
	all []any
}

func (r *recorder) add(v any) {
	r.mu.Lock()
	r.all = append(r.all, v)
	r.mu.Unlock()
}

func (r *recorder) Checked(c Check)              { r.add(c) }
func (r *recorder) Downloading(p fetch.Progress) { r.add(p) }
