package daemon

import (
	"context"
	"fmt"
	"net/http"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/internal/errkind"
)

// Backend is what the status socket serves. The pipeline's Runner
// implements it.
//
// Status, Packs and Rejections must be cheap snapshots that never wait for a
// running sync and share nothing with the writer. Enable, Disable, Remove
// and Sync go through the pipeline's single writer: each call blocks until
// its transaction is done or ctx ends, and returns the transaction's
// summary, which the socket sends as the response body. A mutation that
// fails carries its kind ([errkind.Of]), which chooses the answer's status
// and code (see [Answer]); an error of no kind is answered with 500.
type Backend interface {
	Status() api.Status
	Packs() []api.Pack
	Rejections() []api.Rejection
	Enable(ctx context.Context, id string) (*api.Summary, error)
	Disable(ctx context.Context, id string) (*api.Summary, error)
	Remove(ctx context.Context, id string) (*api.Summary, error)
	SyncDrop(ctx context.Context) (*api.Summary, error)
	// History is the kept generations (SPEC §11), a snapshot like Status.
	History() *api.History
	// Rollback returns to generation n (0: the one before the current
	// one) through the writer, like the other mutations.
	Rollback(ctx context.Context, n int) (*api.Summary, error)
}

// retrier is a [Backend] that can move rejected archives back into drop
// and process them (POST /v1/rejections/retry); a Backend without it
// answers that endpoint 404.
type retrier interface {
	Retry(ctx context.Context, req api.Retry) (*api.Summary, error)
}

// installer is a [Backend] that installs an archive a command copied into
// drop/.install/ (POST /v1/install); a Backend without it answers that
// endpoint 404.
type installer interface {
	InstallHanded(ctx context.Context, req api.Install) (*api.Summary, error)
}

// Error codes of the JSON error body {"error":{"code":…,"message":…}}.
const (
	codeNotFound         = "not_found"
	codeConflict         = "conflict"
	codeBusy             = "busy"
	codeInvalid          = "invalid_request"
	codeMethodNotAllowed = "method_not_allowed"
	codeTooLarge         = "request_too_large"
	codeTimeout          = "request_timeout"
	codeInternal         = "internal"
	codeUnauthorized     = "unauthorized"
	codeForbidden        = "forbidden"
)

// APIError is an error answered by the status socket: the server's handlers
// return it to choose a status and code, and [Client] returns it for every
// answer that is not a success.
type APIError struct {
	Status  int    // HTTP status
	Code    string // one of the Code constants
	Message string // what went wrong, in plain words
}

// Error is the daemon's message alone: it is a sentence for the person at
// the command line, who has no use for the method, path, code or status
// (the fields hold them). An answer without a message says its status.
func (e *APIError) Error() string {
	if e.Message != "" {
		return e.Message
	}
	return fmt.Sprintf("the daemon answered %d %s without saying why; its log may tell (forgesync service status)", e.Status, http.StatusText(e.Status))
}

// Kind is the kind of failure the answer stands for, read from its code
// by the table of [Answer]; a code that stands for no kind (a transport
// refusal such as method_not_allowed, or an answer that was not the
// daemon's JSON) is [errkind.Internal].
func (e *APIError) Kind() errkind.Kind {
	for _, a := range answers {
		if a.Code == e.Code {
			return a.Kind
		}
	}
	return errkind.Internal
}

// Unwrap gives the answer's kind, so that errors.Is(err, errkind.NotFound)
// and [errkind.Of] read a daemon's answer as they read the same failure
// decided locally.
func (e *APIError) Unwrap() error { return e.Kind() }

// KindAnswer is the status socket's answer to a failure of one kind.
type KindAnswer struct {
	Kind   errkind.Kind
	Status int    // HTTP status
	Code   string // one of the Code constants
}

// answers is the one table from a failure's kind to the status socket's
// answer, and back from an answer's code to the kind (the first row with
// the code): two kinds the wire does not tell apart share an answer, and
// the code reads back as the first (a refusal by a rule is answered as a
// conflict, a daemon stopping as busy), whose exit status is the same.
var answers = []KindAnswer{
	{errkind.NotFound, http.StatusNotFound, codeNotFound},
	{errkind.Conflict, http.StatusConflict, codeConflict},
	{errkind.Refused, http.StatusConflict, codeConflict},
	{errkind.Busy, http.StatusServiceUnavailable, codeBusy},
	{errkind.Unavailable, http.StatusServiceUnavailable, codeBusy},
	{errkind.Invalid, http.StatusBadRequest, codeInvalid},
	{errkind.Internal, http.StatusInternalServerError, codeInternal},
}

// Answer returns the status socket's answer to a failure of kind k.
func Answer(k errkind.Kind) KindAnswer {
	for _, a := range answers {
		if a.Kind == k {
			return a
		}
	}
	return answers[len(answers)-1] // Internal
}

// errorBody is the JSON shape of an error answer.
type errorBody struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}
