package daemon

import (
	"context"
	"fmt"
	"net/http"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/rejection"
)

// Backend is what the status socket serves. The pipeline's Runner
// implements it.
//
// Status, Packs and Rejections must be cheap snapshots that never wait for a
// running sync and share nothing with the writer. Enable, Disable, Remove
// and Sync go through the pipeline's single writer: each call blocks until
// its transaction is done or ctx ends, and returns the transaction's
// summary, which the socket sends as the response body. A mutation that
// fails wraps one of [api.ErrNotFound], [api.ErrConflict], [api.ErrBusy] or
// [api.ErrInvalid] so the socket can answer with a fitting status; any
// other error is answered with 500.
type Backend interface {
	Status() api.Status
	Packs() []api.Pack
	Rejections() []rejection.Record
	Enable(ctx context.Context, id string) (*api.Summary, error)
	Disable(ctx context.Context, id string) (*api.Summary, error)
	Remove(ctx context.Context, id string) (*api.Summary, error)
	Sync(ctx context.Context) (*api.Summary, error)
	// History is the kept generations (SPEC §11), a snapshot like Status.
	History() *api.History
	// Rollback returns to generation n (0: the one before the current
	// one) through the writer, like the other mutations.
	Rollback(ctx context.Context, n int) (*api.Summary, error)
}

// Retrier is a [Backend] that can move rejected archives back into drop
// and process them (POST /v1/rejections/retry); a Backend without it
// answers that endpoint 404.
type Retrier interface {
	Retry(ctx context.Context, archives []string, all bool) (*api.Summary, error)
}

// Installer is a [Backend] that installs an archive a command copied into
// drop/.install/ (POST /v1/install); a Backend without it answers that
// endpoint 404.
type Installer interface {
	InstallHanded(ctx context.Context, archive string, force bool) (*api.Summary, error)
}

// Error codes of the JSON error body {"error":{"code":…,"message":…}}.
const (
	CodeNotFound         = "not_found"
	CodeConflict         = "conflict"
	CodeBusy             = "busy"
	CodeInvalid          = "invalid_request"
	CodeMethodNotAllowed = "method_not_allowed"
	CodeTooLarge         = "request_too_large"
	CodeTimeout          = "request_timeout"
	CodeInternal         = "internal"
	CodeUnauthorized     = "unauthorized"
	CodeForbidden        = "forbidden"
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

// Is reports whether the error's code is the one target stands for, so
// errors.Is(err, api.ErrNotFound) works on what a [Client] returns.
func (e *APIError) Is(target error) bool {
	switch target {
	case api.ErrNotFound:
		return e.Code == CodeNotFound
	case api.ErrConflict:
		return e.Code == CodeConflict
	case api.ErrBusy:
		return e.Code == CodeBusy
	case api.ErrInvalid:
		return e.Code == CodeInvalid
	}
	return false
}

// errorBody is the JSON shape of an error answer.
type errorBody struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}
