package daemon

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/internal/errkind"
)

// pageFiles are the status page (SPEC §14): plain HTML, CSS and one
// script, served as they are; no build step, nothing fetched from
// elsewhere.
//
//go:embed page/index.html page/page.css page/page.js
var pageFiles embed.FS

// The page's lifetimes: a token from `forgesync open` is good once, for
// tokenTTL; the session it opens lasts sessionTTL. At most maxSessions
// are kept (the oldest goes first): they live in memory only.
const (
	tokenTTL    = 2 * time.Minute
	sessionTTL  = 12 * time.Hour
	maxSessions = 32
	maxTokens   = 32
)

// The names the page's session travels under.
const (
	sessionCookie = "forgesync_session"
	csrfHeader    = "X-Forgesync-CSRF"
)

// contentSecurityPolicy lets the page run its own script and style and
// talk to its own origin, nothing else: no inline script, no frame, no
// form posted anywhere.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
	"form-action 'none'; base-uri 'none'; frame-ancestors 'none'"

// pageSessions holds the page's one-time tokens and its sessions, in
// memory only: a restarted daemon forgets them, and `forgesync open`
// makes a new one. One value is shared by the socket (where tokens are
// made) and the TCP API (where they are spent).
type pageSessions struct {
	now func() time.Time

	mu       sync.Mutex // guards the fields below
	base     string     // http://ADDR of the TCP API; "" when there is none
	tokens   map[string]pageGrant
	sessions map[string]pageSession
}

// pageGrant is what a one-time token opens: a session, and the link it
// was made for (a forgesync:// link, or "").
type pageGrant struct {
	expires time.Time
	link    *api.PageLink
}

// pageSession is one browser's session: its CSRF token, the link it was
// opened for, and when it ends.
type pageSession struct {
	csrf    string
	link    *api.PageLink
	expires time.Time
}

func newPageSessions(now func() time.Time) *pageSessions {
	return &pageSessions{now: now, tokens: map[string]pageGrant{}, sessions: map[string]pageSession{}}
}

// setBase records the TCP API's address, where the page is served.
func (p *pageSessions) setBase(addr string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.base = "http://" + addr
}

// grant makes a one-time token for link and returns the URL that spends
// it; an error when no TCP API serves the page.
func (p *pageSessions) grant(link *api.PageLink) (api.PageToken, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.base == "" {
		return api.PageToken{}, errkind.New(errkind.Unavailable, "the status page is served on the loopback TCP API, which this daemon does not run; set [api] listen (forgesync setup does) and restart the daemon")
	}
	now := p.now()
	for t, g := range p.tokens {
		if !now.Before(g.expires) {
			delete(p.tokens, t)
		}
	}
	if len(p.tokens) >= maxTokens {
		return api.PageToken{}, errkind.Errorf(errkind.Busy, "%d page tokens are waiting to be used; open one of them or wait %s for them to expire", len(p.tokens), tokenTTL)
	}
	tok := randomHex()
	p.tokens[tok] = pageGrant{expires: now.Add(tokenTTL), link: link}
	return api.PageToken{URL: p.base + "/page/session?token=" + tok, ExpiresAt: now.Add(tokenTTL).UTC()}, nil
}

// redeem spends a token once and returns the session id it opened.
func (p *pageSessions) redeem(tok string) (string, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	g, ok := p.tokens[tok]
	delete(p.tokens, tok)
	now := p.now()
	if !ok || !now.Before(g.expires) {
		return "", false
	}
	if len(p.sessions) >= maxSessions {
		p.dropOldest()
	}
	id := randomHex()
	p.sessions[id] = pageSession{csrf: randomHex(), link: g.link, expires: now.Add(sessionTTL)}
	return id, true
}

// dropOldest forgets the session that ends first.
func (p *pageSessions) dropOldest() {
	var oldest string
	for id, s := range p.sessions {
		if oldest == "" || s.expires.Before(p.sessions[oldest].expires) {
			oldest = id
		}
	}
	delete(p.sessions, oldest)
}

// session returns the live session of a request's cookie.
func (p *pageSessions) session(r *http.Request) (pageSession, bool) {
	c, err := r.Cookie(sessionCookie)
	if err != nil {
		return pageSession{}, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	s, ok := p.sessions[c.Value]
	if ok && !p.now().Before(s.expires) {
		delete(p.sessions, c.Value)
		return pageSession{}, false
	}
	return s, ok
}

// randomHex returns 32 random bytes in hex.
func randomHex() string {
	var b [32]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24)
	return hex.EncodeToString(b[:])
}

// setPageHeaders sets the headers every answer of the TCP API carries:
// the strict policy, no framing, no sniffing, no referrer. No CORS header
// is ever sent, so another origin cannot read an answer.
func setPageHeaders(h http.Header) {
	h.Set("Content-Security-Policy", contentSecurityPolicy)
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
}

// pageRoutes adds POST /v1/page/token to mux, and on the TCP API the
// page's files and its session.
func (s *server) pageRoutes(mux *http.ServeMux) {
	mux.Handle("/v1/page/token", s.handle(map[string]handlerFunc{http.MethodPost: s.postPageToken}))
	mux.Handle("/v1/page/session", s.handle(map[string]handlerFunc{http.MethodGet: s.getPageCSRF}))
	mux.Handle("/v1/set/preview", s.handle(map[string]handlerFunc{http.MethodPost: s.postSetPreview}))
	if s.opts.APIKey == "" {
		return // the socket: no browser comes here
	}
	mux.Handle("GET /{$}", s.pageFile("page/index.html", "text/html; charset=utf-8"))
	mux.Handle("GET /page.css", s.pageFile("page/page.css", "text/css; charset=utf-8"))
	mux.Handle("GET /page.js", s.pageFile("page/page.js", "text/javascript; charset=utf-8"))
	mux.HandleFunc("GET /page/session", s.getPageSession)
}

// pageFile serves one of the page's embedded files.
func (s *server) pageFile(name, contentType string) http.Handler {
	data, err := pageFiles.ReadFile(name)
	if err != nil {
		panic("daemon: the page's " + name + " is not embedded") // the go:embed line names it
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.Header().Set("Cache-Control", "no-store")
		_, _ = w.Write(data)
	})
}

// getPageSession spends the one-time token of `forgesync open` and sets
// the session cookie, then sends the browser to the page, so the token
// leaves the address bar and the history.
func (s *server) getPageSession(w http.ResponseWriter, r *http.Request) {
	id, ok := s.opts.pages.redeem(r.URL.Query().Get("token"))
	if !ok {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprintln(w, "forgesync: this page link was already used or has expired (each link opens the page once, within two minutes); run forgesync open again")
		return
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: id, Path: "/", MaxAge: int(sessionTTL / time.Second),
		HttpOnly: true, SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// postPageToken answers POST /v1/page/token: a one-time URL that opens
// the page, for the socket's peer or an API-key client; a page's session
// may not make more.
func (s *server) postPageToken(w http.ResponseWriter, r *http.Request) error {
	if viaSession(r) {
		return &APIError{Status: http.StatusForbidden, Code: codeForbidden,
			Message: "a page session cannot make page tokens; run forgesync open"}
	}
	var body api.PageTokenRequest
	if err := s.readBody(w, r, &body, `send {} or {"link": "forgesync://set?url=…"}`); err != nil {
		return err
	}
	var link *api.PageLink
	if body.Link != "" {
		l, err := ParseLink(body.Link)
		if err != nil {
			return errkind.Wrap(errkind.Invalid, err)
		}
		link = &api.PageLink{URL: l.URL, Key: l.Key}
	}
	tok, err := s.opts.pages.grant(link)
	if err != nil {
		return err
	}
	s.writeJSON(w, http.StatusOK, tok)
	return nil
}

// getPageCSRF answers GET /v1/page/session: the session's CSRF token,
// which the page's script sends with every change, and the link it was
// opened for. Only a page session has one.
func (s *server) getPageCSRF(w http.ResponseWriter, r *http.Request) error {
	ps, ok := s.opts.pages.session(r)
	if !ok || !viaSession(r) {
		return &APIError{Status: http.StatusForbidden, Code: codeForbidden,
			Message: "GET /v1/page/session is the page's own; open the page with forgesync open"}
	}
	s.writeJSON(w, http.StatusOK, api.PageSession{CSRF: ps.csrf, Link: ps.link})
	return nil
}

// sessionKey marks a request's context as let in by a page session.
type sessionKey struct{}

// viaSession reports whether a request was let in by a page session
// rather than the API key or the socket.
func viaSession(r *http.Request) bool {
	_, ok := r.Context().Value(sessionKey{}).(pageSession)
	return ok
}

// sessionLink returns the forgesync:// link the page session of r was
// opened for (by `forgesync open-link`), or nil.
func sessionLink(r *http.Request) *api.PageLink {
	ps, _ := r.Context().Value(sessionKey{}).(pageSession)
	return ps.link
}

// checkPageChange refuses a change a page session asks for unless it
// carries the session's CSRF token and comes from the page's own origin:
// another site's form or fetch has neither.
func checkPageChange(r *http.Request, ps pageSession) error {
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		return nil
	}
	if origin := r.Header.Get("Origin"); origin != "http://"+r.Host {
		return fmt.Errorf("daemon: %s %s from origin %q refused: a change through the page must come from the page itself (http://%s)", r.Method, r.URL.Path, origin, r.Host)
	}
	got := strings.TrimSpace(r.Header.Get(csrfHeader))
	if subtle.ConstantTimeCompare([]byte(got), []byte(ps.csrf)) != 1 {
		return fmt.Errorf("daemon: %s %s refused: no valid %s header; a change through the page needs the token of its session", r.Method, r.URL.Path, csrfHeader)
	}
	return nil
}

// PageToken asks the daemon for a one-time URL of its status page (POST
// /v1/page/token), opening on link when it is not empty.
func (c *Client) PageToken(ctx context.Context, link string) (api.PageToken, error) {
	body, err := json.Marshal(api.PageTokenRequest{Link: link})
	if err != nil {
		return api.PageToken{}, err
	}
	var out api.PageToken
	err = c.post(ctx, "/v1/page/token", body, &out)
	return out, err
}
