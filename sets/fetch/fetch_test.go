package fetch

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/sets/lock"
	"github.com/mjolnir-forge/forgesync/sets/settest"
)

// archive returns n deterministic bytes and their pack.
func archive(id string, n int, urls ...string) ([]byte, lock.Pack) {
	b := settest.ArchiveBytes(id, n)
	sum := sha256.Sum256(b)
	return b, lock.Pack{ID: id, Version: "1.0.0", SHA256: hex.EncodeToString(sum[:]), Size: int64(n), URLs: urls}
}

// request is what the test server saw.
type request struct {
	Path, Range, IfRange, IfNoneMatch, IfModifiedSince string
}

// mirror is a loopback HTTP server with files and injectable faults.
type mirror struct {
	srv *httptest.Server
	mu  sync.Mutex
	// files by URL path
	files map[string][]byte
	// fault, when set, may answer a request itself (n counts requests
	// for the path, from 1); it returns whether it did.
	fault    func(w http.ResponseWriter, r *http.Request, n int) bool
	seen     []request
	count    map[string]int
	served   int64 // body bytes written by the normal path
	inflight int
	maxIn    int
	hold     chan struct{} // when set, normal answers wait for it to close
}

func newMirror(t *testing.T) *mirror {
	m := &mirror{files: map[string][]byte{}, count: map[string]int{}}
	m.srv = httptest.NewServer(http.HandlerFunc(m.serve))
	t.Cleanup(m.srv.Close)
	return m
}

func (m *mirror) url(path string) string { return m.srv.URL + path }

func (m *mirror) serve(w http.ResponseWriter, r *http.Request) {
	m.mu.Lock()
	m.seen = append(m.seen, request{r.URL.Path, r.Header.Get("Range"), r.Header.Get("If-Range"), r.Header.Get("If-None-Match"), r.Header.Get("If-Modified-Since")})
	m.count[r.URL.Path]++
	n := m.count[r.URL.Path]
	m.inflight++
	m.maxIn = max(m.maxIn, m.inflight)
	fault, data, ok, hold := m.fault, m.files[r.URL.Path], false, m.hold
	if d, found := m.files[r.URL.Path]; found {
		data, ok = d, true
	}
	m.mu.Unlock()
	defer func() { m.mu.Lock(); m.inflight--; m.mu.Unlock() }()
	if fault != nil && fault(w, r, n) {
		return
	}
	if hold != nil {
		select {
		case <-hold:
		case <-r.Context().Done():
			return
		}
	}
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("ETag", etagOf(data))
	cw := &countingWriter{ResponseWriter: w, add: func(n int64) { m.mu.Lock(); m.served += n; m.mu.Unlock() }}
	http.ServeContent(cw, r, "", time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), bytes.NewReader(data))
}

// servedBytes is how many body bytes the mirror has sent.
func (m *mirror) servedBytes() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.served
}

func etagOf(data []byte) string {
	sum := sha256.Sum256(data)
	return `"` + hex.EncodeToString(sum[:8]) + `"`
}

// countingWriter counts the body bytes of a response before they go out,
// so a client that has received them all reads the whole count.
type countingWriter struct {
	http.ResponseWriter
	add func(n int64)
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.add(int64(len(p)))
	n, err := c.ResponseWriter.Write(p)
	if n < len(p) {
		c.add(int64(n - len(p)))
	}
	return n, err
}

func (m *mirror) requests() []request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.seen)
}

// sleeps records back-off delays instead of sleeping.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeps) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.d)
}

func newFetcher(t *testing.T) (*Fetcher, *sleeps) {
	s := &sleeps{}
	return &Fetcher{Dir: t.TempDir(), Sleep: s.sleep, Stall: 5 * time.Second}, s
}

// checkLanded checks that dir holds exactly the archives given, by
// content.
func checkLanded(t *testing.T, dir string, want map[string][]byte) {
	t.Helper()
	names := settest.DirNames(t, dir)
	if len(names) != len(want) {
		t.Errorf("destination holds %v; want exactly %d archives", names, len(want))
	}
	for sha, data := range want {
		got, err := os.ReadFile(filepath.Join(dir, sha))
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("archive %s: %v (%d bytes; want %d)", sha, err, len(got), len(data))
		}
	}
}

func TestFetch500ThenOK(t *testing.T) {
	m := newMirror(t)
	data, p := archive("lift-pack", 5000)
	m.files["/a.zip"] = data
	m.fault = func(w http.ResponseWriter, r *http.Request, n int) bool {
		if n == 1 {
			http.Error(w, "busy", http.StatusInternalServerError)
			return true
		}
		return false
	}
	p.URLs = []string{m.url("/a.zip")}
	f, s := newFetcher(t)
	res, err := f.Fetch(t.Context(), Source{}, []lock.Pack{p})
	if err != nil || len(res) != 1 || res[0].From != m.url("/a.zip") {
		t.Fatalf("Fetch = %+v, %v", res, err)
	}
	if got := len(m.requests()); got != 2 {
		t.Errorf("server saw %d requests; want 2 (500, then 200)", got)
	}
	if s.count() != 1 || s.d[0] < defaultInitialDelay/2 || s.d[0] > defaultInitialDelay*3/2 {
		t.Errorf("back-off delays = %v; want one of %s ±50%%", s.d, defaultInitialDelay)
	}
	checkLanded(t, f.Dir, map[string][]byte{p.SHA256: data})
}

func TestFetchBackoffGrows(t *testing.T) {
	m := newMirror(t)
	data, p := archive("lift-pack", 100)
	m.files["/a.zip"] = data
	m.fault = func(w http.ResponseWriter, r *http.Request, n int) bool {
		http.Error(w, "down", http.StatusBadGateway)
		return true
	}
	p.URLs = []string{m.url("/a.zip")}
	f, s := newFetcher(t)
	f.Tries = 6
	_, err := f.Fetch(t.Context(), Source{}, []lock.Pack{p})
	if !errors.Is(err, errAllMirrorsFailed) || !strings.Contains(err.Error(), "502 Bad Gateway (6 tries)") {
		t.Fatalf("Fetch = %v; want every mirror failed after 6 tries", err)
	}
	if len(s.d) != 5 {
		t.Fatalf("delays = %v; want 5", s.d)
	}
	// Doubling with ±50% jitter: each delay lies in [0.5, 1.5] × 2^i × initial.
	for i, d := range s.d {
		base := defaultInitialDelay << i
		if d < base/2 || d > base*3/2 {
			t.Errorf("delay %d = %s; want %s ±50%%", i, d, base)
		}
	}
	if len(settest.DirNames(t, f.Dir)) != 0 {
		t.Errorf("a failed download left %v", settest.DirNames(t, f.Dir))
	}
}

func TestFetchWrongBytesNextMirror(t *testing.T) {
	bad, good := newMirror(t), newMirror(t)
	data, p := archive("door-pack", 70000)
	evil := bytes.Clone(data)
	evil[len(evil)/2] ^= 1
	bad.files["/x.zip"] = evil
	good.files["/x.zip"] = data
	p.URLs = []string{bad.url("/x.zip"), good.url("/x.zip")}
	f, s := newFetcher(t)
	res, err := f.Fetch(t.Context(), Source{}, []lock.Pack{p})
	if err != nil || len(res) != 1 || res[0].From != good.url("/x.zip") {
		t.Fatalf("Fetch = %+v, %v; want it from the second mirror", res, err)
	}
	if len(bad.requests()) != 1 || s.count() != 0 {
		t.Errorf("the bad mirror was asked %d times, %d back-offs; want once, none (wrong bytes are not retried)", len(bad.requests()), s.count())
	}
	checkLanded(t, f.Dir, map[string][]byte{p.SHA256: data})

	// Only bad mirrors: nothing lands, and the error says why.
	p.URLs = p.URLs[:1]
	f2, _ := newFetcher(t)
	_, err = f2.Fetch(t.Context(), Source{}, []lock.Pack{p})
	if !errors.Is(err, lock.ErrWrongBytes) || !strings.Contains(err.Error(), "SHA-256") {
		t.Errorf("Fetch(bad only) = %v; want ErrWrongBytes naming the SHA-256", err)
	}
	if names := settest.DirNames(t, f2.Dir); len(names) != 0 {
		t.Errorf("bad bytes reached the destination: %v", names)
	}
}

func TestFetchWrongSizeNotRead(t *testing.T) {
	m := newMirror(t)
	data, p := archive("door-pack", 1000)
	m.files["/x.zip"] = append(bytes.Clone(data), make([]byte, 1<<20)...)
	p.URLs = []string{m.url("/x.zip")}
	f, _ := newFetcher(t)
	_, err := f.Fetch(t.Context(), Source{}, []lock.Pack{p})
	if !errors.Is(err, lock.ErrWrongBytes) || !strings.Contains(err.Error(), "the server sends 1049576 bytes, the lock pins 1000") {
		t.Errorf("Fetch(too long) = %v", err)
	}
	if len(settest.DirNames(t, f.Dir)) != 0 {
		t.Errorf("destination not empty: %v", settest.DirNames(t, f.Dir))
	}
}

// cutAt answers the first request for a path with the headers of the whole
// file and only its first n bytes, then breaks the connection.
func cutAt(data []byte, n int) func(w http.ResponseWriter, r *http.Request, count int) bool {
	return func(w http.ResponseWriter, r *http.Request, count int) bool {
		if count != 1 {
			return false
		}
		w.Header().Set("Content-Length", fmt.Sprint(len(data)))
		w.Header().Set("ETag", etagOf(data))
		w.WriteHeader(http.StatusOK)
		w.Write(data[:n])
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler)
	}
}

func TestFetchResumeWithRange(t *testing.T) {
	m := newMirror(t)
	data, p := archive("big-pack", 1<<20)
	m.files["/big.zip"] = data
	half := len(data) / 2
	m.fault = cutAt(data, half)
	p.URLs = []string{m.url("/big.zip")}
	f, _ := newFetcher(t)
	var mu sync.Mutex
	var events []Progress
	f.Progress = func(e Progress) { mu.Lock(); events = append(events, e); mu.Unlock() }
	res, err := f.Fetch(t.Context(), Source{}, []lock.Pack{p})
	if err != nil || len(res) != 1 {
		t.Fatalf("Fetch = %+v, %v", res, err)
	}
	reqs := m.requests()
	if len(reqs) != 2 || reqs[1].Range != fmt.Sprintf("bytes=%d-", half) {
		t.Fatalf("requests = %+v; want a second one with Range bytes=%d-", reqs, half)
	}
	if reqs[1].IfRange != etagOf(data) {
		t.Errorf("If-Range = %q", reqs[1].IfRange)
	}
	// The resumed request served only the second half: no byte twice.
	if got := m.servedBytes(); got != int64(len(data)-half) {
		t.Errorf("the resumed request served %d bytes; want %d", got, len(data)-half)
	}
	checkLanded(t, f.Dir, map[string][]byte{p.SHA256: data})
	last := events[len(events)-1]
	if last.Pack != "big-pack" || last.Done != p.Size || last.Total != p.Size || last.URL != m.url("/big.zip") {
		t.Errorf("last progress = %+v", last)
	}
	for i := 1; i < len(events); i++ {
		if events[i].Done < events[i-1].Done && events[i].Done != 0 {
			t.Errorf("progress went back: %+v after %+v", events[i], events[i-1])
		}
	}
}

func TestFetchRangeIgnoredRestarts(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer func(w http.ResponseWriter, data []byte)
	}{
		{"200 to a range", func(w http.ResponseWriter, data []byte) {
			w.Header().Set("Content-Length", fmt.Sprint(len(data)))
			w.Write(data)
		}},
		{"206 of another range", func(w http.ResponseWriter, data []byte) {
			w.Header().Set("Content-Range", fmt.Sprintf("bytes 0-%d/%d", len(data)-1, len(data)))
			w.Header().Set("Content-Length", fmt.Sprint(len(data)))
			w.WriteHeader(http.StatusPartialContent)
			w.Write(data)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newMirror(t)
			data, p := archive("big-pack", 300000)
			m.files["/big.zip"] = data
			cut := cutAt(data, 1000)
			m.fault = func(w http.ResponseWriter, r *http.Request, n int) bool {
				if n == 1 {
					return cut(w, r, n)
				}
				if n == 2 {
					tc.answer(w, data)
					return true
				}
				return false
			}
			p.URLs = []string{m.url("/big.zip")}
			f, _ := newFetcher(t)
			if _, err := f.Fetch(t.Context(), Source{}, []lock.Pack{p}); err != nil {
				t.Fatalf("Fetch = %v", err)
			}
			checkLanded(t, f.Dir, map[string][]byte{p.SHA256: data})
		})
	}
}

func TestFetchStallIsATimeout(t *testing.T) {
	m := newMirror(t)
	data, p := archive("slow-pack", 200000)
	m.files["/s.zip"] = data
	m.fault = func(w http.ResponseWriter, r *http.Request, n int) bool {
		if n != 1 {
			return false
		}
		w.Header().Set("Content-Length", fmt.Sprint(len(data)))
		w.Write(data[:5000])
		w.(http.Flusher).Flush()
		<-r.Context().Done() // hang until the client gives up
		return true
	}
	p.URLs = []string{m.url("/s.zip")}
	f, s := newFetcher(t)
	f.Stall = 100 * time.Millisecond
	if _, err := f.Fetch(t.Context(), Source{}, []lock.Pack{p}); err != nil {
		t.Fatalf("Fetch = %v", err)
	}
	reqs := m.requests()
	if len(reqs) != 2 || reqs[1].Range != "bytes=5000-" || s.count() != 1 {
		t.Errorf("requests = %+v, back-offs %d; want a resumed second request after one back-off", reqs, s.count())
	}
	checkLanded(t, f.Dir, map[string][]byte{p.SHA256: data})
}

func TestFetchEveryMirrorDown(t *testing.T) {
	gone := newMirror(t) // 404: next mirror at once
	sick := newMirror(t) // 503 on every try
	sick.fault = func(w http.ResponseWriter, r *http.Request, n int) bool {
		http.Error(w, "maintenance", http.StatusServiceUnavailable)
		return true
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String() + "/c.zip"
	ln.Close()
	_, p := archive("lost-pack", 100)
	p.URLs = []string{gone.url("/g.zip"), sick.url("/s.zip"), closed, "gopher://x.org/a.zip"}
	f, _ := newFetcher(t)
	f.Tries = 3
	res, err := f.Fetch(t.Context(), Source{}, []lock.Pack{p})
	if len(res) != 0 || !errors.Is(err, errAllMirrorsFailed) {
		t.Fatalf("Fetch = %+v, %v; want every mirror failed", res, err)
	}
	msg := err.Error()
	for _, want := range []string{
		"download lost-pack 1.0.0: every mirror failed",
		gone.url("/g.zip") + ": HTTP 404 Not Found\n",
		sick.url("/s.zip") + ": HTTP 503 Service Unavailable (3 tries)",
		closed + ": ", "connection refused",
		`gopher://x.org/a.zip: "gopher://x.org/a.zip" has the scheme "gopher"`,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
	if len(gone.requests()) != 1 || len(sick.requests()) != 3 {
		t.Errorf("404 mirror asked %d times (want 1), 503 mirror %d times (want 3)", len(gone.requests()), len(sick.requests()))
	}
	var fe *fetchError
	if !errors.As(err, &fe) || len(fe.Attempts) != 4 {
		t.Errorf("FetchError = %+v", fe)
	}
}

func TestFetchAtMostFourAtOnce(t *testing.T) {
	m := newMirror(t)
	var packs []lock.Pack
	for i := range 10 {
		data, p := archive(fmt.Sprintf("pack-%02d", i), 1000+i)
		m.files["/"+p.SHA256] = data
		p.URLs = []string{m.url("/" + p.SHA256)}
		packs = append(packs, p)
	}
	hold := make(chan struct{})
	m.hold = hold
	arrived := make(chan struct{}, 100)
	m.fault = func(w http.ResponseWriter, r *http.Request, n int) bool {
		arrived <- struct{}{}
		return false
	}
	f, _ := newFetcher(t)
	done := make(chan error, 1)
	go func() {
		_, err := f.Fetch(t.Context(), Source{}, packs)
		done <- err
	}()
	for range maxConcurrency {
		select {
		case <-arrived:
		case <-time.After(10 * time.Second):
			t.Fatal("fewer than 4 downloads started")
		}
	}
	close(hold)
	if err := <-done; err != nil {
		t.Fatalf("Fetch = %v", err)
	}
	if m.maxIn != maxConcurrency {
		t.Errorf("the server saw %d requests at once; want %d", m.maxIn, maxConcurrency)
	}
	if len(settest.DirNames(t, f.Dir)) != 10 {
		t.Errorf("landed %d archives; want 10", len(settest.DirNames(t, f.Dir)))
	}
}

func TestFetchAlreadyThere(t *testing.T) {
	m := newMirror(t)
	data, p := archive("kept-pack", 100)
	p.URLs = []string{m.url("/k.zip")}
	f, _ := newFetcher(t)
	os.WriteFile(f.Path(p.SHA256), data, 0o644)
	res, err := f.Fetch(t.Context(), Source{}, []lock.Pack{p})
	if err != nil || len(res) != 1 || res[0].From != "" || len(m.requests()) != 0 {
		t.Errorf("Fetch(already there) = %+v, %v, %d requests", res, err, len(m.requests()))
	}
}

func TestFetchLocalRelative(t *testing.T) {
	dir := t.TempDir()
	data, p := archive("local-pack", 3000)
	os.MkdirAll(filepath.Join(dir, "packs"), 0o755)
	os.WriteFile(filepath.Join(dir, "packs", p.SHA256+".zip"), data, 0o644)
	os.WriteFile(filepath.Join(dir, "packs", "short.zip"), data[:2999], 0o644)
	p.URLs = []string{"packs/missing.zip", "packs/short.zip", "packs/" + p.SHA256 + ".zip"}
	base, err := LockSource(dir)
	if err != nil || base.Path != filepath.Join(dir, lock.LockName) {
		t.Fatalf("LockSource(dir) = %+v, %v", base, err)
	}
	f, _ := newFetcher(t)
	res, err := f.Fetch(t.Context(), base, []lock.Pack{p})
	if err != nil || len(res) != 1 || res[0].From != filepath.Join(dir, "packs", p.SHA256+".zip") {
		t.Fatalf("Fetch(local) = %+v, %v", res, err)
	}
	checkLanded(t, f.Dir, map[string][]byte{p.SHA256: data})
}

func TestFetchCancelled(t *testing.T) {
	m := newMirror(t)
	data, p := archive("slow-pack", 100)
	m.files["/s.zip"] = data
	m.hold = make(chan struct{})
	arrived := make(chan struct{}, 1)
	m.fault = func(w http.ResponseWriter, r *http.Request, n int) bool { arrived <- struct{}{}; return false }
	p.URLs = []string{m.url("/s.zip"), m.url("/s.zip")}
	f, _ := newFetcher(t)
	ctx, cancel := context.WithCancel(t.Context())
	go func() { <-arrived; cancel() }()
	_, err := f.Fetch(ctx, Source{}, []lock.Pack{p})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Fetch(cancelled) = %v; want context.Canceled", err)
	}
	if len(settest.DirNames(t, f.Dir)) != 0 {
		t.Errorf("a cancelled download left %v", settest.DirNames(t, f.Dir))
	}
}

// stepClock is a clock that moves on by step at each reading.
type stepClock struct {
	mu   sync.Mutex
	t    time.Time
	step time.Duration
	jump map[int]time.Duration // extra moves at the nth reading, from 1
	n    int
}

func (c *stepClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	c.t = c.t.Add(c.step + c.jump[c.n])
	return c.t
}

// trickle answers with the archive's length and then its bytes 1 KiB at a
// time, each flushed.
func trickle(data []byte) func(w http.ResponseWriter, r *http.Request, n int) bool {
	return func(w http.ResponseWriter, r *http.Request, n int) bool {
		w.Header().Set("Content-Length", fmt.Sprint(len(data)))
		for i := 0; i < len(data); i += 1 << 10 {
			if _, err := w.Write(data[i:min(i+1<<10, len(data))]); err != nil {
				return true
			}
			w.(http.Flusher).Flush()
			if r.Context().Err() != nil {
				return true
			}
		}
		return true
	}
}

func TestFetchTooSlowNextMirror(t *testing.T) {
	slow := newMirror(t)
	good := newMirror(t)
	data, p := archive("trickled-pack", 300000)
	slow.fault = trickle(data)
	good.files["/t.zip"] = data
	p.URLs = []string{slow.url("/t.zip"), good.url("/t.zip")}
	f, s := newFetcher(t)
	// Every reading of the clock is 10 s later: the 30 s window ends after
	// three reads of at most 64 KiB each, below 16 KiB/s and short of the
	// archive.
	clock := &stepClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), step: 10 * time.Second}
	f.Now = clock.now
	// The good mirror is fast: the clock slows down when it is asked.
	good.fault = func(w http.ResponseWriter, r *http.Request, n int) bool {
		clock.mu.Lock()
		clock.step = time.Millisecond
		clock.mu.Unlock()
		return false
	}
	start := time.Now()
	res, err := f.Fetch(t.Context(), Source{}, []lock.Pack{p})
	if err != nil || len(res) != 1 || res[0].From != good.url("/t.zip") {
		t.Fatalf("Fetch(trickling mirror first) = %+v, %v; want the archive from the second mirror", res, err)
	}
	if len(slow.requests()) != 1 || s.count() != 0 {
		t.Errorf("the slow mirror got %d requests after %d back-offs; want one, then the next mirror at once", len(slow.requests()), s.count())
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Fetch took %v of real time", d)
	}
	checkLanded(t, f.Dir, map[string][]byte{p.SHA256: data})
}

func TestFetchTooSlowError(t *testing.T) {
	slow := newMirror(t)
	data, p := archive("trickled-pack", 300000)
	slow.fault = trickle(data)
	p.URLs = []string{slow.url("/t.zip")}
	f, _ := newFetcher(t)
	clock := &stepClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), step: 10 * time.Second}
	f.Now = clock.now
	_, err := f.Fetch(t.Context(), Source{}, []lock.Pack{p})
	if !errors.Is(err, errTooSlow) || !strings.Contains(err.Error(), "below the minimum of 16384 bytes/s") {
		t.Errorf("Fetch(trickling mirror) = %v; want ErrTooSlow naming the minimum rate", err)
	}
}

func TestFetchAttemptDeadline(t *testing.T) {
	slow := newMirror(t)
	data, p := archive("late-pack", 4000)
	slow.fault = trickle(data)
	good := newMirror(t)
	good.files["/t.zip"] = data
	p.URLs = []string{slow.url("/t.zip"), good.url("/t.zip")}
	f, s := newFetcher(t)
	// Fast reads, but the clock jumps a day ahead at its third reading.
	clock := &stepClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), step: time.Millisecond, jump: map[int]time.Duration{3: 24 * time.Hour}}
	f.Now = clock.now
	res, err := f.Fetch(t.Context(), Source{}, []lock.Pack{p})
	if err != nil || len(res) != 1 || res[0].From != good.url("/t.zip") || s.count() != 0 {
		t.Fatalf("Fetch(past the deadline) = %+v, %v after %d back-offs; want the second mirror at once", res, err, s.count())
	}
	p.URLs = p.URLs[:1]
	f.Dir = t.TempDir()
	clock.n = 0
	_, err = f.Fetch(t.Context(), Source{}, []lock.Pack{p})
	if !errors.Is(err, errTooSlow) || !strings.Contains(err.Error(), "past its deadline") {
		t.Errorf("Fetch(past the deadline) = %v; want ErrTooSlow naming the deadline", err)
	}
}

func TestFetchCachedChangedInPlace(t *testing.T) {
	m := newMirror(t)
	data, p := archive("edited-pack", 5000)
	m.files["/e.zip"] = data
	p.URLs = []string{m.url("/e.zip")}
	f, _ := newFetcher(t)
	// The archive is there by name and size, but a byte was changed in
	// place.
	edited := bytes.Clone(data)
	edited[100] ^= 0xff
	if err := os.WriteFile(f.Path(p.SHA256), edited, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := f.Fetch(t.Context(), Source{}, []lock.Pack{p})
	if err != nil || len(res) != 1 || res[0].From != m.url("/e.zip") {
		t.Fatalf("Fetch(cached archive edited in place) = %+v, %v; want it fetched again", res, err)
	}
	checkLanded(t, f.Dir, map[string][]byte{p.SHA256: data})
}

func TestFetchLandsReadOnly(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("modes are Unix permissions")
	}
	m := newMirror(t)
	data, p := archive("ro-pack", 700)
	m.files["/r.zip"] = data
	p.URLs = []string{m.url("/r.zip")}
	f, _ := newFetcher(t)
	if _, err := f.Fetch(t.Context(), Source{}, []lock.Pack{p}); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(f.Path(p.SHA256))
	if err != nil || st.Mode().Perm() != 0o444 {
		t.Errorf("fetched archive: %v, %v; want mode 0444 (the store may link it)", st.Mode(), err)
	}
}

func TestFetchReasonPhraseEscaped(t *testing.T) {
	m := newMirror(t)
	_, p := archive("reason-pack", 100)
	m.fault = func(w http.ResponseWriter, r *http.Request, n int) bool {
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return true
		}
		defer conn.Close()
		buf.WriteString("HTTP/1.1 404 Not\x1b]0;owned\x07 Found\u202e\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
		buf.Flush()
		return true
	}
	p.URLs = []string{m.url("/r.zip")}
	f, _ := newFetcher(t)
	_, err := f.Fetch(t.Context(), Source{}, []lock.Pack{p})
	if err == nil || strings.ContainsAny(err.Error(), "\x1b\x07\u202e") || !strings.Contains(err.Error(), `HTTP 404 Not\x1b]0;owned\x07 Found\u202e`) {
		t.Errorf("Fetch(hostile reason phrase) = %q; want it escaped", err)
	}
}
