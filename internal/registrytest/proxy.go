package registrytest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Path patterns for [Fault.Path].
const (
	// BlobPath matches a blob fetch (not an upload).
	BlobPath = `/blobs/sha256:[0-9a-f]{64}$`
	// AnyManifestPath matches a manifest by tag or digest.
	AnyManifestPath = `/manifests/[^/]+$`
)

// ManifestPath returns the pattern of the manifest path of reference (a
// tag or a digest), in any repository.
func ManifestPath(reference string) string {
	return `/manifests/` + regexp.QuoteMeta(reference) + `$`
}

// Request is one request the proxy (or its object host) answered.
type Request struct {
	Method string
	// Path is the URL path; Query its raw query.
	Path, Query string
	// Range is the Range header, if any.
	Range  string
	Status int
	// Bytes counts the response body bytes sent to the client.
	Bytes int64
	// Uploaded counts the request body bytes the client sent.
	Uploaded int64
	// HadAuthorization reports whether the request carried an
	// Authorization header.
	HadAuthorization bool
	// Object reports whether the object host (the target of a blob
	// redirect) answered, rather than the proxy.
	Object bool
	// Fault names the fault that changed the answer, "" when none did.
	Fault string
	// Duration is the time from the request's arrival to the end of its
	// answer: a figure for benchmarks, not for tests to assert.
	Duration time.Duration
}

// Fault changes the answers to matching requests. A request matches when
// its method is Method ("" any method) and its URL path matches the regular
// expression Path ("" any path). The first Skip matching requests pass
// untouched; the fault then applies to the next Times (0: every later one).
// Exactly one of the actions below is set.
type Fault struct {
	Method string
	Path   string
	Skip   int
	Times  int

	// Status answers with this status and a distribution-spec error body
	// instead of forwarding; RetryAfter, when set, is its Retry-After
	// header (seconds or an HTTP date).
	Status     int
	RetryAfter string
	// CutAt forwards the response but closes the connection after this
	// fraction (0 < CutAt < 1) of its body.
	CutAt float64
	// Corrupt forwards the response with one byte of its body flipped,
	// at the middle of the body.
	Corrupt bool
	// RedirectBlobs answers a request the registry would serve with 307 to
	// the object host, a second loopback host with another host name, which
	// serves the same bytes and records whether an Authorization header
	// reached it (as S3 or a CDN behind a registry would).
	RedirectBlobs bool
	// ReplaceManifest answers with this manifest body (its media type
	// ManifestMediaType, default the OCI image manifest) and its own digest;
	// requests for the manifest by that digest are answered with it too,
	// as a registry that holds it would.
	ReplaceManifest   []byte
	ManifestMediaType string
	// MoveTag serves the request as if its last path segment (a tag) were
	// this reference instead: the tag has moved to it.
	MoveTag string
}

// name says what the fault does, for the record.
func (f *Fault) name() string {
	switch {
	case f.Status != 0:
		return "status " + strconv.Itoa(f.Status)
	case f.CutAt != 0:
		return fmt.Sprintf("cut at %g", f.CutAt)
	case f.Corrupt:
		return "corrupt"
	case f.RedirectBlobs:
		return "redirect"
	case f.ReplaceManifest != nil:
		return "replace manifest"
	case f.MoveTag != "":
		return "move tag to " + f.MoveTag
	}
	return "none"
}

type activeFault struct {
	Fault
	re *regexp.Regexp
	// byDigest matches the replacement manifest's own path, nil when the
	// fault replaces none.
	byDigest *regexp.Regexp
	seen     int // matching requests so far
}

// Proxy is a reverse proxy on its own loopback port in front of a
// registry: it forwards every request, records it, and injects the faults
// it is given.
type Proxy struct {
	// Host is 127.0.0.1:port; URL is http://Host.
	Host, URL string
	// ObjectHost is the host that redirected blobs are served from.
	ObjectHost string

	target  *url.URL
	rp      *httputil.ReverseProxy
	mu      sync.Mutex // guards faults, record, objects, nextObj and inflight
	faults  []*activeFault
	record  []Request
	objects map[string]object
	nextObj int
	// inflight counts the requests being answered; idle is signalled when
	// it drops to zero.
	inflight int
	idle     *sync.Cond
}

// object is a redirected blob: where the object host fetches it from, with
// the credentials the registry accepted (as a presigned URL carries them).
type object struct {
	path, authorization string
}

// NewProxy starts a proxy in front of target for the duration of the test.
func NewProxy(t testing.TB, target *Registry) *Proxy {
	t.Helper()
	u, err := url.Parse(target.URL)
	if err != nil {
		t.Fatalf("registrytest.NewProxy: registry URL %q: %v", target.URL, err)
	}
	p := &Proxy{target: u, objects: map[string]object{}}
	p.idle = sync.NewCond(&p.mu)
	p.rp = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(u)
			// The registry builds upload locations from Host: keep the
			// proxy's, so the client stays behind the proxy.
			pr.Out.Host = pr.In.Host
		},
		ModifyResponse: p.modifyResponse,
		ErrorLog:       log.New(io.Discard, "", 0),
	}
	srv := httptest.NewServer(http.HandlerFunc(p.serve))
	p.URL = srv.URL
	p.Host = strings.TrimPrefix(srv.URL, "http://")

	obj := startObjectHost(t, http.HandlerFunc(p.serveObject))
	p.ObjectHost = obj.host
	t.Cleanup(func() {
		srv.Close()
		obj.srv.Close()
	})
	return p
}

// Ref returns the reference HOST/repo:tag (or HOST/repo@digest) through
// the proxy.
func (p *Proxy) Ref(repo, tag string) string {
	if strings.HasPrefix(tag, "sha256:") {
		return p.Host + "/" + repo + "@" + tag
	}
	return p.Host + "/" + repo + ":" + tag
}

// Fault adds a fault; faults apply in the order added, the first that
// matches a request decides its answer.
func (p *Proxy) Fault(f Fault) {
	re, err := regexp.Compile(f.Path)
	if err != nil {
		panic(fmt.Sprintf("registrytest: fault path %q: %v", f.Path, err))
	}
	if f.CutAt < 0 || f.CutAt >= 1 {
		panic(fmt.Sprintf("registrytest: fault CutAt %g is outside (0, 1)", f.CutAt))
	}
	af := &activeFault{Fault: f, re: re}
	if f.ReplaceManifest != nil {
		sum := sha256.Sum256(f.ReplaceManifest)
		af.byDigest = regexp.MustCompile(ManifestPath("sha256:" + hex.EncodeToString(sum[:])))
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.faults = append(p.faults, af)
}

// ClearFaults removes every fault.
func (p *Proxy) ClearFaults() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.faults = nil
}

// Requests returns the requests answered so far, in the order they ended.
// It first waits for the requests being answered to end: a client sees the
// last byte of a response before its handler has returned.
func (p *Proxy) Requests() []Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.inflight > 0 {
		p.idle.Wait()
	}
	return append([]Request(nil), p.record...)
}

// ResetRequests forgets the requests answered so far.
func (p *Proxy) ResetRequests() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.record = nil
}

// match returns the fault that applies to req and counts the match, or
// nil.
func (p *Proxy) match(req *http.Request) *activeFault {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, f := range p.faults {
		if f.Method != "" && f.Method != req.Method {
			continue
		}
		if f.byDigest != nil && f.byDigest.MatchString(req.URL.Path) {
			return f // the replacement by its digest: not counted
		}
		if !f.re.MatchString(req.URL.Path) {
			continue
		}
		f.seen++
		if f.seen <= f.Skip {
			return nil
		}
		if f.Times > 0 && f.seen > f.Skip+f.Times {
			continue
		}
		return f
	}
	return nil
}

// unmatch gives back a match that did not apply after all.
func (p *Proxy) unmatch(f *activeFault) {
	p.mu.Lock()
	defer p.mu.Unlock()
	f.seen--
}

// begin counts a request being answered; add records it when it ends.
func (p *Proxy) begin() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.inflight++
}

func (p *Proxy) add(r Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.record = append(p.record, r)
	p.inflight--
	if p.inflight == 0 {
		p.idle.Broadcast()
	}
}

type faultKey struct{}

// bodyFault travels with a request whose response body a fault changes.
type bodyFault struct {
	f   *activeFault
	rec *Request // the record of the request, which names the fault
	rw  *recorder
}

func (p *Proxy) serve(w http.ResponseWriter, req *http.Request) {
	p.begin()
	start := time.Now()
	rw := &recorder{ResponseWriter: w}
	body := &countingReader{r: req.Body}
	req.Body = body
	rec := Request{
		Method: req.Method, Path: req.URL.Path, Query: req.URL.RawQuery,
		Range: req.Header.Get("Range"), HadAuthorization: req.Header.Get("Authorization") != "",
	}
	defer func() {
		rec.Status, rec.Bytes, rec.Uploaded, rec.Duration = rw.status, rw.n, body.n, time.Since(start)
		if rec.Status == 0 {
			rec.Status = http.StatusOK
		}
		p.add(rec)
	}()

	f := p.match(req)
	if f == nil {
		p.rp.ServeHTTP(rw, req)
		return
	}
	rec.Fault = f.name()
	switch {
	case f.Status != 0:
		if f.RetryAfter != "" {
			rw.Header().Set("Retry-After", f.RetryAfter)
		}
		code, msg := "UNKNOWN", "registrytest: injected fault"
		if f.Status == http.StatusTooManyRequests {
			code, msg = "TOOMANYREQUESTS", "You have reached your pull rate limit (registrytest)"
		}
		writeErrors(rw, f.Status, code, msg)
	case f.ReplaceManifest != nil:
		mt := f.ManifestMediaType
		if mt == "" {
			mt = "application/vnd.oci.image.manifest.v1+json"
		}
		sum := sha256.Sum256(f.ReplaceManifest)
		rw.Header().Set("Content-Type", mt)
		rw.Header().Set("Docker-Content-Digest", "sha256:"+hex.EncodeToString(sum[:]))
		rw.Header().Set("Content-Length", strconv.Itoa(len(f.ReplaceManifest)))
		rw.WriteHeader(http.StatusOK)
		if req.Method != http.MethodHead {
			_, _ = rw.Write(f.ReplaceManifest)
		}
	case f.MoveTag != "":
		i := strings.LastIndex(req.URL.Path, "/")
		req.URL.Path = req.URL.Path[:i+1] + f.MoveTag
		req.URL.RawPath = ""
		p.rp.ServeHTTP(rw, req)
	case f.RedirectBlobs:
		if !p.redirect(rw, req) {
			p.unmatch(f)
			rec.Fault = ""
			p.rp.ServeHTTP(rw, req)
		}
	default: // CutAt, Corrupt: the body is changed on its way back.
		ctx := req.Context()
		req = req.WithContext(context.WithValue(ctx, faultKey{}, &bodyFault{f: f, rec: &rec, rw: rw}))
		p.rp.ServeHTTP(rw, req)
	}
}

// redirect answers 307 to the object host when the registry would serve
// req (its credentials are good and the blob exists), and reports whether
// it did.
func (p *Proxy) redirect(w http.ResponseWriter, req *http.Request) bool {
	if req.Method != http.MethodGet {
		return false
	}
	head, err := http.NewRequestWithContext(req.Context(), http.MethodHead, p.target.String()+req.URL.Path, nil)
	if err != nil {
		return false
	}
	head.Header.Set("Authorization", req.Header.Get("Authorization"))
	resp, err := http.DefaultClient.Do(head)
	if err != nil {
		return false
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return false
	}
	p.mu.Lock()
	p.nextObj++
	id := strconv.Itoa(p.nextObj)
	p.objects[id] = object{path: req.URL.Path, authorization: req.Header.Get("Authorization")}
	p.mu.Unlock()
	w.Header().Set("Location", "http://"+p.ObjectHost+"/objects/"+id+"?signature=registrytest")
	w.WriteHeader(http.StatusTemporaryRedirect)
	return true
}

// serveObject is the object host: it serves a redirected blob by fetching
// it from the registry with the credentials captured at redirect time.
func (p *Proxy) serveObject(w http.ResponseWriter, req *http.Request) {
	p.begin()
	start := time.Now()
	rw := &recorder{ResponseWriter: w}
	rec := Request{
		Method: req.Method, Path: req.URL.Path, Query: req.URL.RawQuery, Object: true,
		Range: req.Header.Get("Range"), HadAuthorization: req.Header.Get("Authorization") != "",
	}
	defer func() {
		rec.Status, rec.Bytes, rec.Duration = rw.status, rw.n, time.Since(start)
		p.add(rec)
	}()
	p.mu.Lock()
	obj, ok := p.objects[strings.TrimPrefix(req.URL.Path, "/objects/")]
	p.mu.Unlock()
	if !ok || (req.Method != http.MethodGet && req.Method != http.MethodHead) {
		http.Error(rw, "no such object", http.StatusNotFound)
		return
	}
	up, err := http.NewRequestWithContext(req.Context(), req.Method, p.target.String()+obj.path, nil)
	if err != nil {
		http.Error(rw, err.Error(), http.StatusInternalServerError)
		return
	}
	up.Header.Set("Authorization", obj.authorization)
	if r := req.Header.Get("Range"); r != "" {
		up.Header.Set("Range", r)
	}
	resp, err := http.DefaultClient.Do(up)
	if err != nil {
		http.Error(rw, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for _, h := range []string{"Content-Length", "Content-Range", "Content-Type", "Accept-Ranges", "ETag"} {
		if v := resp.Header.Get(h); v != "" {
			rw.Header().Set(h, v)
		}
	}
	rw.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(rw, resp.Body)
}

// modifyResponse keeps token requests behind the proxy and applies the
// body faults.
func (p *Proxy) modifyResponse(resp *http.Response) error {
	if c := resp.Header.Values("WWW-Authenticate"); len(c) > 0 {
		for i, v := range c {
			c[i] = strings.ReplaceAll(v, p.target.String(), p.URL)
		}
	}
	bf, _ := resp.Request.Context().Value(faultKey{}).(*bodyFault)
	if bf == nil {
		return nil
	}
	f := bf.f
	if resp.StatusCode/100 != 2 {
		// A challenge or an error is not the body the fault is for: the
		// fault waits for the next matching request.
		p.unmatch(f)
		bf.rec.Fault = ""
		return nil
	}
	size := resp.ContentLength
	switch {
	case f.CutAt != 0:
		if size <= 0 {
			return errors.New("registrytest: cut a body of unknown length")
		}
		bf.rw.cutAt = int64(float64(size) * f.CutAt)
	case f.Corrupt:
		resp.Body = &flipBody{ReadCloser: resp.Body, at: max(size/2, 0)}
	}
	return nil
}

// flipBody inverts the byte at offset at.
type flipBody struct {
	io.ReadCloser
	at, off int64
}

func (f *flipBody) Read(b []byte) (int, error) {
	n, err := f.ReadCloser.Read(b)
	if f.at >= f.off && f.at < f.off+int64(n) {
		b[f.at-f.off] ^= 0xff
	}
	f.off += int64(n)
	return n, err
}

// recorder counts the status and body bytes of a response. When cutAt is
// set it sends that many body bytes, flushes them, and aborts the
// connection.
type recorder struct {
	http.ResponseWriter
	status int
	n      int64
	cutAt  int64
}

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	cut := r.cutAt > 0 && r.n+int64(len(b)) >= r.cutAt
	if cut {
		b = b[:r.cutAt-r.n]
	}
	n, err := r.ResponseWriter.Write(b)
	r.n += int64(n)
	if cut {
		r.Flush()
		panic(http.ErrAbortHandler)
	}
	return n, err
}

func (r *recorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

type countingReader struct {
	r io.ReadCloser
	n int64
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n += int64(n)
	return n, err
}

func (c *countingReader) Close() error { return c.r.Close() }

type objectHost struct {
	srv  *httptest.Server
	host string
}

// startObjectHost serves h on a loopback address whose host name differs
// from 127.0.0.1, so that a client sees the redirect cross hosts (HTTP
// clients keep credentials across a change of port only): 127.0.0.2 where
// the system routes all of 127.0.0.0/8 to loopback, else "localhost".
func startObjectHost(t testing.TB, h http.Handler) objectHost {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	if ln, err := net.Listen("tcp", "127.0.0.2:0"); err == nil {
		srv.Listener.Close()
		srv.Listener = ln
		srv.Start()
		return objectHost{srv: srv, host: ln.Addr().String()}
	}
	srv.Start()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	return objectHost{srv: srv, host: "localhost:" + port}
}
