package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/internal/errkind"
)

// maxSetBodyBytes bounds the body of POST /v1/set/diff and /v1/set/apply:
// a lock of 1,024 packs with a few mirrors each fits many times over.
const maxSetBodyBytes = 8 << 20

// setBackend is what the status socket serves of pack sets (SPEC §10.3). A
// [Backend] that implements it gets the /v1/set endpoints; one that does
// not answers them 404.
//
// SetInfo must be a cheap snapshot. SetApply and SetCheck block until the
// sync is done or ctx ends; their errors wrap the kinds of [Backend]'s.
type setBackend interface {
	SetInfo() api.SetInfo
	SetDiff(ctx context.Context, lock []byte) (api.SetComparison, error)
	SetApply(ctx context.Context, req api.SetApplyRequest) (*api.SetSyncResult, error)
	SetCheck(ctx context.Context) (*api.SetSyncResult, error)
	SetFollow(ctx context.Context) (*api.SetSyncResult, error)
}

func (s *server) setRoutes(mux *http.ServeMux) {
	mux.Handle("/v1/set", s.handle(map[string]handlerFunc{http.MethodGet: s.sets(s.getSet)}))
	mux.Handle("/v1/set/diff", s.handleLimit(map[string]handlerFunc{http.MethodPost: s.sets(s.postSetDiff)}, maxSetBodyBytes))
	mux.Handle("/v1/set/apply", s.handleLimit(map[string]handlerFunc{http.MethodPost: s.sets(s.postSetApply)}, maxSetBodyBytes))
	mux.Handle("/v1/set/check", s.handle(map[string]handlerFunc{http.MethodPost: s.sets(s.postSetCheck), http.MethodGet: s.stages(s.getSetCheck)}))
	mux.Handle("/v1/set/stage", s.handleLimit(map[string]handlerFunc{http.MethodPost: s.stages(s.postSetStage)}, maxSetBodyBytes))
	mux.Handle("/v1/set/follow", s.handle(map[string]handlerFunc{http.MethodPost: s.sets(s.postSetFollow)}))
}

// sets answers 404 when the backend knows no sets.
func (s *server) sets(h func(sb setBackend, w http.ResponseWriter, r *http.Request) error) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		sb, ok := s.b.(setBackend)
		if !ok {
			return errkind.New(errkind.NotFound, "this daemon serves no pack sets")
		}
		return h(sb, w, r)
	}
}

func (s *server) getSet(sb setBackend, w http.ResponseWriter, r *http.Request) error {
	s.writeJSON(w, http.StatusOK, sb.SetInfo())
	return nil
}

// readRaw reads a whole request body within the body timeout.
func (s *server) readRaw(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(s.opts.BodyTimeout)) // see readBody
	b, err := io.ReadAll(r.Body)
	_ = rc.SetReadDeadline(time.Time{}) // see readBody
	if err != nil {
		w.Header().Set("Connection", "close")
		return nil, fmt.Errorf("read request body: %w", err)
	}
	return b, nil
}

func (s *server) postSetDiff(sb setBackend, w http.ResponseWriter, r *http.Request) error {
	b, err := s.readRaw(w, r)
	if err != nil {
		return err
	}
	c, err := sb.SetDiff(r.Context(), b)
	if err != nil {
		return err
	}
	s.writeJSON(w, http.StatusOK, c)
	return nil
}

func (s *server) postSetApply(sb setBackend, w http.ResponseWriter, r *http.Request) error {
	var req api.SetApplyRequest
	if err := s.readBody(w, r, &req, `send {"url": "…"}, {"lock": "…", "signature": "…"} or {"fingerprint": "sha256:…"}`); err != nil {
		return err
	}
	if req.Fingerprint != "" {
		return s.applyStaged(w, r, req)
	}
	if err := s.checkLockPath(r, req.URL); err != nil {
		return err
	}
	res, err := sb.SetApply(r.Context(), req)
	if err != nil {
		return err
	}
	s.writeJSON(w, http.StatusOK, res)
	return nil
}

// connKey is the request context's key of its connection.
type connKey struct{}

// checkLockPath refuses a set/apply whose lock is not remote (an http(s)
// URL or an oci:// reference) but a path, a folder or a file: URL, which
// the daemon would read with its own account, unless the caller may read
// it too: never over the TCP API, whose caller has a key but no identity
// the daemon can check; over the local socket when the peer is the
// daemon's own user or root (Linux, SO_PEERCRED). Where peer credentials
// are not read (other systems), the socket's own mode or ACL already
// admits only those. A lock sent as text names no local file either: the
// set sync refuses one that does (sets/follow).
func (s *server) checkLockPath(r *http.Request, ref string) error {
	if ref == "" || isRemoteRef(ref) {
		return nil
	}
	if s.opts.APIKey != "" {
		return &APIError{Status: http.StatusForbidden, Code: codeForbidden,
			Message: fmt.Sprintf("set/apply over the TCP API takes an http(s) URL, an oci:// reference or the lock's text, not a local path (%q): the daemon's account would read it for a caller it cannot identify; use the local socket, or send the lock", ref)}
	}
	c, _ := r.Context().Value(connKey{}).(net.Conn)
	if c == nil {
		return &APIError{Status: http.StatusForbidden, Code: codeForbidden,
			Message: fmt.Sprintf("set/apply of a local path (%q): the caller cannot be identified; send an http(s) URL, an oci:// reference or the lock", ref)}
	}
	if uid, ok := peerUID(c); ok && !s.opts.readsPathsOf(uid) {
		return &APIError{Status: http.StatusForbidden, Code: codeForbidden,
			Message: fmt.Sprintf("set/apply of a local path (%q) is for the daemon's own user or root, not uid %d: send an http(s) URL, an oci:// reference or the lock", ref, uid)}
	}
	return nil
}

// isRemoteRef reports whether ref names a lock on another machine: an
// http or https URL, or a set in an OCI registry (oci://HOST/REPO…, SPEC
// §10.2b), which the set sync parses and refuses when malformed.
func isRemoteRef(ref string) bool {
	scheme, _, ok := strings.Cut(ref, "://")
	return ok && (strings.EqualFold(scheme, "http") || strings.EqualFold(scheme, "https") || strings.EqualFold(scheme, "oci"))
}

func (s *server) postSetCheck(sb setBackend, w http.ResponseWriter, r *http.Request) error {
	if err := s.readEmptyBody(w, r); err != nil {
		return err
	}
	res, err := sb.SetCheck(r.Context())
	if err != nil {
		return err
	}
	s.writeJSON(w, http.StatusOK, res)
	return nil
}

func (s *server) postSetFollow(sb setBackend, w http.ResponseWriter, r *http.Request) error {
	if err := s.readEmptyBody(w, r); err != nil {
		return err
	}
	res, err := sb.SetFollow(r.Context())
	if err != nil {
		return err
	}
	s.writeJSON(w, http.StatusOK, res)
	return nil
}

// Reload asks the daemon to read its config again (POST /v1/reload).
func (c *Client) Reload(ctx context.Context) (*api.ReloadResult, error) {
	var out api.ReloadResult
	if err := c.post(ctx, "/v1/reload", nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// SetFollow asks the daemon to resume following its source (POST
// /v1/set/follow) and waits for the check.
func (c *Client) SetFollow(ctx context.Context) (*api.SetSyncResult, error) {
	var out api.SetSyncResult
	if err := c.post(ctx, "/v1/set/follow", nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// SetApply asks the daemon to apply a set (POST /v1/set/apply) and waits
// for the result.
func (c *Client) SetApply(ctx context.Context, req api.SetApplyRequest) (*api.SetSyncResult, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	var out api.SetSyncResult
	if err := c.post(ctx, "/v1/set/apply", body, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// post sends a body (the server reads a lock's TOML or JSON by its first
// byte, whatever the content type) and decodes a successful answer into v.
func (c *Client) post(ctx context.Context, path string, body []byte, v any) error {
	resp, err := c.sendBody(ctx, http.MethodPost, path, body)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes))
	if err != nil {
		return fmt.Errorf("daemon %s: POST %s: read answer: %w", c.path, path, err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("daemon %s: POST %s: decode answer: %w", c.path, path, err)
	}
	return nil
}
