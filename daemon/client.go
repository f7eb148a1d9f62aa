package daemon

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/mjolnir-forge/forgesync/api"
)

// maxAnswerBytes bounds an answer the client reads (one event line, or a
// whole JSON answer): a daemon that sends more is broken.
const maxAnswerBytes = 64 << 20

// Client talks to a running daemon over its status socket. Its methods are
// safe for concurrent use. It decodes answers leniently (unknown fields are
// ignored), unlike the server, because a CLI may meet a newer daemon after
// an upgrade and should still show what it knows.
type Client struct {
	path string
	base string // the URL before the path: http://forgesync for the socket
	key  string // the TCP API's key; empty on the socket
	hc   *http.Client
}

// NewClient returns a client for the socket at path. It does not connect
// until a method is called.
func NewClient(path string) *Client {
	d := net.Dialer{Timeout: probeTimeout}
	tr := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return d.DialContext(ctx, "unix", path)
		},
		DisableCompression:    true,
		MaxIdleConns:          4,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       30 * time.Second,
		ResponseHeaderTimeout: 0, // a sync answers when it is done; the caller's ctx bounds it
	}
	return &Client{path: path, base: "http://forgesync", hc: &http.Client{Transport: tr}}
}

// Close releases the client's idle connections.
func (c *Client) Close() { c.hc.CloseIdleConnections() }

// probe reports whether a daemon listens on the socket at path: whether a
// connection to it is accepted within a short timeout or ctx. A daemon that
// then refuses this user (the Linux peer check) still counts as running, so
// the CLI tells the user instead of working on the state behind its back.
func probe(ctx context.Context, path string) bool {
	d := net.Dialer{Timeout: probeTimeout}
	conn, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		// Refused by the folder's ACL or the socket's mode: a daemon is
		// there, and the client's calls say who may talk to it.
		return refused(path, err) != err
	}
	conn.Close()
	return true
}

// Status returns GET /v1/status.
func (c *Client) Status(ctx context.Context) (api.Status, error) {
	var st api.Status
	err := c.do(ctx, http.MethodGet, "/v1/status", &st)
	return st, err
}

// Packs returns GET /v1/packs.
func (c *Client) Packs(ctx context.Context) ([]api.Pack, error) {
	var body packsBody
	err := c.do(ctx, http.MethodGet, "/v1/packs", &body)
	return body.Packs, err
}

// Rejections returns GET /v1/rejections.
func (c *Client) Rejections(ctx context.Context) ([]api.Rejection, error) {
	var body rejectionsBody
	err := c.do(ctx, http.MethodGet, "/v1/rejections", &body)
	return body.Rejections, err
}

// Enable asks the daemon to enable pack id and waits for the result.
func (c *Client) Enable(ctx context.Context, id string) (*api.Summary, error) {
	return c.mutate(ctx, http.MethodPost, "/v1/packs/"+url.PathEscape(id)+"/enable")
}

// Disable asks the daemon to disable pack id and waits for the result.
func (c *Client) Disable(ctx context.Context, id string) (*api.Summary, error) {
	return c.mutate(ctx, http.MethodPost, "/v1/packs/"+url.PathEscape(id)+"/disable")
}

// Remove asks the daemon to uninstall pack id and waits for the result.
func (c *Client) Remove(ctx context.Context, id string) (*api.Summary, error) {
	return c.mutate(ctx, http.MethodDelete, "/v1/packs/"+url.PathEscape(id))
}

// SyncDrop asks the daemon to rescan drop now and waits for the result.
func (c *Client) SyncDrop(ctx context.Context) (*api.Summary, error) {
	return c.mutate(ctx, http.MethodPost, "/v1/sync")
}

// Rollback asks the daemon to return to generation n (0: the one before
// the current one) and waits for the result.
func (c *Client) Rollback(ctx context.Context, n int) (*api.Summary, error) {
	body, _ := json.Marshal(api.Rollback{Generation: n})
	resp, err := c.sendBody(ctx, http.MethodPost, "/v1/rollback", body)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var res api.Summary
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxAnswerBytes)).Decode(&res); err != nil {
		return nil, fmt.Errorf("daemon %s: POST /v1/rollback: decode answer: %w", c.path, err)
	}
	return &res, nil
}

// Install asks the daemon to install the archive a command copied to
// drop/.install/FOLDER/NAME, named "FOLDER/NAME" in req, and waits for the
// result.
func (c *Client) Install(ctx context.Context, req api.Install) (*api.Summary, error) {
	body, _ := json.Marshal(req)
	resp, err := c.sendBody(ctx, http.MethodPost, "/v1/install", body)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var res api.Summary
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxAnswerBytes)).Decode(&res); err != nil {
		return nil, fmt.Errorf("daemon %s: POST /v1/install: decode answer: %w", c.path, err)
	}
	return &res, nil
}

// Retry asks the daemon to move the rejected archives req names (all of
// them with req.All) back into drop and process them, and waits for the
// result; a name not in drop/rejected/ gives an error matching
// [errkind.NotFound].
func (c *Client) Retry(ctx context.Context, req api.Retry) (*api.Summary, error) {
	body, _ := json.Marshal(req)
	resp, err := c.sendBody(ctx, http.MethodPost, "/v1/rejections/retry", body)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var res api.Summary
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxAnswerBytes)).Decode(&res); err != nil {
		return nil, fmt.Errorf("daemon %s: POST /v1/rejections/retry: decode answer: %w", c.path, err)
	}
	return &res, nil
}

func (c *Client) mutate(ctx context.Context, method, path string) (*api.Summary, error) {
	var res api.Summary
	if err := c.do(ctx, method, path, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// Events follows GET /v1/events and calls fn with each event, in order,
// until ctx ends (then it returns ctx's error), fn returns an error (which
// it returns), or the daemon ends the stream. since is the last id the
// caller saw: 0 replays everything the daemon holds, [Live] nothing. A gap
// shows as an event whose id is greater than the previous one plus one (or
// than since plus one, first). When the daemon dropped this client for
// falling behind, fn gets the [api.EventDropped] marker and Events returns
// [errSubscriberDropped]; call again with since set to the last id seen.
func (c *Client) Events(ctx context.Context, since uint64, fn func(api.Event) error) error {
	path := "/v1/events"
	if since != Live {
		path += "?since=" + strconv.FormatUint(since, 10)
	}
	resp, err := c.send(ctx, http.MethodGet, path)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64<<10), maxAnswerBytes)
	for sc.Scan() {
		var ev api.Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			return fmt.Errorf("daemon %s: read event stream: %w", c.path, err)
		}
		if err := fn(ev); err != nil {
			return err
		}
		if ev.Type == api.EventDropped {
			return errSubscriberDropped
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("daemon %s: read event stream: %w", c.path, err)
	}
	return nil
}

// do sends a request without a body and decodes a successful answer into v.
func (c *Client) do(ctx context.Context, method, path string, v any) error {
	resp, err := c.send(ctx, method, path)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes))
	if err != nil {
		return fmt.Errorf("daemon %s: %s %s: read answer: %w", c.path, method, path, err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("daemon %s: %s %s: decode answer: %w", c.path, method, path, err)
	}
	return nil
}

// send sends a request and returns the answer when it is a success, or an
// [*APIError] made from the error body, whose text is the daemon's message
// alone.
func (c *Client) send(ctx context.Context, method, path string) (*http.Response, error) {
	return c.sendBody(ctx, method, path, nil)
}

// sendBody is send with a JSON request body (none when nil).
func (c *Client) sendBody(ctx context.Context, method, path string, reqBody []byte) (*http.Response, error) {
	var rd io.Reader
	if reqBody != nil {
		rd = bytes.NewReader(reqBody)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if reqBody != nil && err == nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if err != nil {
		return nil, fmt.Errorf("daemon %s: %s %s: %w", c.path, method, path, err)
	}
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("daemon %s: %s %s: %w", c.path, method, path, ctx.Err())
		}
		if r := refused(c.path, err); r != err {
			return nil, fmt.Errorf("daemon %s: %s %s: %w", c.path, method, path, r)
		}
		return nil, fmt.Errorf("daemon %s: %s %s: %w (is the daemon running? forgesync service status)", c.path, method, path, err)
	}
	if resp.StatusCode/100 == 2 {
		return resp, nil
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes))
	ae := &APIError{Status: resp.StatusCode, Code: codeInternal, Message: string(bytes.TrimSpace(b))}
	var eb errorBody
	if json.Unmarshal(b, &eb) == nil && eb.Error.Code != "" {
		ae.Code, ae.Message = eb.Error.Code, eb.Error.Message
	}
	return nil, ae // the daemon's message says what, why and what to do
}
