package daemon

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/internal/errkind"
	"github.com/mjolnir-forge/forgesync/pipeline"
	"github.com/mjolnir-forge/forgesync/sets/follow"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// stageBackend is what the status socket serves of staging and the
// launcher's join flow (SPEC §12): a [Backend] that implements it gets
// POST /v1/set/stage, GET /v1/set/check?fingerprint= and POST
// /v1/set/apply {"fingerprint"}; one that does not answers them 404.
type stageBackend interface {
	SetStage(ctx context.Context, req api.SetStageRequest) (*api.SetStageResult, error)
	SetApplyStaged(ctx context.Context, fingerprint string) (*api.SetSyncResult, error)
	SetFingerprint(fingerprint string) (api.SetFingerprintCheck, error)
}

// stages answers 404 when the backend stages no sets.
func (s *server) stages(h func(sb stageBackend, w http.ResponseWriter, r *http.Request) error) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		sb, ok := s.b.(stageBackend)
		if !ok {
			return errkind.New(errkind.NotFound, "this daemon stages no pack sets")
		}
		return h(sb, w, r)
	}
}

func (s *server) postSetStage(sb stageBackend, w http.ResponseWriter, r *http.Request) error {
	var req api.SetStageRequest
	if err := s.readBody(w, r, &req, `send {"url": "…", "as": "NAME", "key": "RW…"} or {"lock": "…", "signature": "…"}`); err != nil {
		return err
	}
	if err := s.checkLockPath(r, req.URL); err != nil {
		return err
	}
	if err := s.checkNamedKey(r, req.URL, req.Key); err != nil {
		return err
	}
	res, err := sb.SetStage(r.Context(), req)
	if err != nil {
		return err
	}
	s.writeJSON(w, http.StatusOK, res)
	return nil
}

// checkNamedKey refuses a stage of the lock at url that names a key of
// its own over the TCP API unless the request itself carries the API key:
// a key outside trusted_keys is the player's decision, which a caller
// holding only a session of the status page may not make for them, but
// for one: the page opened on a forgesync:// link (by the handler setup
// registered) may name that link's key for that link's set, once the
// player confirms on it (the session's CSRF and origin checks ran). Over
// the local socket the caller is the machine's user.
func (s *server) checkNamedKey(r *http.Request, url, key string) error {
	if strings.TrimSpace(key) == "" || s.opts.APIKey == "" {
		return nil
	}
	if l := sessionLink(r); l != nil && l.Key == key && l.URL == url {
		return nil
	}
	got := r.Header.Get("X-API-Key")
	if b, ok := bearerToken(r.Header.Get("Authorization")); ok {
		got = b
	}
	if subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), []byte(s.opts.APIKey)) != 1 {
		return &APIError{Status: http.StatusForbidden, Code: codeForbidden,
			Message: "a stage that names a key outside [sets] trusted_keys needs the API key on the request itself (Authorization: Bearer KEY or X-API-Key: KEY): ask the player, then send it with the key"}
	}
	return nil
}

// getSetCheck answers GET /v1/set/check?fingerprint=sha256:…: how a
// server's set stands on this machine.
func (s *server) getSetCheck(sb stageBackend, w http.ResponseWriter, r *http.Request) error {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return errkind.Errorf(errkind.Invalid, "set/check: the query %q: %v", r.URL.RawQuery, err)
	}
	fp := q.Get("fingerprint")
	if fp == "" || len(q) != 1 || len(q["fingerprint"]) != 1 {
		return errkind.Errorf(errkind.Invalid, "set/check: want one query parameter, fingerprint=sha256:… (the server's set), got %q", r.URL.RawQuery)
	}
	if err := checkFingerprint(fp); err != nil {
		return fmt.Errorf("set/check: %w", err)
	}
	c, err := sb.SetFingerprint(fp)
	if err != nil {
		return err
	}
	s.writeJSON(w, http.StatusOK, c)
	return nil
}

// SetStage asks the daemon to stage a set (POST /v1/set/stage) and waits
// for the result.
func (c *Client) SetStage(ctx context.Context, req api.SetStageRequest) (*api.SetStageResult, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	var out api.SetStageResult
	if err := c.post(ctx, "/v1/set/stage", body, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// wireStaged is a stage's result; nil stays nil.
func wireStaged(st *follow.Staged) *api.SetStageResult {
	if st == nil {
		return nil
	}
	out := &api.SetStageResult{Check: wireCheck(st.Check), Name: st.Name, Fingerprint: st.Check.Fingerprint, SignedBy: st.SignedBy,
		Downloaded: make([]api.Downloaded, len(st.Downloaded)), Bytes: st.Bytes, SetBytes: st.SetBytes}
	for i, d := range st.Downloaded {
		out.Downloaded[i] = api.Downloaded{Pack: d.Pack, URL: d.URL, Bytes: d.Bytes, Delta: wireDelta(d.Delta), Fallback: d.Fallback}
	}
	return out
}

// Staged publishes set-staged.
func (p publisher) Staged(st follow.Staged) {
	p.publish(api.SetStaged{Name: st.Name, Fingerprint: st.Check.Fingerprint, Bytes: st.Bytes})
}

// checkFingerprint refuses a fingerprint that is not "sha256:" and 64
// lowercase hex digits, saying so.
func checkFingerprint(fp string) error {
	hex, ok := strings.CutPrefix(fp, "sha256:")
	bad := !ok || len(hex) != 64 || strings.IndexFunc(hex, func(c rune) bool { return !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') }) >= 0
	if bad {
		return errkind.Errorf(errkind.Invalid, "fingerprint %q: want \"sha256:\" and 64 lowercase hex digits, as GET /v1/set and a lock's fingerprint say", fp)
	}
	return nil
}

// applyStaged answers POST /v1/set/apply {"fingerprint"}: the staged set
// applied through a profile switch, with no network.
func (s *server) applyStaged(w http.ResponseWriter, r *http.Request, req api.SetApplyRequest) error {
	if req.URL != "" || req.Lock != "" || req.Signature != "" || req.Prune {
		return errkind.Errorf(errkind.Invalid, "set/apply: fingerprint goes alone (it applies a staged set as it was staged); drop url, lock, signature and prune")
	}
	if err := checkFingerprint(req.Fingerprint); err != nil {
		return fmt.Errorf("set/apply: %w", err)
	}
	return s.stages(func(sb stageBackend, w http.ResponseWriter, r *http.Request) error {
		res, err := sb.SetApplyStaged(r.Context(), req.Fingerprint)
		if err != nil {
			return err
		}
		s.writeJSON(w, http.StatusOK, res)
		return nil
	})(w, r)
}

// SetStage answers POST /v1/set/stage.
func (b setsBackend) SetStage(ctx context.Context, req api.SetStageRequest) (*api.SetStageResult, error) {
	switch {
	case req.URL != "" && req.Lock != "":
		return nil, fmt.Errorf("give either url or lock, not both: %w", errkind.Invalid)
	case req.URL == "" && req.Lock == "":
		return nil, fmt.Errorf("give the url of a lock, or a lock (with its signature): %w", errkind.Invalid)
	}
	r := follow.StageRequest{Source: req.URL, Name: req.As, Key: req.Key}
	if req.Lock != "" {
		r.Lock = []byte(req.Lock)
		if req.Signature != "" {
			r.Signature = []byte(req.Signature)
		}
	}
	st, err := b.sets().Stage(ctx, r)
	return wireStaged(st), err
}

// SetApplyStaged answers POST /v1/set/apply {"fingerprint"}: a switch to
// the profile of that set, from kept archives only.
func (b setsBackend) SetApplyStaged(ctx context.Context, fingerprint string) (*api.SetSyncResult, error) {
	now := time.Now().UTC()
	sum, err := b.r.SwitchFingerprint(ctx, fingerprint)
	if err != nil {
		return nil, err
	}
	res := &api.SetSyncResult{Check: api.SetCheck{Time: now, Result: api.CheckEqual, Fingerprint: fingerprint}, Downloaded: []api.Downloaded{},
		Summary: wireSummary(sum)}
	if sw := sum.Switched; sw != nil {
		res.Check.Source = "profile " + sw.To
		if sw.Generation != 0 {
			res.Check.Result = api.CheckApplied
		}
	}
	return res, nil
}

// SetFingerprint answers GET /v1/set/check?fingerprint=: from the latest
// snapshot and the profiles in the state folder, never waiting for the
// writer.
func (b setsBackend) SetFingerprint(fingerprint string) (api.SetFingerprintCheck, error) {
	installed, _ := b.r.Installed()
	out := api.SetFingerprintCheck{Fingerprint: fingerprint, Machine: lock.MachineFingerprint(installed)}
	out.Current = out.Machine == fingerprint
	list, err := b.r.ReadProfiles()
	if err != nil {
		return out, err
	}
	var best *pipeline.ProfileInfo
	for i, p := range list.Profiles {
		if p.Fingerprint != fingerprint {
			continue
		}
		if best == nil || p.Current || !best.Current && p.LastUsed.After(best.LastUsed) {
			best = &list.Profiles[i]
		}
	}
	if best != nil {
		out.Profile, out.Staged = best.Name, len(best.Missing) == 0
	}
	return out, nil
}

var _ stageBackend = setsBackend{}
