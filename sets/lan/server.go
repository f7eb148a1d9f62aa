package lan

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/net/netutil"
)

// The paths the server answers (SPEC §13).
const (
	archivesPrefix = "/lan/v1/archives/"
	chunksPrefix   = "/lan/v1/chunks/"
	chunkExt       = ".cacnk"
)

// Defaults of a Server.
const (
	// defaultMaxConns bounds the connections a server holds at once; more
	// wait to be accepted.
	defaultMaxConns = 64
	// defaultMaxActive bounds the files sent at once (they share the
	// upload bound); a request beyond it waits for one to end, up to
	// defaultBusyWait, and is then answered 503 (busy): the peer asks its
	// next source without dropping this one.
	defaultMaxActive = 32
	// defaultBusyWait is how long a request waits for a file to end: well
	// under a fetcher's stall (30 s), which would drop this peer.
	defaultBusyWait = 10 * time.Second
	// shutdownGrace is how long Run waits for connections to close once
	// its context ends, before it closes them.
	shutdownGrace = 5 * time.Second
)

// digest is a SHA-256 or a chunk id, parsed from a request's path.
type digest [32]byte

// String returns the digest in 64 lowercase hex digits.
func (d digest) String() string { return hex.EncodeToString(d[:]) }

// parseDigest parses exactly 64 lowercase hex digits; anything else
// (upper case, a sign, a dot, an escape, another length) is not a digest.
func parseDigest(s string) (digest, bool) {
	var d digest
	if len(s) != 64 {
		return d, false
	}
	for i := range len(s) {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return d, false
		}
	}
	if _, err := hex.Decode(d[:], []byte(s)); err != nil {
		return d, false
	}
	return d, true
}

// Server serves a machine's archives and chunks to its LAN peers (SPEC
// §13). It is an http.Handler; Run serves it on a listener with the
// connection bound. Its zero value serves nothing (every path is 404).
type Server struct {
	// Archive returns the file of the archive kept or cached with this
	// SHA-256 (64 lowercase hex digits), or "" when the machine has none.
	Archive func(sha string) string
	// Chunks is the folder of the machine's chunk store (casync's layout,
	// Chunks/xxxx/<id>.cacnk); empty: no chunk is served.
	Chunks string
	// MaxUpload bounds the bytes per second sent, over all connections; 0
	// or less: no bound.
	MaxUpload int64
	// MaxConns bounds the connections held at once; 0: defaultMaxConns.
	MaxConns int
	// MaxActive bounds the files sent at once; 0: defaultMaxActive.
	MaxActive int
	// BusyWait is how long a request beyond MaxActive waits before it is
	// answered 503; 0: defaultBusyWait; negative: it is answered at once.
	BusyWait time.Duration
	// Open opens a file to serve; nil means one that on Windows lets the
	// file be renamed or removed while it is served. Tests record what is
	// opened.
	Open func(name string) (*os.File, error)
	// Now and Sleep are the clock of the upload bound; nil means the
	// wall clock and a timer. Tests measure the rate on a clock they
	// control.
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
	// Log hears each archive and chunk served, at debug level; nil:
	// discarded.
	Log *slog.Logger

	limit  *throttle
	active chan struct{} // a token per file being sent
}

// Handler returns the server as an http.Handler, its upload bound set.
func (s *Server) Handler() http.Handler {
	s.limit = &throttle{rate: s.MaxUpload, now: s.Now, sleep: s.Sleep}
	n := s.MaxActive
	if n <= 0 {
		n = defaultMaxActive
	}
	s.active = make(chan struct{}, n)
	return http.HandlerFunc(s.serve)
}

// Run serves on ln, at most MaxConns connections at once, until ctx ends;
// then it cuts the answers under way (their requests' contexts are ctx's:
// a peer asks its next source), closes the connections within a few
// seconds, and returns nil. It closes ln.
func (s *Server) Run(ctx context.Context, ln net.Listener) error {
	maxConns := s.MaxConns
	if maxConns <= 0 {
		maxConns = defaultMaxConns
	}
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: time.Minute,
		MaxHeaderBytes: 8 << 10, BaseContext: func(net.Listener) context.Context { return ctx }}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(netutil.LimitListener(ln, maxConns)) }()
	select {
	case err := <-done:
		return fmt.Errorf("lan: serve on %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
	}
	if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("lan: serve on %s: %w", ln.Addr(), err)
	}
	return nil
}

// serve answers one request: a file named by a digest, or 404.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead || r.URL.RawQuery != "" || r.URL.ForceQuery {
		http.NotFound(w, r)
		return
	}
	path := s.path(r.URL.EscapedPath())
	if path == "" {
		http.NotFound(w, r)
		return
	}
	if !s.acquire(r.Context()) {
		w.Header().Set("Retry-After", "5")
		http.Error(w, "busy: ask another peer or the mirror", http.StatusServiceUnavailable)
		return
	}
	defer func() { <-s.active }()
	open := s.Open
	if open == nil {
		open = openShared
	}
	f, err := open(path)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	if s.Log != nil {
		s.Log.Debug("serving a peer", "path", r.URL.EscapedPath(), "bytes", st.Size(), "peer", r.RemoteAddr)
	}
	http.ServeContent(&limitedWriter{ResponseWriter: w, ctx: r.Context(), t: s.limit}, r, "", time.Time{}, f)
}

// acquire takes a slot of the files sent at once, waiting up to BusyWait
// for one, and reports whether it did.
func (s *Server) acquire(ctx context.Context) bool {
	select {
	case s.active <- struct{}{}:
		return true
	default:
	}
	wait := s.BusyWait
	if wait < 0 {
		return false
	}
	if wait == 0 {
		wait = defaultBusyWait
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case s.active <- struct{}{}:
		return true
	case <-t.C:
	case <-ctx.Done():
	}
	return false
}

// path returns the file that the request's path names, built from the
// digest it holds, or "" when the path is not exactly one of the two
// forms of SPEC §13.
func (s *Server) path(p string) string {
	if rest, ok := strings.CutPrefix(p, archivesPrefix); ok {
		d, ok := parseDigest(rest)
		if !ok || s.Archive == nil {
			return ""
		}
		return s.Archive(d.String())
	}
	rest, ok := strings.CutPrefix(p, chunksPrefix)
	if !ok || s.Chunks == "" {
		return ""
	}
	dir, name, ok := strings.Cut(rest, "/")
	if !ok || len(dir) != 4 {
		return ""
	}
	hexID, ok := strings.CutSuffix(name, chunkExt)
	if !ok {
		return ""
	}
	d, ok := parseDigest(hexID)
	if !ok || dir != hexID[:4] {
		return ""
	}
	h := d.String()
	return filepath.Join(s.Chunks, h[:4], h+chunkExt)
}
