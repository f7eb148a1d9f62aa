package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/installer/intake"
)

// The contract test: the real daemon, driven through a real flow over its
// real socket, and every request, response and event line it exchanged
// validated against api/openapi.yaml. Every object in the document forbids
// fields it does not name and no operation has a default response, so a
// field, status code or endpoint the daemon sends that the document lacks
// fails the test; TestOpenAPIContract also removes single fields, codes and
// paths from the document and requires the same exchanges to fail then.

// exchange is one request and its answer, as the client saw them.
type exchange struct {
	method, url string
	reqHeader   http.Header
	reqBody     []byte
	status      int
	header      http.Header
	body        []byte
	stream      bool // an event stream: its lines are checked one by one
}

// recorder is an http.RoundTripper that keeps every exchange.
type recorder struct {
	base http.RoundTripper
	mu   sync.Mutex
	all  []exchange
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	var reqBody []byte
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		if err != nil {
			return nil, err
		}
		reqBody = b
		req.Body = io.NopCloser(bytes.NewReader(b))
	}
	resp, err := r.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	ex := exchange{method: req.Method, url: req.URL.String(), reqHeader: req.Header.Clone(), reqBody: reqBody,
		status: resp.StatusCode, header: resp.Header.Clone()}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/x-ndjson") {
		ex.stream = true
	} else {
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		ex.body = body
		resp.Body = io.NopCloser(bytes.NewReader(body))
	}
	r.mu.Lock()
	r.all = append(r.all, ex)
	r.mu.Unlock()
	return resp, nil
}

// contract is the document and what validating against it needs.
type contract struct {
	doc    *openapi3.T
	router routers.Router
}

// A lock posted to /v1/set/diff may be TOML: its schema is a string, and
// the daemon, not the validator, reads the TOML.
func init() {
	// An archive sent to /v1/install is bytes, as application/octet-stream.
	for _, ct := range []string{"application/zip", "application/x-7z-compressed", "application/x-tar", "application/gzip", "application/x-xz", "application/zstd"} {
		openapi3filter.RegisterBodyDecoder(ct, openapi3filter.FileBodyDecoder)
	}
	openapi3filter.RegisterBodyDecoder("application/toml", func(body io.Reader, _ http.Header, _ *openapi3.SchemaRef, _ openapi3filter.EncodingFn) (any, error) {
		b, err := io.ReadAll(body)
		return string(b), err
	})
}

func loadContract(t *testing.T) *contract {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromData(api.OpenAPI)
	if err != nil {
		t.Fatalf("api/openapi.yaml: %v", err)
	}
	if err := doc.Validate(t.Context()); err != nil {
		t.Fatalf("api/openapi.yaml is not a valid OpenAPI document: %v", err)
	}
	return &contract{doc: doc, router: newRouter(t, doc)}
}

func newRouter(t *testing.T, doc *openapi3.T) routers.Router {
	t.Helper()
	r, err := legacy.NewRouter(doc)
	if err != nil {
		t.Fatalf("route api/openapi.yaml: %v", err)
	}
	return r
}

// check validates one exchange: its operation exists, the request matches
// it, and the answer's status, headers and body are documented. It returns
// the operation id.
func (c *contract) check(ctx context.Context, ex exchange) (string, error) {
	req, err := http.NewRequest(ex.method, ex.url, bytes.NewReader(ex.reqBody))
	if err != nil {
		return "", err
	}
	req.Header = ex.reqHeader.Clone()
	route, params, err := c.router.FindRoute(req)
	if err != nil {
		return "", fmt.Errorf("%s %s: no operation in the document: %w", ex.method, ex.url, err)
	}
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}}
	// A request the test sends on purpose to get a 4xx need not match.
	if ex.status < 400 {
		if err := openapi3filter.ValidateRequest(ctx, in); err != nil {
			return route.Operation.OperationID, fmt.Errorf("%s %s: request: %w", ex.method, ex.url, err)
		}
	}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: ex.status, Header: ex.header,
		Body:    io.NopCloser(bytes.NewReader(ex.body)),
		Options: &openapi3filter.Options{IncludeResponseStatus: true, ExcludeResponseBody: ex.stream}}
	if err := openapi3filter.ValidateResponse(ctx, out); err != nil {
		body := ex.body
		if len(body) > 300 {
			body = append(slices.Clone(body[:300]), "…"...)
		}
		return route.Operation.OperationID, fmt.Errorf("%s %s → %d %s: %w", ex.method, ex.url, ex.status, body, err)
	}
	return route.Operation.OperationID, nil
}

// checkEvent validates one line of the event stream against Event.
func (c *contract) checkEvent(line []byte) error {
	var v any
	if err := json.Unmarshal(line, &v); err != nil {
		return err
	}
	if err := c.doc.Components.Schemas["Event"].Value.VisitJSON(v); err != nil {
		return fmt.Errorf("event %s: %w", line, err)
	}
	return nil
}

// checkAll validates every exchange and event line, returning the faults
// and the operations seen with their status codes.
func (c *contract) checkAll(ctx context.Context, all []exchange, lines [][]byte) (faults []error, seen map[string][]int) {
	seen = map[string][]int{}
	for _, ex := range all {
		op, err := c.check(ctx, ex)
		if err != nil {
			faults = append(faults, err)
		}
		if op != "" && !slices.Contains(seen[op], ex.status) {
			seen[op] = append(seen[op], ex.status)
		}
	}
	for _, l := range lines {
		if err := c.checkEvent(l); err != nil {
			faults = append(faults, err)
		}
	}
	return faults, seen
}

// doorPackZip makes a valid pack with doors door panels.
func doorPackZip(t *testing.T, id, version string, doors int) []byte {
	return doorPackZipHold(t, id, version, doors, 2)
}

// doorPackZipHold makes a pack whose doors hold open hold seconds: over 10
// makes it invalid.
func doorPackZipHold(t *testing.T, id, version string, doors int, hold float64) []byte {
	t.Helper()
	var pieces []string
	for i := range doors {
		pieces = append(pieces, fmt.Sprintf(`{"id":"gate_%d","kind":"panel","tag":"mjolnir\\forge\\%s\\gate_%d","class":"/Game/MJOLNIR/Forge/%s/Panels/BP_Gate%d.BP_Gate%d_C","dimensions_m":[4,0.5,4],"door":{"travel_m":4,"speed_m_s":4,"trigger_size_m":[8,16,6],"hold_open_s":%g}}`, i, id, i, id, i, i, hold))
	}
	manifest := fmt.Sprintf(`{"schema":1,"id":%q,"version":%q,"name":"Doors %s","authors":["Contract"],"pieces":[%s]}`, id, version, id, strings.Join(pieces, ","))
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "forgepack.json"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := intake.WritePackZip(&buf, os.DirFS(dir), []intake.File{{Path: "forgepack.json", Size: int64(len(manifest))}}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// exampleZip packs one of the example packs with the packer's writer.
func exampleZip(t *testing.T, name string) []byte {
	t.Helper()
	dir := filepath.Join("examples", name)
	l, err := intake.ListPack(dir, intake.DefaultLimits(), nil)
	if err != nil || len(l.Problems) > 0 {
		t.Fatalf("list %s: %v %v", dir, err, l.Problems)
	}
	var buf bytes.Buffer
	if err := intake.WritePackZip(&buf, os.DirFS(l.Root), l.Files); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// socketClient is an HTTP client on the daemon's socket that records what
// it exchanges.
func socketClient(sock string) (*http.Client, *recorder) {
	rec := &recorder{base: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", sock)
	}}}
	return &http.Client{Transport: rec, Timeout: 60 * time.Second}, rec
}

// call sends one request and returns the status and body.
func call(t *testing.T, c *http.Client, method, path, body string) (int, []byte) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(t.Context(), method, "http://forgesync"+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

// expectUpload sends data as the body of a POST with the Content-Type
// ctype and requires the status.
func expectUpload(t *testing.T, c *http.Client, path, ctype string, data []byte, want int) []byte {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, "http://forgesync"+path, bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", ctype)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != want {
		t.Fatalf("POST %s (%s) = %d %s; want %d", path, ctype, resp.StatusCode, b, want)
	}
	return b
}

// expect sends a request and requires its status.
func expect(t *testing.T, c *http.Client, method, path, body string, want int) []byte {
	t.Helper()
	got, b := call(t, c, method, path, body)
	if got != want {
		t.Fatalf("%s %s = %d %s; want %d", method, path, got, b, want)
	}
	return b
}

// drop writes an archive into drop by a rename, as a finished download.
func (g *game) dropFile(t *testing.T, name string, data []byte) {
	t.Helper()
	tmp := filepath.Join(g.drop, name+".part")
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(g.drop, name)); err != nil {
		t.Fatal(err)
	}
}

// untilPacks syncs until the installed set holds ids (the watcher may take
// an archive first; either way it ends installed).
func untilPacks(t *testing.T, c *http.Client, ids ...string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		expect(t, c, http.MethodPost, "/v1/sync", "", http.StatusOK)
		var body struct {
			Packs []api.Pack `json:"packs"`
		}
		if err := json.Unmarshal(expect(t, c, http.MethodGet, "/v1/packs", "", http.StatusOK), &body); err != nil {
			t.Fatal(err)
		}
		have := 0
		for _, p := range body.Packs {
			if slices.Contains(ids, p.ID) {
				have++
			}
		}
		if have == len(ids) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("packs %v not installed after 30 s: %+v", ids, body.Packs)
		}
	}
}

func TestOpenAPIContract(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (a daemon end to end against the whole OpenAPI document); run without -short")
	}
	con := loadContract(t)
	g := newGame(t)
	g.start(t)
	ev := g.follow(t)
	c, rec := socketClient(g.sock)

	// A flow that makes the daemon send every shape it has.
	expect(t, c, http.MethodGet, "/v1/status", "", http.StatusOK)
	g.dropFile(t, "doors-a.zip", doorPackZip(t, "doors-a", "1.0.0", 200))
	g.dropFile(t, "not-a-pack.zip", []byte("this is not an archive"))
	g.dropFile(t, "foundry-wide.zip", exampleZip(t, "foundry-wide"))
	g.dropFile(t, "glass-works.zip", exampleZip(t, "glass-works"))
	g.dropFile(t, "bad-doors.zip", doorPackZipHold(t, "bad-doors", "2.0.0", 1, 20))
	untilPacks(t, c, "doors-a", "foundry-wide", "glass-works")
	expect(t, c, http.MethodPost, "/v1/packs/doors-a/disable", "", http.StatusOK)
	g.dropFile(t, "doors-b.zip", doorPackZip(t, "doors-b", "1.0.0", 100))
	untilPacks(t, c, "doors-a", "doors-b")
	expect(t, c, http.MethodPost, "/v1/packs/doors-a/enable", "{}", http.StatusConflict) // 300 doors
	expect(t, c, http.MethodPost, "/v1/packs/doors-b/disable", "", http.StatusOK)
	expect(t, c, http.MethodPost, "/v1/packs/doors-a/enable", "", http.StatusOK)
	g.dropFile(t, "doors-a-1.1.zip", doorPackZip(t, "doors-a", "1.1.0", 10)) // an upgrade
	deadline := time.Now().Add(30 * time.Second)
	for {
		var p api.Pack
		if err := json.Unmarshal(expect(t, c, http.MethodGet, "/v1/packs/doors-a", "", http.StatusOK), &p); err != nil {
			t.Fatal(err)
		}
		if p.Version == "1.1.0" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("doors-a not upgraded after 30 s: %+v", p)
		}
		expect(t, c, http.MethodPost, "/v1/sync", "", http.StatusOK)
	}
	expect(t, c, http.MethodGet, "/v1/packs/no-such-pack", "", http.StatusNotFound)
	expect(t, c, http.MethodPost, "/v1/packs/no-such-pack/enable", "", http.StatusNotFound)
	expect(t, c, http.MethodGet, "/v1/rejections", "", http.StatusOK)
	expect(t, c, http.MethodPost, "/v1/rejections/retry", `{"archives":["no-such.zip"]}`, http.StatusNotFound)
	expect(t, c, http.MethodPost, "/v1/rejections/retry", `{}`, http.StatusBadRequest)
	expect(t, c, http.MethodPost, "/v1/rejections/retry", `{"all":true}`, http.StatusOK) // rejected again
	handed := filepath.Join(g.drop, ".install", "t1")
	os.MkdirAll(handed, 0o755)
	os.WriteFile(filepath.Join(handed, "foundry-wide.zip"), exampleZip(t, "foundry-wide"), 0o644)
	expect(t, c, http.MethodPost, "/v1/install", `{"archive":"t1/foundry-wide.zip","force":true}`, http.StatusOK) // already installed
	expect(t, c, http.MethodPost, "/v1/install", `{"archive":"../foundry-wide.zip"}`, http.StatusBadRequest)
	expect(t, c, http.MethodPost, "/v1/install", `{"archive":"t9/gone.zip"}`, http.StatusNotFound)
	expectUpload(t, c, "/v1/install?name=glass-works-again.zip", "application/zip", exampleZip(t, "glass-works"), http.StatusOK)
	expectUpload(t, c, "/v1/install?name=a.zip", "text/plain", []byte("PK"), http.StatusUnsupportedMediaType)
	expect(t, c, http.MethodGet, "/v1/openapi.json", "", http.StatusOK)
	expect(t, c, http.MethodGet, "/v1/update", "", http.StatusOK) // checking: false, [update] check is off
	expect(t, c, http.MethodDelete, "/v1/packs/doors-b", "", http.StatusOK)
	expect(t, c, http.MethodDelete, "/v1/packs/doors-b", "", http.StatusNotFound)
	expect(t, c, http.MethodGet, "/v1/history", "", http.StatusOK)
	expect(t, c, http.MethodPost, "/v1/rollback", `{"generation":999}`, http.StatusNotFound)
	expect(t, c, http.MethodPost, "/v1/rollback", `{"generation":-1}`, http.StatusBadRequest)
	expect(t, c, http.MethodPost, "/v1/rollback", "", http.StatusOK) // doors-b comes back, disabled
	expect(t, c, http.MethodPost, "/v1/profile/save", `{"name":"pvp"}`, http.StatusOK)
	expect(t, c, http.MethodPost, "/v1/profile/save", `{"name":"no spaces"}`, http.StatusBadRequest)
	expect(t, c, http.MethodPost, "/v1/profile/switch", `{"name":"pvp"}`, http.StatusOK)
	expect(t, c, http.MethodPost, "/v1/profile/switch", `{"name":"nowhere"}`, http.StatusNotFound)
	expect(t, c, http.MethodPost, "/v1/profile/remove", `{"name":"pvp"}`, http.StatusConflict) // the current one
	expect(t, c, http.MethodGet, "/v1/status", "", http.StatusOK)                              // profile pvp
	expect(t, c, http.MethodPost, "/v1/profile/switch", `{"name":"own"}`, http.StatusOK)
	expect(t, c, http.MethodGet, "/v1/profiles", "", http.StatusOK)
	expect(t, c, http.MethodPost, "/v1/profile/remove", `{"name":"pvp"}`, http.StatusOK)
	expect(t, c, http.MethodPost, "/v1/sync", `{"force":true}`, http.StatusBadRequest)
	expect(t, c, http.MethodPost, "/v1/sync", `{"x":`+strings.Repeat(" ", 70<<10)+`1}`, http.StatusRequestEntityTooLarge)
	expect(t, c, http.MethodGet, "/v1/events?since=yesterday", "", http.StatusBadRequest)
	expect(t, c, http.MethodPost, "/v1/page/token", "", http.StatusServiceUnavailable) // no [api] listen here
	expect(t, c, http.MethodGet, "/v1/page/session", "", http.StatusForbidden)         // the page's own
	expect(t, c, http.MethodPost, "/v1/set/preview", `{"url":"file:///etc/forgepacks.lock"}`, http.StatusBadRequest)
	expect(t, c, http.MethodGet, "/v1/status", "", http.StatusOK)
	expect(t, c, http.MethodGet, "/v1/packs", "", http.StatusOK)

	// The event stream: everything held since the start, line by line.
	held := ev.wait(t, 30*time.Second, "a rejection and an upgrade", func(all []api.Event) bool {
		return count(all, api.EventPackRejected) >= 1 && count(all, api.EventPackInstalled) >= 3
	})
	lines := readEvents(t, c, len(held))
	for _, typ := range []api.EventType{api.EventArchiveSeen, api.EventPackInstalled, api.EventPackRejected, api.EventInventoryPublished, api.EventModuleDeployed, api.EventSetApplied, api.EventGeneration,
		api.EventPackEnabled, api.EventPackDisabled, api.EventPackRemoved, api.EventSyncStarted, api.EventSyncFinished, api.EventProfileSwitched} {
		if !slices.ContainsFunc(lines, func(l []byte) bool { return bytes.Contains(l, []byte(`"type":"`+string(typ)+`"`)) }) {
			t.Errorf("the flow sent no %s event; the contract test must see every event type it can", typ)
		}
	}

	// Pack sets: a second daemon follows a set a host published.
	setExchanges, setLines := setsFlow(t)
	all := append(slices.Clone(rec.all), setExchanges...)
	lines = append(lines, setLines...)
	for _, typ := range []api.EventType{api.EventDownload, api.EventSetChecked, api.EventSetApplied, api.EventSetStaged} {
		if !slices.ContainsFunc(setLines, func(l []byte) bool { return bytes.Contains(l, []byte(`"type":"`+string(typ)+`"`)) }) {
			t.Errorf("the sets flow sent no %s event", typ)
		}
	}

	faults, seen := con.checkAll(t.Context(), all, lines)
	for _, f := range faults {
		t.Error(f)
	}
	t.Logf("%d exchanges and %d event lines validated; operations and codes seen: %v", len(all), len(lines), seen)
	for _, path := range con.doc.Paths.InMatchingOrder() {
		for method, op := range con.doc.Paths.Value(path).Operations() {
			if _, ok := seen[op.OperationID]; !ok {
				t.Errorf("%s %s (%s) is documented but the flow never called it", method, path, op.OperationID)
			}
		}
	}
	if t.Failed() {
		return
	}
	proveStrict(t, con, all, lines)
}

// setsFlow runs a daemon that follows a set served over HTTP and drives
// the /v1/set endpoints: the set applied at start (download, set-checked,
// set-applied), GET /v1/set, a pack dropped by hand (status.set then lists
// the difference), a check answered 304, diff with TOML and JSON locks,
// apply by URL with prune, apply of an inline lock, and bad requests. It
// returns the exchanges and the event lines.
func setsFlow(t *testing.T) ([]exchange, [][]byte) {
	dir, _ := publishedSet(t, map[string]int{"alpha-gates": 2, "beta-gates": 1})
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer srv.Close()
	g := newGame(t)
	f, err := os.OpenFile(g.config, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "[sets]\nsource = %q\ninterval = \"1h\"\n", srv.URL+"/")
	f.Close()
	g.start(t)
	ev := g.follow(t)
	ev.wait(t, 30*time.Second, "the set applied at start", func(all []api.Event) bool { return count(all, api.EventSetChecked) >= 1 })
	c, rec := socketClient(g.sock)

	expect(t, c, http.MethodGet, "/v1/set", "", http.StatusOK)
	g.dropFile(t, "hand-pack.zip", packZip(t, "hand-pack", "1.0.0", 0))
	untilPacks(t, c, "hand-pack", "alpha-gates", "beta-gates")
	expect(t, c, http.MethodGet, "/v1/status", "", http.StatusOK) // with set.differences
	expect(t, c, http.MethodPost, "/v1/set/check", "", http.StatusOK)
	lock, err := os.ReadFile(filepath.Join(dir, "forgepacks.lock"))
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, "http://forgesync/v1/set/diff", bytes.NewReader(lock))
	req.Header.Set("Content-Type", "application/toml")
	if resp, err := c.Do(req); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("POST /v1/set/diff (TOML) = %v, %v", resp, err)
	} else {
		resp.Body.Close()
	}
	expect(t, c, http.MethodPost, "/v1/set/diff", `{"format":"forgepacks-lock","version":1,"pack":[]}`, http.StatusOK)
	expect(t, c, http.MethodPost, "/v1/set/diff", `{"format":"forgepacks-lock","version":9}`, http.StatusBadRequest)
	expect(t, c, http.MethodPost, "/v1/set/preview", `{"url":"`+srv.URL+`/"}`, http.StatusOK)
	expect(t, c, http.MethodPost, "/v1/set/apply", `{"url":"`+srv.URL+`/","prune":true}`, http.StatusOK)
	inline, _ := json.Marshal(api.SetApplyRequest{Lock: string(lock)})
	expect(t, c, http.MethodPost, "/v1/set/apply", string(inline), http.StatusOK)
	expect(t, c, http.MethodPost, "/v1/set/apply", `{"url":"gopher://nowhere/"}`, http.StatusBadRequest)
	expect(t, c, http.MethodPost, "/v1/set/apply", `{"mirror":"x"}`, http.StatusBadRequest)
	expect(t, c, http.MethodGet, "/v1/set", "", http.StatusOK) // paused by the lock sent as text
	expect(t, c, http.MethodPost, "/v1/set/check", "", http.StatusConflict)
	expect(t, c, http.MethodPost, "/v1/set/follow", "", http.StatusOK)
	expect(t, c, http.MethodPost, "/v1/reload", "", http.StatusOK)
	expect(t, c, http.MethodGet, "/v1/set", "", http.StatusOK)
	// Staging (SPEC §12): the set as a profile of its own, then joined by
	// its fingerprint.
	var staged api.SetStageResult
	json.Unmarshal(expect(t, c, http.MethodPost, "/v1/set/stage", `{"url":"`+srv.URL+`/","as":"staged-copy"}`, http.StatusOK), &staged)
	expect(t, c, http.MethodPost, "/v1/set/stage", `{"url":"`+srv.URL+`/","key":"RWQnotakey"}`, http.StatusConflict)
	expect(t, c, http.MethodGet, "/v1/set/check?fingerprint="+staged.Fingerprint, "", http.StatusOK)
	expect(t, c, http.MethodGet, "/v1/set/check?fingerprint=abc", "", http.StatusBadRequest)
	expect(t, c, http.MethodPost, "/v1/set/apply", `{"fingerprint":"`+staged.Fingerprint+`"}`, http.StatusOK)

	held := ev.wait(t, 30*time.Second, "the applies' events", func(all []api.Event) bool {
		return count(all, api.EventSetApplied) >= 2 && count(all, api.EventSetStaged) >= 1
	})
	return rec.all, readEvents(t, c, len(held))
}

// readEvents reads n lines of the event stream from its start.
func readEvents(t *testing.T, c *http.Client, n int) [][]byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://forgesync/v1/events?since=0", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	var lines [][]byte
	for len(lines) < n && sc.Scan() {
		lines = append(lines, slices.Clone(sc.Bytes()))
	}
	if len(lines) < n {
		t.Fatalf("event stream gave %d lines; want %d: %v", len(lines), n, sc.Err())
	}
	return lines
}

// proveStrict shows that the test catches drift: with one field, one
// status code or one path taken out of the document, exchanges the daemon
// really made fail validation. It also surveys every field of every schema
// and logs those the flow never sent.
func proveStrict(t *testing.T, con *contract, all []exchange, lines [][]byte) {
	schemas := con.doc.Components.Schemas
	cases := []struct {
		name   string
		mutate func() (undo func())
	}{
		{"Status.uptime_s", func() func() { return dropProperty(schemas["Status"].Value, "uptime_s") }},
		{"Pack.archive_sha256", func() func() { return dropProperty(schemas["Pack"].Value, "archive_sha256") }},
		{"Reason.rule", func() func() { return dropProperty(schemas["Reason"].Value, "rule") }},
		{"archive-seen data.size", func() func() {
			return dropProperty(schemas["ArchiveSeenEvent"].Value.Properties["data"].Value, "size")
		}},
		{"PackChange.generation", func() func() { return dropProperty(schemas["PackChange"].Value, "generation") }},
		{"sync-finished data.fingerprint", func() func() {
			return dropProperty(schemas["SyncFinishedEvent"].Value.Properties["data"].Value, "fingerprint")
		}},
		{"SyncResults.installed", func() func() { return dropProperty(schemas["SyncResults"].Value, "installed") }},
		{"enablePack 409", func() func() {
			rs := con.doc.Paths.Value("/v1/packs/{id}/enable").Post.Responses
			saved := rs.Value("409")
			rs.Delete("409")
			return func() { rs.Set("409", saved) }
		}},
		{"path /v1/rejections", func() func() {
			saved := con.doc.Paths.Value("/v1/rejections")
			con.doc.Paths.Delete("/v1/rejections")
			con.router = newRouter(t, con.doc)
			return func() { con.doc.Paths.Set("/v1/rejections", saved); con.router = newRouter(t, con.doc) }
		}},
	}
	for _, c := range cases {
		undo := c.mutate()
		faults, _ := con.checkAll(t.Context(), all, lines)
		undo()
		if len(faults) == 0 {
			t.Errorf("without %s the document still accepts everything the daemon sent: the contract test could not catch that drift", c.name)
		} else {
			t.Logf("without %s: %d exchanges fail, e.g. %v", c.name, len(faults), headLine(faults[0]))
		}
	}
	// The survey: which documented fields did the flow exercise?
	var unexercised []string
	total := 0
	for name, ref := range schemas {
		walkProperties(name, ref.Value, map[*openapi3.Schema]bool{}, func(path string, s *openapi3.Schema, prop string) {
			total++
			undo := dropProperty(s, prop)
			faults, _ := con.checkAll(t.Context(), all, lines)
			undo()
			if len(faults) == 0 {
				unexercised = append(unexercised, path)
			}
		})
	}
	slices.Sort(unexercised)
	t.Logf("%d of %d documented fields are caught when removed; not sent in this flow (optional or error-only): %s",
		total-len(unexercised), total, strings.Join(unexercised, ", "))
}

// dropProperty removes prop from s (and from its required list) and
// returns the undo.
func dropProperty(s *openapi3.Schema, prop string) func() {
	saved, required := s.Properties[prop], slices.Clone(s.Required)
	delete(s.Properties, prop)
	s.Required = slices.DeleteFunc(s.Required, func(r string) bool { return r == prop })
	return func() { s.Properties[prop], s.Required = saved, required }
}

// walkProperties calls visit for every property of s and of the objects
// defined inline under it (references are walked where they are defined).
func walkProperties(path string, s *openapi3.Schema, done map[*openapi3.Schema]bool, visit func(string, *openapi3.Schema, string)) {
	if s == nil || done[s] {
		return
	}
	done[s] = true
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		visit(path+"."+n, s, n)
		if ref := s.Properties[n]; ref.Ref == "" {
			walkProperties(path+"."+n, ref.Value, done, visit)
			if ref.Value.Items != nil && ref.Value.Items.Ref == "" {
				walkProperties(path+"."+n+"[]", ref.Value.Items.Value, done, visit)
			}
		}
	}
}

func headLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}

// TestOpenAPICommand: `forgesync openapi` prints the contract as JSON, the
// document the daemon serves, which kin-openapi takes; --yaml prints its
// YAML source. Neither needs a config.
func TestOpenAPICommand(t *testing.T) {
	t.Setenv("FORGESYNC_CONFIG", filepath.Join(t.TempDir(), "none.toml"))
	code, out, errs := runCLI(t, "openapi")
	want := api.OpenAPIJSON
	if code != 0 || out != string(want) || errs != "" {
		t.Fatalf("forgesync openapi = %d, %.60q…, %q; want 0 and the served document", code, out, errs)
	}
	doc, err := openapi3.NewLoader().LoadFromData([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(t.Context()); err != nil || doc.Paths.Find("/v1/openapi.json") == nil {
		t.Errorf("forgesync openapi printed a document kin-openapi refuses (%v) or without /v1/openapi.json", err)
	}
	code, out, _ = runCLI(t, "openapi", "--yaml")
	if code != 0 || out != string(api.OpenAPI) {
		t.Errorf("forgesync openapi --yaml = %d, %.60q…; want 0 and api/openapi.yaml", code, out)
	}
}

// TestREADMENamesEveryEndpoint: the list of endpoints that opens the
// README's "The status socket" names every operation of the contract as
// `METHOD /v1/…`, and none the contract lacks.
func TestREADMENamesEveryEndpoint(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## The status socket\n\n")
	if !ok {
		t.Fatal(`README.md has no "## The status socket" section`)
	}
	list, _, _ := strings.Cut(section, "\n\n")
	named := map[string]bool{}
	for _, m := range regexp.MustCompile("`(GET|POST|DELETE|PUT|PATCH)\\s+(/v1/[^\\s`?]*)").FindAllStringSubmatch(list, -1) {
		named[m[1]+" "+m[2]] = true
	}
	doc := loadContract(t).doc
	documented := map[string]bool{}
	for _, path := range doc.Paths.InMatchingOrder() {
		for method := range doc.Paths.Value(path).Operations() {
			documented[method+" "+path] = true
			if !named[method+" "+path] {
				t.Errorf("README.md's list of endpoints (The status socket) does not name `%s %s`", method, path)
			}
		}
	}
	for op := range named {
		if !documented[op] {
			t.Errorf("README.md's list of endpoints names `%s`, which api/openapi.yaml does not document", op)
		}
	}
}
