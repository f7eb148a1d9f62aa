package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/installer/intake"
	"github.com/mjolnir-forge/forgesync/internal/errkind"
	"github.com/mjolnir-forge/forgesync/internal/strictjson"
)

// Defaults of [ServerOptions].
const (
	defaultMaxBodyBytes      = 64 << 10
	defaultReadHeaderTimeout = 5 * time.Second
	defaultBodyTimeout       = 10 * time.Second
	defaultWriteTimeout      = 10 * time.Second
	defaultIdleTimeout       = 60 * time.Second
	defaultShutdownTimeout   = 5 * time.Second
	maxHeaderBytes           = 16 << 10
)

// ServerOptions configures [Serve]. Zero values take the defaults.
type ServerOptions struct {
	// Logger receives refused peers, failed requests and dropped event
	// subscribers; nothing is logged when it is nil.
	Logger *slog.Logger
	// MaxBodyBytes bounds a request body; beyond it the answer is 413.
	MaxBodyBytes int64
	// ReadHeaderTimeout bounds reading a request's header.
	ReadHeaderTimeout time.Duration
	// BodyTimeout bounds reading a request's body.
	BodyTimeout time.Duration
	// WriteTimeout bounds writing one answer, or one line of the event
	// stream, to a client that does not read.
	WriteTimeout time.Duration
	// IdleTimeout closes a kept-alive connection left idle this long.
	IdleTimeout time.Duration
	// ShutdownTimeout is how long a cancelled Serve lets requests in
	// flight finish before it closes their connections.
	ShutdownTimeout time.Duration
	// AllowUID reports whether a peer with this uid may talk to the
	// socket (Linux only, see [Serve]). By default: the daemon's own
	// effective uid and root.
	AllowUID func(uid uint32) bool
	// Now is the clock for uptime; time.Now by default.
	Now func() time.Time
	// APIKey, when set, makes this the TCP API (SPEC §8): every request
	// needs the key and a loopback Host. Set it for a TCP listener.
	APIKey string
	// Version is the daemon's version, and LogFile the file a service
	// logs to, both shown by GET /v1/status.
	Version, LogFile string
	// Commit and BuildDate are the daemon's commit and build date, for
	// GET /v1/status ("": unknown).
	Commit, BuildDate string
	// Priority is the install work's priority ([performance] priority),
	// for GET /v1/status.
	Priority string
	// Folders are the daemon's folders, absolute, for GET /v1/status;
	// Folders.Drop is also where POST /v1/install streams an uploaded
	// archive (drop/.install/), which is refused without it.
	Folders api.Folders
	// MaxArchiveBytes bounds an archive uploaded to POST /v1/install;
	// 0 takes [UploadLimit] of the default limits.
	MaxArchiveBytes int64
	// PriorityNow, when set, gives the priority after a reload.
	PriorityNow func() string
	// Reload, when set, serves POST /v1/reload: the config read again
	// and applied (see the daemon's reloader); else it answers 404.
	Reload func(ctx context.Context) (*api.ReloadResult, error)
	// Update, when set, gives GET /v1/update what the daemon's last look
	// at the release feed found ([update] check); without it the answer
	// says the daemon does not check.
	Update func() api.UpdateStatus
	// pages holds the status page's tokens and sessions (SPEC §14); the
	// socket and the TCP API of one daemon share it. A new one by default.
	pages *pageSessions
	// readsPathsOf reports whether the daemon reads a local lock path for
	// a socket peer with this uid (POST /v1/set/apply); by default its own
	// effective uid and root, like AllowUID. Tests change it.
	readsPathsOf func(uid uint32) bool
}

func (o ServerOptions) withDefaults() ServerOptions {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = defaultMaxBodyBytes
	}
	if o.ReadHeaderTimeout <= 0 {
		o.ReadHeaderTimeout = defaultReadHeaderTimeout
	}
	if o.BodyTimeout <= 0 {
		o.BodyTimeout = defaultBodyTimeout
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = defaultWriteTimeout
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = defaultIdleTimeout
	}
	if o.ShutdownTimeout <= 0 {
		o.ShutdownTimeout = defaultShutdownTimeout
	}
	if o.AllowUID == nil {
		o.AllowUID = defaultAllowUID
	}
	if o.readsPathsOf == nil {
		o.readsPathsOf = defaultAllowUID
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.pages == nil {
		o.pages = newPageSessions(o.Now)
	}
	if o.MaxArchiveBytes <= 0 {
		o.MaxArchiveBytes = archiveUploadLimit(intake.DefaultLimits())
	}
	return o
}

// Serve answers the status socket's requests (SPEC §8) on ln from b and ev
// until ctx is cancelled, then shuts down gracefully: event streams end at
// once, other requests get ShutdownTimeout to finish before their
// connections are closed. Cancellation is not an error: Serve then returns
// nil. It returns an error only when the listener fails. Serve closes ln.
//
// On Linux, when ln is a Unix listener, every connection's peer credentials
// are checked first (SO_PEERCRED): a peer whose uid AllowUID refuses is
// closed without an answer and logged.
func Serve(ctx context.Context, ln net.Listener, b Backend, ev *Events, opts ServerOptions) error {
	opts = opts.withDefaults()
	streams, stopStreams := context.WithCancel(context.WithoutCancel(ctx))
	defer stopStreams()
	base, cancelBase := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelBase()

	s := &server{b: b, ev: ev, opts: opts, log: opts.Logger, streams: streams, pid: os.Getpid()}
	handler := s.routes()
	if opts.APIKey != "" {
		handler = s.requireKey(opts.APIKey, handler)
	} else if _, tcp := ln.(*net.TCPListener); tcp {
		ln.Close()
		return errors.New("serve: a TCP listener needs an API key (ServerOptions.APIKey)")
	}
	hs := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: opts.ReadHeaderTimeout,
		IdleTimeout:       opts.IdleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(opts.Logger.Handler(), slog.LevelDebug),
		BaseContext:       func(net.Listener) context.Context { return base },
		// A handler may ask who is at the other end (see peerUID).
		ConnContext: func(ctx context.Context, c net.Conn) context.Context { return context.WithValue(ctx, connKey{}, c) },
	}
	hs.RegisterOnShutdown(stopStreams)

	served := make(chan error, 1)
	go func() { served <- hs.Serve(checkPeers(ln, opts.AllowUID, opts.Logger)) }()
	select {
	case err := <-served: // hs.Serve closed ln
		return fmt.Errorf("serve status socket %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}

	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), opts.ShutdownTimeout)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		opts.Logger.Warn("status socket shutdown timed out; closing connections", attrErr(err))
		cancelBase()
		hs.Close()
	}
	<-served // http.ErrServerClosed once Shutdown or Close ran
	return nil
}

// server holds what the handlers share.
type server struct {
	b       Backend
	ev      *Events
	opts    ServerOptions
	log     *slog.Logger
	streams context.Context // cancelled when shutdown starts: event streams end
	pid     int
}

// handlerFunc is a handler that returns its error; [server.handle] turns
// the error into a status and a JSON body.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

func (s *server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/v1/status", s.handle(map[string]handlerFunc{http.MethodGet: s.getStatus}))
	mux.Handle("/v1/packs", s.handle(map[string]handlerFunc{http.MethodGet: s.getPacks}))
	mux.Handle("/v1/packs/{id}", s.handle(map[string]handlerFunc{
		http.MethodGet: s.getPack,
		http.MethodDelete: s.mutate(func(ctx context.Context, r *http.Request) (*api.Summary, error) {
			return s.b.Remove(ctx, r.PathValue("id"))
		}),
	}))
	mux.Handle("/v1/packs/{id}/enable", s.handle(map[string]handlerFunc{
		http.MethodPost: s.mutate(func(ctx context.Context, r *http.Request) (*api.Summary, error) {
			return s.b.Enable(ctx, r.PathValue("id"))
		}),
	}))
	mux.Handle("/v1/packs/{id}/disable", s.handle(map[string]handlerFunc{
		http.MethodPost: s.mutate(func(ctx context.Context, r *http.Request) (*api.Summary, error) {
			return s.b.Disable(ctx, r.PathValue("id"))
		}),
	}))
	mux.Handle("/v1/rejections", s.handle(map[string]handlerFunc{http.MethodGet: s.getRejections}))
	mux.Handle("/v1/sync", s.handle(map[string]handlerFunc{
		http.MethodPost: s.mutate(func(ctx context.Context, _ *http.Request) (*api.Summary, error) { return s.b.SyncDrop(ctx) }),
	}))
	mux.Handle("/v1/events", s.handle(map[string]handlerFunc{http.MethodGet: s.getEvents}))
	mux.Handle("/v1/history", s.handle(map[string]handlerFunc{http.MethodGet: s.getHistory}))
	mux.Handle("/v1/rollback", s.handle(map[string]handlerFunc{http.MethodPost: s.postRollback}))
	// The body of an upload is bounded by the archive limit, a JSON
	// body by MaxBodyBytes (see postInstall).
	mux.Handle("/v1/install", s.handleLimit(map[string]handlerFunc{http.MethodPost: s.postInstall}, max(s.opts.MaxArchiveBytes, s.opts.MaxBodyBytes)))
	mux.Handle("/v1/rejections/retry", s.handle(map[string]handlerFunc{http.MethodPost: s.postRetry}))
	mux.Handle("/v1/openapi.json", s.handle(map[string]handlerFunc{http.MethodGet: s.getOpenAPI}))
	mux.Handle("/v1/reload", s.handle(map[string]handlerFunc{http.MethodPost: s.postReload}))
	mux.Handle("/v1/update", s.handle(map[string]handlerFunc{http.MethodGet: s.getUpdate}))
	s.setRoutes(mux)
	s.profileRoutes(mux)
	s.pageRoutes(mux)
	mux.Handle("/", s.handle(nil))
	return mux
}

// handle checks the method, bounds the body and maps the handler's error to
// an answer. A nil map answers 404 for every request.
func (s *server) handle(methods map[string]handlerFunc) http.Handler {
	return s.handleLimit(methods, s.opts.MaxBodyBytes)
}

// handleLimit is handle with a body bound of its own.
func (s *server) handleLimit(methods map[string]handlerFunc, maxBody int64) http.Handler {
	allow := make([]string, 0, len(methods)+1)
	for m := range methods {
		allow = append(allow, m)
		if m == http.MethodGet {
			allow = append(allow, http.MethodHead)
		}
	}
	slices.Sort(allow)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var err error
		method := r.Method
		if method == http.MethodHead {
			method = http.MethodGet
		}
		switch h, ok := methods[method]; {
		case methods == nil:
			err = errkind.Errorf(errkind.NotFound, "no endpoint %s; the status socket serves /v1/status, /v1/packs, /v1/packs/{id}, /v1/rejections, /v1/sync, /v1/events, /v1/history, /v1/rollback, /v1/install, /v1/rejections/retry, /v1/reload, /v1/set, /v1/set/diff, /v1/set/apply, /v1/set/check, /v1/set/follow, /v1/set/preview, /v1/set/stage, /v1/profiles, /v1/profile/switch, /v1/profile/save, /v1/profile/remove, /v1/update, /v1/page/token, /v1/page/session and /v1/openapi.json (which describes each)", r.URL.Path)
		case !ok:
			w.Header().Set("Allow", strings.Join(allow, ", "))
			err = &APIError{Status: http.StatusMethodNotAllowed, Code: codeMethodNotAllowed,
				Message: fmt.Sprintf("%s does not allow %s; use %s", r.URL.Path, r.Method, strings.Join(allow, " or "))}
		default:
			r.Body = http.MaxBytesReader(w, r.Body, maxBody)
			err = h(w, r)
		}
		if err != nil {
			s.writeError(w, r, err)
		}
	})
}

// apiError maps an error to the answer the client gets: an APIError as it
// is, a body too large or too slow as such, and any other error by its
// kind, through the one table of [Answer].
func (s *server) apiError(r *http.Request, err error) *APIError {
	var ae *APIError
	var tooLarge *http.MaxBytesError
	var timeout net.Error
	switch {
	case errors.As(err, &ae):
		return ae
	case errors.As(err, &tooLarge):
		return &APIError{Status: http.StatusRequestEntityTooLarge, Code: codeTooLarge,
			Message: fmt.Sprintf("request body is larger than %d bytes", tooLarge.Limit)}
	case errors.As(err, &timeout) && timeout.Timeout():
		return &APIError{Status: http.StatusRequestTimeout, Code: codeTimeout,
			Message: fmt.Sprintf("the request body did not arrive within %s", s.opts.BodyTimeout)}
	}
	k := errkind.Of(err)
	switch {
	case k != errkind.Internal:
	case r.Context().Err() != nil && s.streams.Err() != nil:
		err = errkind.New(errkind.Unavailable, "the daemon is shutting down; try again when it is back")
	case r.Context().Err() != nil:
		err = errkind.New(errkind.Busy, "the request was cancelled: the client went away")
	}
	a := Answer(errkind.Of(err))
	return &APIError{Status: a.Status, Code: a.Code, Message: err.Error()}
}

func (s *server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	ae := s.apiError(r, err)
	level := slog.LevelDebug
	if ae.Status >= 500 && r.Context().Err() == nil {
		level = slog.LevelWarn // a client that went away is not the daemon's trouble
	}
	s.log.Log(r.Context(), level, "status socket request failed",
		slog.String(keyMethod, r.Method), slog.String(keyPath, r.URL.Path),
		slog.Int(keyStatus, ae.Status), slog.String(keyCode, ae.Code), attrErr(err))
	var body errorBody
	body.Error.Code = ae.Code
	body.Error.Message = ae.Message
	s.writeJSON(w, ae.Status, body)
}

// writeJSON writes v as the answer, bounded by the write timeout.
func (s *server) writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"error":{"code":"internal","message":"encode answer: ` + strings.ReplaceAll(err.Error(), `"`, `'`) + `"}}`)
	}
	s.writeBody(w, status, append(b, '\n'))
}

func (s *server) writeBody(w http.ResponseWriter, status int, b []byte) {
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(s.opts.WriteTimeout)) // see readBody
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(b) // a client that went away is not our error
}

func (s *server) getStatus(w http.ResponseWriter, r *http.Request) error {
	st := s.b.Status()
	st.PID, st.Version, st.LogFile = s.pid, s.opts.Version, s.opts.LogFile
	st.Commit, st.BuildDate, st.Priority = s.opts.Commit, s.opts.BuildDate, s.opts.Priority
	st.Folders = s.opts.Folders
	if st.UptimeSeconds == 0 && !st.StartedAt.IsZero() {
		st.UptimeSeconds = s.opts.Now().Sub(st.StartedAt).Seconds()
	}
	if st.Warnings == nil {
		st.Warnings = []string{}
	}
	if st.Queue == nil {
		st.Queue = []string{}
	}
	s.writeJSON(w, http.StatusOK, st)
	return nil
}

// packsBody is the answer of GET /v1/packs.
type packsBody struct {
	Packs []api.Pack `json:"packs"`
}

// rejectionsBody is the answer of GET /v1/rejections.
type rejectionsBody struct {
	Rejections []api.Rejection `json:"rejections"`
}

func (s *server) getPacks(w http.ResponseWriter, r *http.Request) error {
	packs := s.b.Packs()
	if packs == nil {
		packs = []api.Pack{}
	}
	s.writeJSON(w, http.StatusOK, packsBody{Packs: packs})
	return nil
}

func (s *server) getPack(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	for _, p := range s.b.Packs() {
		if p.ID == id {
			s.writeJSON(w, http.StatusOK, p)
			return nil
		}
	}
	return errkind.Errorf(errkind.NotFound, "pack %q is not installed; forgesync packs lists the installed ones", id)
}

func (s *server) getRejections(w http.ResponseWriter, r *http.Request) error {
	rej := s.b.Rejections()
	if rej == nil {
		rej = []api.Rejection{}
	}
	s.writeJSON(w, http.StatusOK, rejectionsBody{Rejections: rej})
	return nil
}

// mutate returns a handler that reads the (empty) request body, runs do
// through the backend and answers with its result.
func (s *server) mutate(do func(ctx context.Context, r *http.Request) (*api.Summary, error)) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if err := s.readEmptyBody(w, r); err != nil {
			return err
		}
		res, err := do(r.Context(), r)
		if err != nil {
			return err
		}
		if res == nil {
			return fmt.Errorf("%s %s: the backend answered with no summary", r.Method, r.URL.Path)
		}
		s.writeJSON(w, http.StatusOK, res)
		return nil
	}
}

// readEmptyBody accepts no body or an empty JSON object, strictly: the
// mutations take no parameters yet, and a client that sends some expects
// them to mean something.
func (s *server) readEmptyBody(w http.ResponseWriter, r *http.Request) error {
	var v struct{}
	return s.readBody(w, r, &v, "send no body or {}")
}

// readBody decodes a JSON body into v strictly: unknown keys, duplicate
// keys (strictjson.DuplicateKey) and data after the object are refused (hint says
// what to send); no body leaves v as it is.
func (s *server) readBody(w http.ResponseWriter, r *http.Request, v any, hint string) error {
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(s.opts.BodyTimeout)) // net/http's own writer always takes a deadline (no ErrNotSupported)
	b, err := io.ReadAll(r.Body)
	// Clear the deadline: net/http keeps reading in the background to see
	// the client go, and a deadline there would end the request's context
	// while a long sync runs.
	_ = rc.SetReadDeadline(time.Time{})
	if err != nil {
		// Close after answering: net/http would otherwise try to read
		// the rest of the body before writing the answer.
		w.Header().Set("Connection", "close")
		return fmt.Errorf("read request body: %w", err)
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return errkind.Errorf(errkind.Invalid, "request body: %v; %s", err, hint)
	}
	if _, err := dec.Token(); err != io.EOF {
		return errkind.New(errkind.Invalid, "request body: data after the JSON object; "+hint)
	}
	// encoding/json keeps the last of two equal keys: which one the
	// client meant is unknown.
	if dup := strictjson.DuplicateKey(b); dup != "" {
		return errkind.New(errkind.Invalid, "request body: "+dup+"; "+hint)
	}
	return nil
}

// getOpenAPI answers GET /v1/openapi.json: the contract, as JSON.
func (s *server) getOpenAPI(w http.ResponseWriter, r *http.Request) error {
	s.writeBody(w, http.StatusOK, api.OpenAPIJSON)
	return nil
}

func (s *server) getHistory(w http.ResponseWriter, r *http.Request) error {
	s.writeJSON(w, http.StatusOK, s.b.History())
	return nil
}

// getUpdate answers GET /v1/update: whether a newer forgesync exists.
func (s *server) getUpdate(w http.ResponseWriter, r *http.Request) error {
	st := api.UpdateStatus{Current: s.opts.Version}
	if s.opts.Update != nil {
		st = s.opts.Update()
	}
	s.writeJSON(w, http.StatusOK, st)
	return nil
}

// postRollback answers POST /v1/rollback {"generation": N}.
func (s *server) postReload(w http.ResponseWriter, r *http.Request) error {
	if err := s.readEmptyBody(w, r); err != nil {
		return err
	}
	if s.opts.Reload == nil {
		return errkind.New(errkind.NotFound, "this daemon reloads no config")
	}
	res, err := s.opts.Reload(r.Context())
	if err != nil {
		return err
	}
	s.writeJSON(w, http.StatusOK, res)
	return nil
}

func (s *server) postRollback(w http.ResponseWriter, r *http.Request) error {
	const hint = `send {"generation": N} (0 or no body: the generation before the current one)`
	var body api.Rollback
	if err := s.readBody(w, r, &body, hint); err != nil {
		return err
	}
	if body.Generation < 0 {
		return errkind.Errorf(errkind.Invalid, "generation %d: %s", body.Generation, hint)
	}
	res, err := s.b.Rollback(r.Context(), body.Generation)
	if err != nil {
		return err
	}
	s.writeJSON(w, http.StatusOK, res)
	return nil
}

// postInstall answers POST /v1/install: {"archive": "FOLDER/NAME",
// "force": B} for a copy in drop/.install/, or the archive itself as the
// body (see postUpload), told apart by the Content-Type.
func (s *server) postInstall(w http.ResponseWriter, r *http.Request) error {
	const hint = `send {"archive": "FOLDER/NAME", "force": true|false} for a copy in drop/.install/FOLDER/NAME, or the archive as the body with ?name=FILE`
	in, ok := s.b.(installer)
	if !ok {
		return errkind.New(errkind.NotFound, "this daemon does not install archives on request")
	}
	if upload, err := uploadType(r.Header.Get("Content-Type")); err != nil {
		return err
	} else if upload {
		return s.postUpload(w, r, in)
	}
	r.Body = http.MaxBytesReader(w, r.Body, s.opts.MaxBodyBytes)
	if len(r.URL.Query()) > 0 {
		return errkind.New(errkind.Invalid, "query parameters are for an archive sent as the body; "+hint)
	}
	var body api.Install
	if err := s.readBody(w, r, &body, hint); err != nil {
		return err
	}
	if body.Archive == "" {
		return errkind.New(errkind.Invalid, "request body: no archive; "+hint)
	}
	res, err := in.InstallHanded(r.Context(), body)
	if err != nil {
		return err
	}
	s.writeJSON(w, http.StatusOK, res)
	return nil
}

// postRetry answers POST /v1/rejections/retry {"archives": [NAME…]} or
// {"all": true}.
func (s *server) postRetry(w http.ResponseWriter, r *http.Request) error {
	const hint = `send {"archives": ["NAME", …]} (names in drop/rejected/) or {"all": true}`
	rt, ok := s.b.(retrier)
	if !ok {
		return errkind.New(errkind.NotFound, "this daemon does not retry rejected archives")
	}
	var body api.Retry
	if err := s.readBody(w, r, &body, hint); err != nil {
		return err
	}
	if body.All == (len(body.Archives) > 0) {
		return errkind.New(errkind.Invalid, "request body: name the archives or say all, not both or neither; "+hint)
	}
	res, err := rt.Retry(r.Context(), body)
	if err != nil {
		return err
	}
	s.writeJSON(w, http.StatusOK, res)
	return nil
}

// getEvents streams events as NDJSON, one flushed line per event, until the
// client goes, the daemon shuts down, or the client falls too far behind.
func (s *server) getEvents(w http.ResponseWriter, r *http.Request) error {
	since := Live
	for k, v := range r.URL.Query() {
		if k != "since" {
			return errkind.Errorf(errkind.Invalid, "unknown query parameter %q; /v1/events takes since=ID", k)
		}
		n, err := strconv.ParseUint(v[0], 10, 64)
		if len(v) != 1 || err != nil {
			return errkind.Errorf(errkind.Invalid, "since=%q: want one event id, a decimal number (0 replays everything held)", strings.Join(v, ","))
		}
		since = n
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	defer context.AfterFunc(s.streams, cancel)()

	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "application/x-ndjson")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return nil
	}
	// Subscribe before the first flush: once the client has the status
	// line, every event published after it is in the stream.
	sub := s.ev.Subscribe(since)
	defer sub.Close()
	if err := rc.Flush(); err != nil {
		return nil // the client went away
	}
	enc := json.NewEncoder(w)
	for {
		ev, err := sub.Next(ctx)
		if errors.Is(err, errSubscriberDropped) {
			s.log.Warn("event subscriber fell behind; dropped it", slog.Uint64(keyLastID, sub.LastID()), slog.Uint64(keySince, since))
			data, _ := json.Marshal(api.Dropped{LastID: sub.LastID()}) // a struct of one integer always marshals
			s.writeEvent(rc, enc, api.Event{Type: api.EventDropped, Time: s.opts.Now().UTC(), Data: data})
			return nil
		}
		if err != nil {
			return nil // client gone, shutdown or bus closed: the stream just ends
		}
		if !s.writeEvent(rc, enc, ev) {
			return nil
		}
	}
}

// writeEvent writes one line of the event stream and flushes it; it reports
// whether the client took it.
func (s *server) writeEvent(rc *http.ResponseController, enc *json.Encoder, ev api.Event) bool {
	_ = rc.SetWriteDeadline(time.Now().Add(s.opts.WriteTimeout)) // see readBody
	if err := enc.Encode(ev); err != nil {
		return false
	}
	return rc.Flush() == nil
}
