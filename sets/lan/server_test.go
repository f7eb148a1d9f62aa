package lan

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/sets/casync"
	"github.com/mjolnir-forge/forgesync/sets/settest"
)

// opens records every file the server opens, and every archive it looks
// up.
type opens struct {
	mu      sync.Mutex
	files   []string
	lookups []string
}

func (o *opens) open(name string) (*os.File, error) {
	o.mu.Lock()
	o.files = append(o.files, name)
	o.mu.Unlock()
	return os.Open(name)
}

func (o *opens) seen() ([]string, []string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.files), slices.Clone(o.lookups)
}

// site is a machine's state folder with one cached archive, one chunk and
// the files beside them a peer must never see.
type site struct {
	state, cache, chunks string
	archive              []byte
	sha                  string
	chunk                []byte // the chunk file's bytes
	chunkID              string
}

func newSite(t *testing.T) *site {
	t.Helper()
	s := &site{state: t.TempDir()}
	s.cache, s.chunks = filepath.Join(s.state, "cache"), filepath.Join(s.state, "chunks")
	s.archive = settest.RandomBytes(3, 300<<10)
	sum := sha256.Sum256(s.archive)
	s.sha = hex.EncodeToString(sum[:])
	data := settest.RandomBytes(4, 40<<10)
	id := casync.ChunkID(sha256.Sum256(data))
	if err := (casync.LocalStore{Dir: s.chunks}).PutChunk(id, data); err != nil {
		t.Fatal(err)
	}
	s.chunkID = id.String()
	s.chunk, _ = os.ReadFile(casync.LocalStore{Dir: s.chunks}.Path(id))
	os.MkdirAll(s.cache, 0o755)
	for name, b := range map[string][]byte{
		filepath.Join(s.cache, s.sha):          s.archive,
		filepath.Join(s.state, "set.json"):     []byte(`{"secret":"state"}`),
		filepath.Join(s.state, "state.json"):   []byte(`{}`),
		filepath.Join(s.cache, s.sha+".caibx"): []byte("index"),
	} {
		if err := os.WriteFile(name, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// serve runs srv on a loopback listener until the test ends and returns
// its address.
func serve(t *testing.T, srv *Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	return ln.Addr().String()
}

// server returns a Server over s whose opens and lookups o records.
func (s *site) server(o *opens) *Server {
	return &Server{Chunks: s.chunks, Open: o.open, Archive: func(sha string) string {
		o.mu.Lock()
		o.lookups = append(o.lookups, sha)
		o.mu.Unlock()
		p := filepath.Join(s.cache, sha)
		if _, err := os.Stat(p); err != nil {
			return ""
		}
		return p
	}}
}

// rawGet sends one request line as written, without a client's cleaning
// of its path, and returns the status code and the body.
func rawGet(t *testing.T, addr, method, target string) (int, []byte) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(c, "%s %s HTTP/1.1\r\nHost: peer\r\nConnection: close\r\n\r\n", method, target)
	resp, err := http.ReadResponse(bufio.NewReader(c), &http.Request{Method: method})
	if err != nil {
		t.Fatalf("%s %s: %v", method, target, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, body
}

// TestServeOnlyDigests: every path that is not exactly an archive's or a
// chunk's digest is 404 and opens nothing, looks nothing up; the two forms
// serve their bytes and open only the file built from the digest.
func TestServeOnlyDigests(t *testing.T) {
	s := newSite(t)
	o := &opens{}
	addr := serve(t, s.server(o))
	up := strings.ToUpper(s.sha)
	cid := s.chunkID
	bad := []string{
		"/", "/lan/", "/lan/v1/", "/lan/v1/archives", "/lan/v1/archives/", "/lan/v1/chunks/", "/lan/v1/chunks/" + cid[:4] + "/",
		"/set.json", "/lan/v1/archives/../../set.json", "/lan/v1/archives/%2e%2e/%2e%2e/set.json", "/lan/v1/archives/..%2fset.json",
		"/lan/v1/archives/" + s.sha + "/../../set.json", "/lan/v1/archives/" + s.sha + ".caibx", "/lan/v1/archives/set.json",
		"/lan/v1/archives/" + up, "/lan/v1/archives/" + s.sha + "0", "/lan/v1/archives/" + s.sha[:63], "/lan/v1/archives/" + strings.Repeat("a", 4096),
		"/lan/v1/archives/%" + s.sha[:2] + s.sha[2:], "/lan/v1/archives/+" + s.sha[1:], "/LAN/v1/archives/" + s.sha, "/lan/v1//archives/" + s.sha,
		"/lan/v1/chunks/" + cid[:4] + "/" + cid, "/lan/v1/chunks/0000/" + cid + ".cacnk", "/lan/v1/chunks/" + strings.ToUpper(cid[:4]) + "/" + cid + ".cacnk",
		"/lan/v1/chunks/" + cid[:4] + "/" + cid + ".cacnk/..", "/lan/v1/chunks/" + cid[:4] + "/../" + cid[:4] + "/" + cid + ".cacnk",
		"/lan/v1/chunks/" + cid[:4] + "/" + strings.ToUpper(cid) + ".cacnk", "/lan/v1/chunks/" + cid[:4] + "/" + cid + ".CACNK",
		"/lan/v1/chunks/../cache/" + s.sha, "/lan/v1/archives/" + s.sha + "?/../../set.json",
	}
	for _, target := range bad {
		code, body := rawGet(t, addr, http.MethodGet, target)
		if code != http.StatusNotFound && code != http.StatusBadRequest {
			t.Errorf("GET %s = %d (%d bytes); want 404", target, code, len(body))
		}
		if code == http.StatusBadRequest {
			t.Logf("GET %s = 400 (refused by net/http before the handler)", target)
		}
	}
	for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodDelete, "PROPFIND"} {
		if code, _ := rawGet(t, addr, m, "/lan/v1/archives/"+s.sha); code != http.StatusNotFound {
			t.Errorf("%s of an archive = %d; want 404", m, code)
		}
	}
	if files, lookups := o.seen(); len(files) != 0 || len(lookups) != 0 {
		t.Fatalf("the bad paths opened %v and looked up %v; want nothing", files, lookups)
	}
	code, body := rawGet(t, addr, http.MethodGet, "/lan/v1/archives/"+s.sha)
	if code != http.StatusOK || !bytes.Equal(body, s.archive) {
		t.Errorf("GET the archive = %d, %d bytes; want 200 and its %d bytes", code, len(body), len(s.archive))
	}
	code, body = rawGet(t, addr, http.MethodGet, "/lan/v1/chunks/"+cid[:4]+"/"+cid+".cacnk")
	if code != http.StatusOK || !bytes.Equal(body, s.chunk) {
		t.Errorf("GET the chunk = %d, %d bytes; want 200 and its file", code, len(body))
	}
	missing := strings.Repeat("0", 64)
	if code, _ := rawGet(t, addr, http.MethodGet, "/lan/v1/archives/"+missing); code != http.StatusNotFound {
		t.Errorf("GET an archive the machine lacks = %d; want 404", code)
	}
	files, lookups := o.seen()
	want := []string{filepath.Join(s.cache, s.sha), filepath.Join(s.chunks, cid[:4], cid+".cacnk")}
	if !slices.Equal(files, want) || !slices.Equal(lookups, []string{s.sha, missing}) {
		t.Errorf("opened %v, looked up %v; want %v and the two digests", files, lookups, want)
	}
}

// TestZeroServerServesNothing: a server without stores answers 404 to
// the forms it knows.
func TestZeroServerServesNothing(t *testing.T) {
	s := newSite(t)
	addr := serve(t, &Server{})
	for _, target := range []string{"/lan/v1/archives/" + s.sha, "/lan/v1/chunks/" + s.chunkID[:4] + "/" + s.chunkID + ".cacnk"} {
		if code, _ := rawGet(t, addr, http.MethodGet, target); code != http.StatusNotFound {
			t.Errorf("GET %s = %d; want 404", target, code)
		}
	}
}

// noKeepAlive is a client whose connections end with their answer, so
// that no idle one holds up a server's shutdown.
var noKeepAlive = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}

// fakeClock is a clock that moves only when the server sleeps on it.
type fakeClock struct {
	mu    sync.Mutex
	t     time.Time
	slept time.Duration
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d > 0 {
		c.t = c.t.Add(d)
		c.slept += d
	}
	return ctx.Err()
}

// TestUploadUnderRate: the bytes sent, measured on the server's clock,
// never exceed max_upload: a 300 KiB archive and a chunk at 64 KiB/s take
// the clock about five seconds, and the bytes received divided by that
// time are at most the rate.
func TestUploadUnderRate(t *testing.T) {
	s := newSite(t)
	clock := &fakeClock{t: time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC)}
	const rate = 64 << 10
	srv := s.server(&opens{})
	srv.MaxUpload, srv.Now, srv.Sleep = rate, clock.now, clock.sleep
	addr := serve(t, srv)
	start := clock.now()
	var got int64
	for _, target := range []string{"/lan/v1/archives/" + s.sha, "/lan/v1/chunks/" + s.chunkID[:4] + "/" + s.chunkID + ".cacnk"} {
		resp, err := noKeepAlive.Get("http://" + addr + target)
		if err != nil {
			t.Fatal(err)
		}
		n, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		got += n
	}
	el := clock.now().Sub(start)
	if want := int64(len(s.archive) + len(s.chunk)); got != want {
		t.Fatalf("received %d bytes; want %d", got, want)
	}
	if max := float64(rate) * el.Seconds(); float64(got) > max {
		t.Errorf("%d bytes in %v of the server's clock: over the rate of %d bytes/s", got, el, rate)
	}
	// And not far under it: the bound paces, it does not stop.
	if min := float64(rate) * el.Seconds() * 0.95; float64(got) < min {
		t.Errorf("%d bytes in %v of the server's clock; want about %d bytes/s", got, el, rate)
	}
}

// TestUploadUnderRateTogether: two downloads at once share the rate.
func TestUploadUnderRateTogether(t *testing.T) {
	s := newSite(t)
	clock := &fakeClock{t: time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC)}
	const rate = 128 << 10
	srv := s.server(&opens{})
	srv.MaxUpload, srv.Now, srv.Sleep = rate, clock.now, clock.sleep
	addr := serve(t, srv)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var got int64
	for range 2 {
		wg.Go(func() {
			resp, err := noKeepAlive.Get("http://" + addr + "/lan/v1/archives/" + s.sha)
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			n, _ := io.Copy(io.Discard, resp.Body)
			mu.Lock()
			got += n
			mu.Unlock()
		})
	}
	wg.Wait()
	// The clock moves by each sleep, and the reservations are in order:
	// what was sent fits in the time reserved for it.
	if el := clock.now().Sub(time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC)); float64(got) > float64(rate)*el.Seconds() {
		t.Errorf("%d bytes in %v of the server's clock: over the rate of %d bytes/s", got, el, rate)
	}
	if got != 2*int64(len(s.archive)) {
		t.Errorf("received %d bytes; want both archives", got)
	}
}

// TestServerBusy: past MaxActive files sent at once, a request is answered
// 503 (here at once: BusyWait is negative), opening nothing, so that the peer asks another source; the
// transfer under way ends whole.
func TestServerBusy(t *testing.T) {
	s := newSite(t)
	o := &opens{}
	srv := s.server(o)
	started, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	srv.MaxActive, srv.MaxUpload, srv.BusyWait = 1, 1<<30, -1
	srv.Sleep = func(ctx context.Context, d time.Duration) error {
		once.Do(func() { close(started); <-release })
		return nil
	}
	addr := serve(t, srv)
	first := make(chan int64, 1)
	go func() {
		resp, err := noKeepAlive.Get("http://" + addr + "/lan/v1/archives/" + s.sha)
		if err != nil {
			first <- -1
			return
		}
		defer resp.Body.Close()
		n, _ := io.Copy(io.Discard, resp.Body)
		first <- n
	}()
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("the first transfer did not start")
	}
	code, _ := rawGet(t, addr, http.MethodGet, "/lan/v1/chunks/"+s.chunkID[:4]+"/"+s.chunkID+".cacnk")
	if code != http.StatusServiceUnavailable {
		t.Errorf("a second transfer while one is under way = %d; want 503", code)
	}
	if files, _ := o.seen(); len(files) != 1 {
		t.Errorf("opened %v; want only the first transfer's file", files)
	}
	close(release)
	if n := <-first; n != int64(len(s.archive)) {
		t.Errorf("the first transfer got %d bytes; want %d", n, len(s.archive))
	}
}
