package daemon

import (
	"context"
	"net/http"
	"net/url"

	"github.com/mjolnir-forge/forgesync/api"
)

// The reads below serve only the tests: the CLI and the launchers reach
// these endpoints through their own clients.

// Pack returns GET /v1/packs/{id}; an id that is not installed gives an
// error matching [errkind.NotFound].
func (c *Client) Pack(ctx context.Context, id string) (api.Pack, error) {
	var p api.Pack
	err := c.do(ctx, http.MethodGet, "/v1/packs/"+url.PathEscape(id), &p)
	return p, err
}

// History returns GET /v1/history.
func (c *Client) History(ctx context.Context) (*api.History, error) {
	var h api.History
	if err := c.do(ctx, http.MethodGet, "/v1/history", &h); err != nil {
		return nil, err
	}
	return &h, nil
}

// Update returns GET /v1/update.
func (c *Client) Update(ctx context.Context) (api.UpdateStatus, error) {
	var u api.UpdateStatus
	err := c.do(ctx, http.MethodGet, "/v1/update", &u)
	return u, err
}

// LastID returns the id of the latest event, 0 before the first.
func (e *Events) LastID() uint64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.lastID
}

// ListenAndServe opens the status socket at path with [Listen] and serves
// it with [Serve] until ctx is cancelled (then it returns nil).
func ListenAndServe(ctx context.Context, path string, b Backend, ev *Events, opts ServerOptions) error {
	ln, err := Listen(path)
	if err != nil {
		return err
	}
	return Serve(ctx, ln, b, ev, opts)
}
