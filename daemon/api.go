package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/mjolnir-forge/forgesync/rejection"
)

// Backend is what the status socket serves. The pipeline implements it.
//
// Status, Packs and Rejections must be cheap snapshots that never wait for a
// running sync. Enable, Disable, Remove and Sync go through the pipeline's
// single writer: each call blocks until its transaction is done or ctx ends,
// and returns an opaque JSON result that the socket passes to the client as
// the response body. A mutation that fails wraps one of [ErrNotFound],
// [ErrConflict], [ErrBusy] or [ErrInvalid] so the socket can answer with a
// fitting status; any other error is answered with 500.
type Backend interface {
	Status() Status
	Packs() []Pack
	Rejections() []Rejection
	Enable(ctx context.Context, id string) (json.RawMessage, error)
	Disable(ctx context.Context, id string) (json.RawMessage, error)
	Remove(ctx context.Context, id string) (json.RawMessage, error)
	Sync(ctx context.Context) (json.RawMessage, error)
}

// Daemon states reported in [Status.State].
const (
	StateIdle    = "idle"
	StateSyncing = "syncing"
	StateError   = "error"
)

// Status is the answer of GET /v1/status.
type Status struct {
	// State is StateIdle, StateSyncing or StateError.
	State string `json:"state"`
	// Version is the daemon's version.
	Version string `json:"version"`
	// PID is the daemon's process id. The server fills it in.
	PID int `json:"pid"`
	// StartedAt is when the daemon started; UptimeSeconds is filled in by
	// the server from it when the backend leaves it zero.
	StartedAt     time.Time `json:"started_at"`
	UptimeSeconds float64   `json:"uptime_s"`
	// LastSync is the last finished sync, nil before the first.
	LastSync *LastSync `json:"last_sync,omitempty"`
	// Counts are the sizes of the installed set.
	Counts Counts `json:"counts"`
	// Modules holds the mod versions and gates (SPEC §7), as the pipeline
	// renders them.
	Modules json.RawMessage `json:"modules,omitempty"`
	// Warnings are things a user should act on, in plain words.
	Warnings []string `json:"warnings"`
	// LogFile is the file a service logs to, rotated by size; empty when
	// the daemon logs to a terminal.
	LogFile string `json:"log_file,omitempty"`
	// Queue lists the archive names waiting in drop or being processed.
	Queue []string `json:"queue"`
}

// LastSync describes the last finished sync.
type LastSync struct {
	Time time.Time `json:"time"`
	// Result is a short word ("ok", "rejected", "failed") chosen by the
	// pipeline.
	Result          string  `json:"result"`
	DurationSeconds float64 `json:"duration_s"`
	// Error is the failure in plain words, when Result says it failed.
	Error string `json:"error,omitempty"`
}

// Counts are the sizes of the installed set.
type Counts struct {
	Packs    int `json:"packs"`
	Enabled  int `json:"enabled"`
	Pieces   int `json:"pieces"`
	Lifts    int `json:"lifts"`
	Doors    int `json:"doors"`
	Rejected int `json:"rejected"`
}

// Pack is one installed pack as GET /v1/packs and GET /v1/packs/{id} show it.
type Pack struct {
	ID            string   `json:"id"`
	Version       string   `json:"version"`
	Name          string   `json:"name"`
	Authors       []string `json:"authors,omitempty"`
	Description   string   `json:"description,omitempty"`
	Enabled       bool     `json:"enabled"`
	ArchiveSHA256 string   `json:"archive_sha256"`
	// Pieces are the pack's normalized pieces (SPEC §6, installed.json), as
	// the inventory renders them.
	Pieces json.RawMessage `json:"pieces"`
}

// Rejection is one rejected archive, as GET /v1/rejections shows it, with
// its reasons as the pipeline recorded them.
type Rejection = rejection.Record

// Errors a [Backend] wraps so the socket answers with a fitting status, and
// that [APIError] matches with errors.Is on the client side.
var (
	// ErrNotFound is returned when the named pack is not installed (404).
	ErrNotFound = errors.New("daemon: not found")
	// ErrConflict is returned when a mutation is refused by the install
	// rules, e.g. an enable that would pass the door limit (409).
	ErrConflict = errors.New("daemon: conflict")
	// ErrBusy is returned when the writer cannot take the request now, e.g.
	// while the daemon shuts down (503).
	ErrBusy = errors.New("daemon: busy")
	// ErrInvalid is returned for a request that can never succeed as sent,
	// e.g. a malformed pack id (400).
	ErrInvalid = errors.New("daemon: invalid request")
)

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

func (e *APIError) Error() string {
	return fmt.Sprintf("daemon: %s (%d %s): %s", e.Code, e.Status, http.StatusText(e.Status), e.Message)
}

// Is reports whether the error's code is the one target stands for, so
// errors.Is(err, ErrNotFound) works on what a [Client] returns.
func (e *APIError) Is(target error) bool {
	switch target {
	case ErrNotFound:
		return e.Code == CodeNotFound
	case ErrConflict:
		return e.Code == CodeConflict
	case ErrBusy:
		return e.Code == CodeBusy
	case ErrInvalid:
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
