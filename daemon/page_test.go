package daemon

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/api"
)

// pageDaemon is a daemon's two endpoints, the socket and the TCP API,
// serving one fake backend, as the daemon serves them.
type pageDaemon struct {
	b    *fakeBackend
	sock *Client
	addr string
	key  string
}

func startPageDaemon(t *testing.T, now func() time.Time) *pageDaemon {
	t.Helper()
	dir, err := os.MkdirTemp("", "fspg")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	eps, err := listenAll(filepath.Join(dir, "s.sock"), "127.0.0.1:0", dir, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	d := &pageDaemon{b: newFakeBackend(), addr: eps.tcp.Addr().String(), key: eps.key}
	ev := NewEvents(EventsOptions{Now: fixedClock})
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- eps.Serve(ctx, d.b, ev, ServerOptions{Now: now}) }()
	d.sock = NewClient(filepath.Join(dir, "s.sock"))
	t.Cleanup(func() {
		d.sock.Close()
		cancel()
		<-served
		ev.Close()
	})
	return d
}

// token asks the socket for a one-time page URL.
func (d *pageDaemon) token(t *testing.T, link string) string {
	t.Helper()
	tok, err := d.sock.PageToken(waitCtx(t), link)
	if err != nil {
		t.Fatalf("PageToken = %v", err)
	}
	return tok.URL
}

// browser is an HTTP client with a cookie jar that does not follow
// redirects, like a browser's first request.
func browser(t *testing.T) *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func do(t *testing.T, c *http.Client, method, u string, header map[string]string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(waitCtx(t), method, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		if k == "Host" {
			req.Host = v
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// TestPageSession: the URL `forgesync open` prints opens a session once,
// as an HttpOnly SameSite=Strict cookie, and takes the token out of the
// address bar; a second use, or a use after two minutes, is refused.
func TestPageSession(t *testing.T) {
	now := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	d := startPageDaemon(t, clock)
	u := d.token(t, "")
	if !strings.HasPrefix(u, "http://"+d.addr+"/page/session?token=") {
		t.Fatalf("page URL = %q; want one on the TCP API %s", u, d.addr)
	}
	c := browser(t)
	resp, _ := do(t, c, "GET", u, nil)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		t.Fatalf("GET %s = %d to %q; want 303 to /", u, resp.StatusCode, resp.Header.Get("Location"))
	}
	cookie := resp.Header.Get("Set-Cookie")
	for _, want := range []string{sessionCookie + "=", "HttpOnly", "SameSite=Strict", "Path=/"} {
		if !strings.Contains(cookie, want) {
			t.Errorf("Set-Cookie = %q; want %s", cookie, want)
		}
	}
	resp, body := do(t, c, "GET", "http://"+d.addr+"/v1/page/session", nil)
	var ps api.PageSession
	if resp.StatusCode != 200 || json.Unmarshal([]byte(body), &ps) != nil || len(ps.CSRF) != 64 {
		t.Fatalf("GET /v1/page/session with the cookie = %d %s; want 200 and a CSRF token", resp.StatusCode, body)
	}
	if resp, _ := do(t, c, "GET", "http://"+d.addr+"/v1/packs", nil); resp.StatusCode != 200 {
		t.Errorf("GET /v1/packs with the session = %d; want 200", resp.StatusCode)
	}
	if resp, body := do(t, browser(t), "GET", u, nil); resp.StatusCode != http.StatusForbidden || !strings.Contains(body, "forgesync open") {
		t.Errorf("the token used twice = %d %q; want 403 saying to run forgesync open", resp.StatusCode, body)
	}
	late := d.token(t, "")
	now = now.Add(tokenTTL)
	if resp, _ := do(t, browser(t), "GET", late, nil); resp.StatusCode != http.StatusForbidden {
		t.Errorf("a token used after %s = %d; want 403", tokenTTL, resp.StatusCode)
	}
	now = now.Add(sessionTTL)
	if resp, _ := do(t, c, "GET", "http://"+d.addr+"/v1/packs", nil); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("GET /v1/packs after the session's %s = %d; want 401", sessionTTL, resp.StatusCode)
	}
}

// TestPageRefusesOtherOrigins: with the player's session cookie, a change
// needs the CSRF header and the page's own Origin; a Host that is not
// loopback is 403 before anything; every answer carries the strict
// headers and no CORS header. The API key's clients are unchanged.
func TestPageRefusesOtherOrigins(t *testing.T) {
	d := startPageDaemon(t, time.Now)
	c := browser(t)
	do(t, c, "GET", d.token(t, ""), nil)
	_, body := do(t, c, "GET", "http://"+d.addr+"/v1/page/session", nil)
	var ps api.PageSession
	if err := json.Unmarshal([]byte(body), &ps); err != nil {
		t.Fatal(err)
	}
	self := "http://" + d.addr
	disable := self + "/v1/packs/alpha/disable"
	cases := []struct {
		name   string
		header map[string]string
		want   int
	}{
		{"no CSRF header", map[string]string{"Origin": self}, 403},
		{"wrong CSRF header", map[string]string{"Origin": self, csrfHeader: strings.Repeat("0", 64)}, 403},
		{"another origin", map[string]string{"Origin": "http://evil.example", csrfHeader: ps.CSRF}, 403},
		{"no origin", map[string]string{csrfHeader: ps.CSRF}, 403},
		{"a null origin", map[string]string{"Origin": "null", csrfHeader: ps.CSRF}, 403},
		{"rebound host", map[string]string{"Host": "evil.example", "Origin": "http://evil.example", csrfHeader: ps.CSRF}, 403},
		{"the page", map[string]string{"Origin": self, csrfHeader: ps.CSRF}, 200},
	}
	for _, tc := range cases {
		resp, body := do(t, c, "POST", disable, tc.header)
		if resp.StatusCode != tc.want {
			t.Errorf("%s: POST disable = %d %s; want %d", tc.name, resp.StatusCode, body, tc.want)
		}
		if got := resp.Header.Get("Access-Control-Allow-Origin"); got != "" {
			t.Errorf("%s: Access-Control-Allow-Origin = %q; want none", tc.name, got)
		}
	}
	if calls := d.b.callLog(); len(calls) != 1 || calls[0] != "disable alpha" {
		t.Errorf("backend calls = %q; want the page's one disable", calls)
	}
	for _, path := range []string{"/", "/page.js", "/page.css", "/v1/status"} {
		resp, _ := do(t, c, "GET", self+path, nil)
		h := resp.Header
		if csp := h.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "script-src 'self'") ||
			!strings.Contains(csp, "frame-ancestors 'none'") || strings.Contains(csp, "unsafe") {
			t.Errorf("GET %s: Content-Security-Policy = %q; want the strict policy", path, csp)
		}
		if h.Get("X-Frame-Options") != "DENY" || h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Referrer-Policy") != "no-referrer" {
			t.Errorf("GET %s: headers %v; want X-Frame-Options DENY, nosniff, no-referrer", path, h)
		}
	}
	if resp, _ := do(t, c, "GET", self+"/", map[string]string{"Host": "evil.example"}); resp.StatusCode != 403 {
		t.Errorf("GET / with Host evil.example = %d; want 403", resp.StatusCode)
	}
	if resp, _ := do(t, http.DefaultClient, "POST", self+"/v1/packs/beta/enable", map[string]string{"Authorization": "Bearer " + d.key}); resp.StatusCode != 200 {
		t.Errorf("POST enable with the API key and no Origin = %d; want 200 (launchers are unchanged)", resp.StatusCode)
	}
	if resp, _ := do(t, http.DefaultClient, "GET", self+"/v1/status", nil); resp.StatusCode != 401 {
		t.Errorf("GET /v1/status with neither key nor session = %d; want 401", resp.StatusCode)
	}
	if resp, _ := do(t, c, "POST", self+"/v1/page/token", map[string]string{"Origin": self, csrfHeader: ps.CSRF}); resp.StatusCode != 403 {
		t.Errorf("a page session asking for a page token = %d; want 403", resp.StatusCode)
	}
}

// TestPageTokenNeedsTheTCPAPI: a daemon without [api] listen says where
// the page lives instead of making a URL that opens nothing.
func TestPageTokenNeedsTheTCPAPI(t *testing.T) {
	ts := startServer(t, newFakeBackend(), nil, ServerOptions{})
	_, err := ts.client.PageToken(waitCtx(t), "")
	if err == nil || !strings.Contains(err.Error(), "[api] listen") {
		t.Fatalf("PageToken without a TCP API = %v; want an error naming [api] listen", err)
	}
}

// TestPageTokenChecksTheLink: a link is checked when the token is made.
func TestPageTokenChecksTheLink(t *testing.T) {
	d := startPageDaemon(t, time.Now)
	_, err := d.sock.PageToken(waitCtx(t), "forgesync://set?url=file:///etc/passwd")
	if err == nil || !strings.Contains(err.Error(), "https://, http:// or oci://") {
		t.Fatalf("PageToken(file URL) = %v; want the link refused", err)
	}
	u := d.token(t, "forgesync://set?url="+url.QueryEscape("https://host.example/set/forgepacks.lock"))
	c := browser(t)
	do(t, c, "GET", u, nil)
	_, body := do(t, c, "GET", "http://"+d.addr+"/v1/page/session", nil)
	if !strings.Contains(body, "host.example") {
		t.Errorf("GET /v1/page/session = %s; want the link", body)
	}
}
