package daemon

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/internal/errkind"
)

func TestStatusPacksRejections(t *testing.T) {
	b := newFakeBackend()
	s := startServer(t, b, nil, ServerOptions{Version: "1.2.3", Priority: "background", Now: func() time.Time { return fixedTime.Add(90 * time.Second) }})
	ctx := waitCtx(t)

	st, err := s.client.Status(ctx)
	if err != nil {
		t.Fatalf("Status() = %v", err)
	}
	want := b.status
	want.PID, want.UptimeSeconds, want.Warnings, want.Queue, want.Version = os.Getpid(), 90, []string{}, []string{}, "1.2.3"
	want.Priority = "background"
	if !reflect.DeepEqual(st, want) {
		t.Errorf("Status() = %+v; want %+v", st, want)
	}

	packs, err := s.client.Packs(ctx)
	if err != nil || !reflect.DeepEqual(packs, b.packs) {
		t.Errorf("Packs() = %+v, %v; want %+v", packs, err, b.packs)
	}
	p, err := s.client.Pack(ctx, "gates")
	if err != nil || !reflect.DeepEqual(p, b.packs[1]) {
		t.Errorf("Pack(gates) = %+v, %v; want %+v", p, err, b.packs[1])
	}
	_, err = s.client.Pack(ctx, "missing-pack")
	var ae *APIError
	if !errors.As(err, &ae) || ae.Status != http.StatusNotFound || ae.Code != codeNotFound || !errors.Is(err, errkind.NotFound) {
		t.Errorf("Pack(missing-pack) = %v; want a 404 not_found APIError", err)
	}
	rej, err := s.client.Rejections(ctx)
	if err != nil || !reflect.DeepEqual(rej, b.rejections) {
		t.Errorf("Rejections() = %+v, %v; want %+v", rej, err, b.rejections)
	}
}

func TestEmptyListsAreArrays(t *testing.T) {
	b := newFakeBackend()
	b.packs, b.rejections = nil, nil
	s := startServer(t, b, nil, ServerOptions{})
	for path, want := range map[string]string{
		"/v1/packs":      `{"packs":[]}`,
		"/v1/rejections": `{"rejections":[]}`,
	} {
		status, body := rawRequest(t, s, http.MethodGet, path, "")
		if status != http.StatusOK || strings.TrimSpace(body) != want {
			t.Errorf("GET %s = %d %s; want 200 %s", path, status, body, want)
		}
	}
	_, body := rawRequest(t, s, http.MethodGet, "/v1/status", "")
	for _, key := range []string{`"warnings":[]`, `"queue":[]`, fmt.Sprintf(`"pid":%d`, os.Getpid())} {
		if !strings.Contains(body, key) {
			t.Errorf("GET /v1/status = %s; want it to hold %s", body, key)
		}
	}
}

func TestMutations(t *testing.T) {
	b := newFakeBackend()
	s := startServer(t, b, nil, ServerOptions{})
	ctx := waitCtx(t)
	tests := []struct {
		name string
		do   func() (*api.Summary, error)
		want string
	}{
		{"enable", func() (*api.Summary, error) { return s.client.Enable(ctx, "gates") }, "enable gates"},
		{"disable", func() (*api.Summary, error) { return s.client.Disable(ctx, "foundry-wide") }, "disable foundry-wide"},
		{"remove", func() (*api.Summary, error) { return s.client.Remove(ctx, "gates") }, "remove gates"},
		{"sync", func() (*api.Summary, error) { return s.client.SyncDrop(ctx) }, "sync"},
		{"escaped id", func() (*api.Summary, error) { return s.client.Enable(ctx, "a/b c") }, "enable a/b c"},
	}
	for _, tc := range tests {
		got, err := tc.do()
		if err != nil || len(got.Warnings) != 1 || got.Warnings[0] != tc.want {
			t.Errorf("%s = %+v, %v; want the summary of %q", tc.name, got, err, tc.want)
		}
	}
	wantCalls := []string{"enable gates", "disable foundry-wide", "remove gates", "sync", "enable a/b c"}
	if got := b.callLog(); !reflect.DeepEqual(got, wantCalls) {
		t.Errorf("backend calls = %q; want %q", got, wantCalls)
	}
}

func TestHistoryAndRollback(t *testing.T) {
	b := newFakeBackend()
	s := startServer(t, b, nil, ServerOptions{})
	ctx := waitCtx(t)
	h, err := s.client.History(ctx)
	if err != nil || !reflect.DeepEqual(h, b.History()) {
		t.Errorf("History() = %+v, %v; want %+v", h, err, b.History())
	}
	if got, err := s.client.Rollback(ctx, 3); err != nil || got.Warnings[0] != "rollback 3" {
		t.Errorf("Rollback(3) = %+v, %v; want the summary of rollback 3", got, err)
	}
	tests := []struct{ body, wantCall string }{
		{"", "rollback 0"},
		{`{}`, "rollback 0"},
		{`{"generation": 7}`, "rollback 7"},
	}
	for _, tc := range tests {
		status, body := rawRequest(t, s, http.MethodPost, "/v1/rollback", tc.body)
		calls := b.callLog()
		if status != http.StatusOK || calls[len(calls)-1] != tc.wantCall {
			t.Errorf("POST /v1/rollback %q = %d %s (calls %q); want 200 and %q", tc.body, status, body, calls, tc.wantCall)
		}
	}
	for _, bad := range []string{`{"generation": -1}`, `{"gen": 2}`, `{"generation": 2} {}`, `[2]`} {
		if status, body := rawRequest(t, s, http.MethodPost, "/v1/rollback", bad); status != http.StatusBadRequest || !strings.Contains(body, codeInvalid) {
			t.Errorf("POST /v1/rollback %q = %d %s; want 400 %s", bad, status, body, codeInvalid)
		}
	}
	if status, _ := rawRequest(t, s, http.MethodGet, "/v1/rollback", ""); status != http.StatusMethodNotAllowed {
		t.Errorf("GET /v1/rollback = %d; want 405", status)
	}
}

func TestMutationWithoutSummary(t *testing.T) {
	b := newFakeBackend()
	s := startServer(t, b, nil, ServerOptions{})
	b.mu.Lock()
	b.nilResult = true
	b.mu.Unlock()
	var ae *APIError
	if _, err := s.client.SyncDrop(waitCtx(t)); !errors.As(err, &ae) || ae.Status != http.StatusInternalServerError {
		t.Errorf("Sync() with no summary from the backend = %v; want 500", err)
	}
}

func TestMutationErrors(t *testing.T) {
	tests := []struct {
		name       string
		err        error
		wantStatus int
		wantCode   string
	}{
		{"not found", errkind.NotFound, http.StatusNotFound, codeNotFound},
		{"conflict", fmt.Errorf("door limit: 300 doors > 256: %w", errkind.Conflict), http.StatusConflict, codeConflict},
		{"busy", errkind.Busy, http.StatusServiceUnavailable, codeBusy},
		{"invalid", errkind.Invalid, http.StatusBadRequest, codeInvalid},
		{"other", errors.New("disk on fire"), http.StatusInternalServerError, codeInternal},
		{"typed", &APIError{Status: http.StatusTeapot, Code: "teapot", Message: "short and stout"}, http.StatusTeapot, "teapot"},
	}
	b := newFakeBackend()
	s := startServer(t, b, nil, ServerOptions{})
	for _, tc := range tests {
		b.setErr(tc.err)
		_, err := s.client.Enable(waitCtx(t), "foundry-wide")
		var ae *APIError
		if !errors.As(err, &ae) || ae.Status != tc.wantStatus || ae.Code != tc.wantCode {
			t.Errorf("%s: Enable = %v; want status %d code %s", tc.name, err, tc.wantStatus, tc.wantCode)
			continue
		}
		if tc.name != "typed" && !strings.Contains(ae.Message, "enable foundry-wide") {
			t.Errorf("%s: message %q does not say what failed", tc.name, ae.Message)
		}
		for _, sentinel := range []error{errkind.NotFound, errkind.Conflict, errkind.Busy, errkind.Invalid} {
			if got, want := errors.Is(err, sentinel), errors.Is(tc.err, sentinel); got != want {
				t.Errorf("%s: errors.Is(%v, %v) = %v; want %v", tc.name, err, sentinel, got, want)
			}
		}
	}
}

// rawRequest sends one request with the client's transport and returns the
// status and body.
func rawRequest(t *testing.T, s *testServer, method, target, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(waitCtx(t), method, "http://forgesync"+target, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := s.client.hc.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, target, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read body: %v", method, target, err)
	}
	return resp.StatusCode, string(b)
}

func TestRequestErrors(t *testing.T) {
	tests := []struct {
		name       string
		method     string
		target     string
		body       string
		wantStatus int
		wantCode   string
	}{
		{"unknown path", "GET", "/nope", "", 404, codeNotFound},
		{"unknown version", "GET", "/v2/status", "", 404, codeNotFound},
		{"packs trailing slash", "GET", "/v1/packs/", "", 404, codeNotFound},
		{"pack sub-path", "GET", "/v1/packs/gates/pieces", "", 404, codeNotFound},
		{"post status", "POST", "/v1/status", "", 405, codeMethodNotAllowed},
		{"get sync", "GET", "/v1/sync", "", 405, codeMethodNotAllowed},
		{"put pack", "PUT", "/v1/packs/gates", "", 405, codeMethodNotAllowed},
		{"get enable", "GET", "/v1/packs/gates/enable", "", 405, codeMethodNotAllowed},
		{"delete events", "DELETE", "/v1/events", "", 405, codeMethodNotAllowed},
		{"unknown body key", "POST", "/v1/sync", `{"force":true}`, 400, codeInvalid},
		{"body not an object", "POST", "/v1/sync", `[]`, 400, codeInvalid},
		{"truncated body", "POST", "/v1/packs/gates/enable", `{`, 400, codeInvalid},
		{"trailing data", "POST", "/v1/packs/gates/disable", `{} {}`, 400, codeInvalid},
		{"oversized body", "POST", "/v1/sync", `{"x":"` + strings.Repeat("x", 70<<10) + `"}`, 413, codeTooLarge},
		{"oversized delete", "DELETE", "/v1/packs/gates", strings.Repeat(" ", 65<<10), 413, codeTooLarge},
		{"since not a number", "GET", "/v1/events?since=abc", "", 400, codeInvalid},
		{"since negative", "GET", "/v1/events?since=-1", "", 400, codeInvalid},
		{"since empty", "GET", "/v1/events?since=", "", 400, codeInvalid},
		{"since twice", "GET", "/v1/events?since=1&since=2", "", 400, codeInvalid},
		{"since too big", "GET", "/v1/events?since=18446744073709551616", "", 400, codeInvalid},
		{"unknown query", "GET", "/v1/events?from=1", "", 400, codeInvalid},
		{"empty object body", "POST", "/v1/sync", `{}`, 200, ""},
		{"whitespace body", "POST", "/v1/sync", " \n", 200, ""},
	}
	s := startServer(t, newFakeBackend(), nil, ServerOptions{})
	for _, tc := range tests {
		status, body := rawRequest(t, s, tc.method, tc.target, tc.body)
		if status != tc.wantStatus {
			t.Errorf("%s: %s %s = %d %s; want %d", tc.name, tc.method, tc.target, status, body, tc.wantStatus)
			continue
		}
		if tc.wantCode != "" {
			var eb errorBody
			dec := json.NewDecoder(strings.NewReader(body))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&eb); err != nil || eb.Error.Code != tc.wantCode || eb.Error.Message == "" {
				t.Errorf("%s: body %q (%v); want {\"error\":{\"code\":%q,\"message\":…}}", tc.name, body, err, tc.wantCode)
			}
		}
		// The daemon keeps serving after every bad request.
		if _, err := s.client.Status(waitCtx(t)); err != nil {
			t.Fatalf("%s: Status() after it = %v", tc.name, err)
		}
	}
}

func TestMethodNotAllowedSaysAllow(t *testing.T) {
	s := startServer(t, newFakeBackend(), nil, ServerOptions{})
	req, _ := http.NewRequestWithContext(waitCtx(t), http.MethodPatch, "http://forgesync/v1/packs/gates", nil)
	resp, err := s.client.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := resp.Header.Get("Allow"); got != "DELETE, GET, HEAD" {
		t.Errorf("Allow = %q; want %q", got, "DELETE, GET, HEAD")
	}
	if got := resp.Header.Get("Content-Type"); got != "application/json" {
		t.Errorf("Content-Type = %q; want application/json", got)
	}
}

// TestMalformedHTTP sends bytes that are not a valid request, and a header
// beyond the limit, on raw connections; the daemon answers 4xx and keeps
// serving.
func TestMalformedHTTP(t *testing.T) {
	s := startServer(t, newFakeBackend(), nil, ServerOptions{})
	tests := []struct {
		name string
		raw  string
	}{
		{"garbage", "THIS IS NOT HTTP\r\n\r\n"},
		{"bad header line", "GET /v1/status HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n"},
		{"no host", "GET /v1/status HTTP/1.1\r\n\r\n"},
		{"header too large", "GET /v1/status HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 64<<10) + "\r\n\r\n"},
		{"bad content length", "POST /v1/sync HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n"},
	}
	for _, tc := range tests {
		conn, err := net.Dial("unix", s.path)
		if err != nil {
			t.Fatal(err)
		}
		_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
		if _, err := io.WriteString(conn, tc.raw); err != nil {
			t.Fatalf("%s: write: %v", tc.name, err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("%s: read answer: %v", tc.name, err)
		}
		resp.Body.Close()
		conn.Close()
		if resp.StatusCode < 400 || resp.StatusCode > 499 {
			t.Errorf("%s: status %d; want 4xx", tc.name, resp.StatusCode)
		}
		if _, err := s.client.Status(waitCtx(t)); err != nil {
			t.Fatalf("%s: Status() after it = %v", tc.name, err)
		}
	}
}

// TestReadsDoNotWaitForMutation holds a mutation in the backend and checks
// that every read answers meanwhile.
func TestReadsDoNotWaitForMutation(t *testing.T) {
	b := newFakeBackend()
	b.entered = make(chan string, 1)
	b.release = make(chan struct{})
	s := startServer(t, b, nil, ServerOptions{})
	ctx := waitCtx(t)

	done := make(chan error, 1)
	go func() {
		_, err := s.client.Enable(ctx, "gates")
		done <- err
	}()
	select {
	case call := <-b.entered:
		if call != "enable gates" {
			t.Fatalf("backend entered %q; want enable gates", call)
		}
	case <-ctx.Done():
		t.Fatal("Enable never reached the backend")
	}
	if _, err := s.client.Status(ctx); err != nil {
		t.Errorf("Status() during a blocked Enable = %v", err)
	}
	if _, err := s.client.Packs(ctx); err != nil {
		t.Errorf("Packs() during a blocked Enable = %v", err)
	}
	if _, err := s.client.Rejections(ctx); err != nil {
		t.Errorf("Rejections() during a blocked Enable = %v", err)
	}
	select {
	case err := <-done:
		t.Fatalf("Enable returned %v before the backend let it go", err)
	default:
	}
	close(b.release)
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Enable = %v", err)
		}
	case <-ctx.Done():
		t.Fatal("Enable did not return after release")
	}
}

// collect follows the event stream in a goroutine and hands each event to
// the returned channel; the stream ends when ctx does.
func collect(ctx context.Context, c *Client, since uint64) (<-chan api.Event, <-chan error) {
	events := make(chan api.Event, 1024)
	done := make(chan error, 1)
	go func() {
		done <- c.Events(ctx, since, func(ev api.Event) error {
			select {
			case events <- ev:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	}()
	return events, done
}

func receive(t *testing.T, events <-chan api.Event, n int) []api.Event {
	t.Helper()
	ctx := waitCtx(t)
	out := make([]api.Event, 0, n)
	for range n {
		select {
		case ev := <-events:
			out = append(out, ev)
		case <-ctx.Done():
			t.Fatalf("got %d events (%v); want %d", len(out), ids(out), n)
		}
	}
	return out
}

func TestEventStream(t *testing.T) {
	s := startServer(t, newFakeBackend(), nil, ServerOptions{})
	for i := range 3 {
		publish(t, s.ev, api.ArchiveSeen{Archive: fmt.Sprintf("p%d.zip", i), Size: 1 << 20})
	}
	ctx, cancel := context.WithCancel(waitCtx(t))
	events, done := collect(ctx, s.client, 0)
	got := receive(t, events, 3) // replay
	for i := range 3 {
		publish(t, s.ev, api.Progress{Archive: "p2.zip", Step: "extract", Done: int64(i) * 50, Total: 100})
	}
	got = append(got, receive(t, events, 3)...) // live
	wantIDs(t, got, 1)
	if got[0].Type != api.EventArchiveSeen || string(got[0].Data) != `{"archive":"p0.zip","size":1048576}` || !got[0].Time.Equal(fixedTime) {
		t.Errorf("first event = %+v; want archive-seen p0.zip at %v", got[0], fixedTime)
	}
	var p api.Progress
	if err := json.Unmarshal(got[5].Data, &p); got[5].Type != api.EventProgress || err != nil || p != (api.Progress{Archive: "p2.zip", Step: "extract", Done: 100, Total: 100}) {
		t.Errorf("last event = %+v (%+v, %v); want progress 100 of 100", got[5], p, err)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Events after cancel = %v; want context.Canceled", err)
	}

	// Resume after id 4.
	ctx2, cancel2 := context.WithCancel(waitCtx(t))
	defer cancel2()
	events2, _ := collect(ctx2, s.client, 4)
	wantIDs(t, receive(t, events2, 2), 5)
}

func TestEventStreamGap(t *testing.T) {
	s := startServer(t, newFakeBackend(), NewEvents(EventsOptions{Ring: 4}), ServerOptions{})
	for range 10 {
		publish(t, s.ev, api.Progress{})
	}
	ctx, cancel := context.WithCancel(waitCtx(t))
	defer cancel()
	events, _ := collect(ctx, s.client, 3)
	got := receive(t, events, 4)
	if got[0].ID != 7 {
		t.Fatalf("since=3 with a ring holding 7..10: first id %d; want 7, a gap the client can see", got[0].ID)
	}
	wantIDs(t, got, 7)
}

// TestEventStreamSlowClient stalls a client while far more events than its
// buffer and the socket's are published: the publisher finishes, and the
// client, once it reads again, gets consecutive events, then the dropped
// marker with the last id it was sent.
func TestEventStreamSlowClient(t *testing.T) {
	ev := NewEvents(EventsOptions{Ring: 16, Buffer: 8, Now: fixedClock})
	s := startServer(t, newFakeBackend(), ev, ServerOptions{})
	ctx := waitCtx(t)
	first := make(chan struct{})
	resume := make(chan struct{})
	var got []api.Event
	done := make(chan error, 1)
	go func() {
		done <- s.client.Events(ctx, 0, func(e api.Event) error {
			if len(got) == 0 {
				close(first)
				select {
				case <-resume:
				case <-ctx.Done():
					return ctx.Err()
				}
			}
			got = append(got, e)
			return nil
		})
	}()
	publish(t, ev, api.Progress{})
	select {
	case <-first:
	case <-ctx.Done():
		t.Fatal("the client never got the first event")
	}
	pad := strings.Repeat("x", 1024)
	published := make(chan struct{})
	go func() {
		defer close(published)
		for range 4000 {
			if _, err := ev.Publish(api.Warning{Message: pad}); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	select {
	case <-published:
	case <-ctx.Done():
		t.Fatal("Publish blocked on a stalled client")
	}
	close(resume)
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		t.Fatal("the stream did not end for a client that fell behind")
	}
	if !errors.Is(err, errSubscriberDropped) {
		t.Fatalf("Events = %v; want ErrSubscriberDropped", err)
	}
	last := got[len(got)-1]
	body := got[:len(got)-1]
	wantIDs(t, body, 1)
	if len(body) >= 4001 {
		t.Fatalf("got all %d events; the client should have been dropped", len(body))
	}
	var d api.Dropped
	if last.Type != api.EventDropped || last.ID != 0 || json.Unmarshal(last.Data, &d) != nil || d.LastID != body[len(body)-1].ID {
		t.Fatalf("last line = %+v; want a dropped marker with last_id %d", last, body[len(body)-1].ID)
	}
	if !strings.Contains(s.logs.String(), "event subscriber fell behind") {
		t.Errorf("logs = %s; want the drop logged", s.logs.String())
	}
}

// TestShutdown cancels Serve with an event stream open and a mutation held
// in the backend: Serve returns nil, the stream ends, the held request's
// connection is closed after the shutdown timeout, and the socket is gone.
func TestShutdown(t *testing.T) {
	b := newFakeBackend()
	b.entered = make(chan string, 1)
	b.release = make(chan struct{})
	defer close(b.release)
	s := startServer(t, b, nil, ServerOptions{ShutdownTimeout: 50 * time.Millisecond})
	ctx := waitCtx(t)

	events, streamDone := collect(ctx, s.client, 0)
	publish(t, s.ev, api.Warning{Message: "hello"})
	receive(t, events, 1)
	syncDone := make(chan error, 1)
	go func() {
		_, err := s.client.SyncDrop(ctx)
		syncDone <- err
	}()
	<-b.entered

	if err := s.stop(); err != nil {
		t.Fatalf("Serve = %v; want nil after cancellation", err)
	}
	select {
	case err := <-streamDone:
		if err != nil {
			t.Errorf("Events when the daemon stops = %v; want nil (the stream just ends)", err)
		}
	case <-ctx.Done():
		t.Fatal("the event stream did not end at shutdown")
	}
	select {
	case err := <-syncDone:
		if err == nil {
			t.Error("Sync held across shutdown = nil error; want the connection closed")
		}
	case <-ctx.Done():
		t.Fatal("a held Sync did not end at shutdown")
	}
	if _, err := os.Lstat(s.path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket file after shutdown: %v; want it removed", err)
	}
	if probe(ctx, s.path) {
		t.Error("Probe after shutdown = true; want false")
	}
}

func TestProbe(t *testing.T) {
	s := startServer(t, newFakeBackend(), nil, ServerOptions{})
	if !probe(waitCtx(t), s.path) {
		t.Errorf("Probe(%s) = false with a daemon serving", s.path)
	}
	if probe(waitCtx(t), s.path+".none") {
		t.Errorf("Probe(%s.none) = true; want false", s.path)
	}
}

func TestClientNoDaemon(t *testing.T) {
	c := NewClient(sockDir(t) + "/none.sock")
	_, err := c.Status(waitCtx(t))
	if err == nil || !strings.Contains(err.Error(), "is the daemon running") {
		t.Errorf("Status() without a daemon = %v; want an error that says to check the daemon", err)
	}
}

// TestSlowMutationOutlivesBodyTimeout holds a mutation for many body
// timeouts: the read deadline that bounded the (empty) body must not end
// the request's context while the backend works.
func TestSlowMutationOutlivesBodyTimeout(t *testing.T) {
	b := newFakeBackend()
	b.entered = make(chan string, 1)
	b.release = make(chan struct{})
	s := startServer(t, b, nil, ServerOptions{BodyTimeout: time.Millisecond})
	ctx := waitCtx(t)
	done := make(chan error, 1)
	go func() {
		_, err := s.client.SyncDrop(ctx)
		done <- err
	}()
	<-b.entered
	hold := time.NewTimer(200 * time.Millisecond) // 200 body timeouts
	defer hold.Stop()
	select {
	case err := <-done:
		t.Fatalf("Sync ended while the backend held it: %v", err)
	case <-hold.C:
	}
	close(b.release)
	if err := <-done; err != nil {
		t.Fatalf("Sync = %v; want success after release", err)
	}
}

// TestStalledBody sends a header that announces a body and then nothing:
// the daemon answers 408 once the body timeout passes, and keeps serving.
func TestStalledBody(t *testing.T) {
	s := startServer(t, newFakeBackend(), nil, ServerOptions{BodyTimeout: 20 * time.Millisecond})
	conn, err := net.Dial("unix", s.path)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(conn, "POST /v1/sync HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n{"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("read answer: %v\nlogs: %s", err, s.logs.String())
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestTimeout || !strings.Contains(string(body), codeTimeout) {
		t.Fatalf("stalled body: %d %s; want 408 %s", resp.StatusCode, body, codeTimeout)
	}
	if got := s.b.callLog(); len(got) != 0 {
		t.Errorf("backend calls = %q; want none for a request whose body never came", got)
	}
	if _, err := s.client.Status(waitCtx(t)); err != nil {
		t.Fatalf("Status() after a stalled body = %v", err)
	}
}

func TestHeadEventsAnswersAtOnce(t *testing.T) {
	s := startServer(t, newFakeBackend(), nil, ServerOptions{})
	status, body := rawRequest(t, s, http.MethodHead, "/v1/events", "")
	if status != http.StatusOK || body != "" {
		t.Fatalf("HEAD /v1/events = %d %q; want 200 and no body", status, body)
	}
}

func TestListenAndServe(t *testing.T) {
	held := startServer(t, newFakeBackend(), nil, ServerOptions{})
	if err := ListenAndServe(waitCtx(t), held.path, newFakeBackend(), NewEvents(EventsOptions{}), ServerOptions{}); !errors.Is(err, errAlreadyRunning) {
		t.Errorf("ListenAndServe on a live socket = %v; want ErrAlreadyRunning", err)
	}
	path := sockDir(t) + "/forgesync.sock"
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := ListenAndServe(ctx, path, newFakeBackend(), NewEvents(EventsOptions{}), ServerOptions{}); err != nil {
		t.Errorf("ListenAndServe(cancelled) = %v; want nil", err)
	}
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket after ListenAndServe returned: %v; want it removed", err)
	}
}
