package daemon

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
)

// apiKeyName is the file in the state folder holding the TCP API's key.
const apiKeyName = "api-key"

// maxAPIKeyBytes bounds the api-key file: 64 hex digits and a newline.
const maxAPIKeyBytes = 4 << 10

// errNotLoopback is returned, wrapped with the address, when the TCP API
// is asked to listen on an address another machine could reach.
var errNotLoopback = errors.New("the TCP API listens on a loopback address only")

// apiKey returns the TCP API's key from <stateDir>/api-key, creating it at
// first start: 32 random bytes, hex-encoded, in a file readable only by
// its owner (on Windows the state folder's ACL, set by service install,
// admits only SYSTEM, Administrators and the installing user).
func apiKey(stateDir string) (string, error) {
	p := filepath.Join(stateDir, apiKeyName)
	data, err := atomicfile.ReadFile(p, maxAPIKeyBytes)
	if err == nil {
		return checkAPIKey(p, data)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("read API key: %w", err)
	}
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", fmt.Errorf("make API key: %w", err)
	}
	key := hex.EncodeToString(raw[:])
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return "", fmt.Errorf("write API key: %w", err)
	}
	if err := atomicfile.WriteFile(p, []byte(key+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("write API key: %w", err)
	}
	return key, nil
}

// readAPIKey returns the key in <stateDir>/api-key without creating one.
func readAPIKey(stateDir string) (string, error) {
	p := filepath.Join(stateDir, apiKeyName)
	data, err := atomicfile.ReadFile(p, maxAPIKeyBytes)
	if err != nil {
		return "", fmt.Errorf("read API key: %w", err)
	}
	return checkAPIKey(p, data)
}

// checkAPIKey returns the key the api-key file at p holds, data, when it
// is 64 hex digits (and white space around them), as the README says.
// The error never shows the file's bytes: they may be a key.
func checkAPIKey(p string, data []byte) (string, error) {
	key := strings.TrimSpace(string(data))
	if len(key) != 64 {
		return "", fmt.Errorf("API key %s: want 64 hex digits, found %d characters; delete the file to make a new key", p, len(key))
	}
	if i := strings.IndexFunc(key, func(r rune) bool { return !strings.ContainsRune("0123456789abcdefABCDEF", r) }); i >= 0 {
		return "", fmt.Errorf("API key %s: want 64 hex digits, found a character that is not one at byte %d; delete the file to make a new key", p, i+1)
	}
	return key, nil
}

// listenTCP listens for the TCP API on addr, which must be a loopback
// address or "localhost" (resolved to loopback addresses only).
func listenTCP(addr string) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("TCP API %s: %w", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("TCP API %s: %w", addr, errNotLoopback)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("TCP API: %w", err)
	}
	if ta, ok := ln.Addr().(*net.TCPAddr); !ok || !ta.IP.IsLoopback() {
		ln.Close()
		return nil, fmt.Errorf("TCP API %s listens on %s: %w", addr, ln.Addr(), errNotLoopback)
	}
	return ln, nil
}

// requireKey wraps the API for TCP: a request whose Host is not a loopback
// name or address is refused (a web page's DNS rebinding would otherwise
// reach it), and every request needs the key, as "Authorization: Bearer
// KEY" or "X-API-Key: KEY", compared in constant time, or the status
// page's session cookie (see [server.pageSession]). Without either the
// answer is 401 and nothing else. The page's own files and the link that
// opens its session need neither. Every answer carries the page's
// security headers; no CORS headers are ever sent.
func (s *server) requireKey(key string, next http.Handler) http.Handler {
	want := []byte(key)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		setPageHeaders(w.Header())
		if !loopbackHost(r.Host) {
			s.writeError(w, r, &APIError{Status: http.StatusForbidden, Code: codeForbidden,
				Message: fmt.Sprintf("host %q is not a loopback name or address", r.Host)})
			return
		}
		got := r.Header.Get("X-API-Key")
		if b, ok := bearerToken(r.Header.Get("Authorization")); ok {
			got = b
		}
		switch {
		case publicPagePath(r):
			next.ServeHTTP(w, r)
		case strings.TrimSpace(got) == "" && s.pageSession(w, r, next):
		case subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), want) != 1:
			w.Header().Set("WWW-Authenticate", `Bearer realm="forgesync"`)
			msg := "an API key is required (Authorization: Bearer KEY or X-API-Key: KEY; the key is in the state folder's api-key file)"
			if strings.TrimSpace(got) != "" {
				msg = "wrong API key: the key sent does not match the state folder's api-key file"
			}
			s.writeError(w, r, &APIError{Status: http.StatusUnauthorized, Code: codeUnauthorized, Message: msg})
		default:
			next.ServeHTTP(w, r)
		}
	})
}

// publicPagePath reports whether r asks for one of the page's own files or
// spends its one-time token: what a browser loads before it has a session.
func publicPagePath(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	switch r.URL.Path {
	case "/", "/page.css", "/page.js", "/page/session":
		return true
	}
	return false
}

// pageSession serves r when it carries a live page session, and reports
// whether it did: a change (any method but GET) must also carry the
// session's CSRF token and come from the page's own origin, or it is
// refused with 403 here.
func (s *server) pageSession(w http.ResponseWriter, r *http.Request, next http.Handler) bool {
	ps, ok := s.opts.pages.session(r)
	if !ok {
		return false
	}
	if err := checkPageChange(r, ps); err != nil {
		s.writeError(w, r, &APIError{Status: http.StatusForbidden, Code: codeForbidden, Message: err.Error()})
		return true
	}
	next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), sessionKey{}, ps)))
	return true
}

// bearerToken returns the token of an "Authorization: Bearer TOKEN"
// header value. The scheme's name is case-insensitive (RFC 7235 §2.1), so
// "bearer" and "BEARER" count too; one or more spaces separate it from the
// token.
func bearerToken(h string) (string, bool) {
	scheme, token, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	return strings.TrimSpace(token), true
}

// loopbackHost reports whether a Host header names this machine's
// loopback: localhost, 127.0.0.0/8 or ::1, with any port.
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// newTCPClient returns a client for the TCP API at addr with key.
func newTCPClient(addr, key string) *Client {
	d := net.Dialer{Timeout: probeTimeout}
	tr := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return d.DialContext(ctx, "tcp", addr)
		},
		DisableCompression:  true,
		MaxIdleConns:        4,
		MaxIdleConnsPerHost: 4,
		IdleConnTimeout:     30 * time.Second,
	}
	return &Client{path: addr, base: "http://" + addr, key: key, hc: &http.Client{Transport: tr}}
}

// probeTCP reports whether something accepts connections on addr.
func probeTCP(ctx context.Context, addr string) bool {
	d := net.Dialer{Timeout: probeTimeout}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return false
	}
	conn.Close()
	return true
}
