// Command launcher-client is what a launcher does with the forgesync
// daemon, in Go, on the client oapi-codegen generates from
// api/openapi.yaml (package forgesyncapi, beside it): it prints the
// daemon's status, then follows its event stream, one line per event,
// until interrupted (or after -events events). With -join it does the
// join flow for one server instead (README "For launchers: join a server's
// set"): stage the server's set unless the machine has it, then apply it by
// fingerprint; -leave switches back to the player's own packs.
//
//	go run ./examples/launcher-client -socket /var/lib/forgesync/forgesync.sock
//	go run ./examples/launcher-client -url http://127.0.0.1:8384 -key "$(cat state/api-key)"
//	go run ./examples/launcher-client -socket … -join https://forge.example.org/ -fingerprint sha256:…
//
// The socket is HTTP over AF_UNIX, so the client gets an http.Client whose
// transport dials it; the host name in its URLs is never looked up. A
// launcher that reconnects passes the last id it saw as -since: the daemon
// replays what it still holds after it.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"

	"github.com/mjolnir-forge/forgesync/cmd/launcher-client/forgesyncapi"
)

func main() {
	socket := flag.String("socket", "", "the daemon's socket (`<state>/forgesync.sock`)")
	url := flag.String("url", "", "the loopback TCP API instead of the socket, e.g. http://127.0.0.1:8384")
	key := flag.String("key", "", "the TCP API's key (`<state>/api-key`)")
	since := flag.Int("since", -1, "replay the held events after this id (0: all held); -1 follows live events only")
	events := flag.Int("events", 0, "stop after this many events (0: follow until interrupted)")
	var s server
	flag.StringVar(&s.url, "join", "", "join the server whose pack set is at this `URL` (or oci:// reference): stage it, then apply it")
	flag.StringVar(&s.fingerprint, "fingerprint", "", "with -join: the set `FINGERPRINT` the server advertises")
	flag.StringVar(&s.trust, "trust", "", "with -join: the minisign public `KEY` the player trusts for this set")
	leave := flag.Bool("leave", false, "switch back to the player's own packs (profile own)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var err error
	switch {
	case s.url != "" || *leave:
		err = joinOrLeave(ctx, os.Stdout, *socket, *url, *key, s, *leave)
	default:
		err = run(ctx, os.Stdout, *socket, *url, *key, *since, *events)
	}
	if err != nil && ctx.Err() == nil {
		fmt.Fprintln(os.Stderr, "launcher-client:", err)
		os.Exit(1)
	}
}

// run prints the status and follows the events.
func run(ctx context.Context, w io.Writer, socket, url, key string, since, events int) error {
	c, err := newClient(socket, url, key)
	if err != nil {
		return err
	}
	if err := printStatus(ctx, w, c); err != nil {
		return err
	}
	return follow(ctx, w, c, since, events)
}

// joinOrLeave joins the server s, or with leave switches back to the
// player's own packs.
func joinOrLeave(ctx context.Context, w io.Writer, socket, url, key string, s server, leave bool) error {
	c, err := newClient(socket, url, key)
	if err != nil {
		return err
	}
	switch {
	case leave && s.url != "":
		return errors.New("give -join URL -fingerprint FP, or -leave, not both")
	case leave:
		return leaveToOwn(ctx, w, c)
	case s.fingerprint == "":
		return errors.New("-join needs -fingerprint, the set the server advertises")
	}
	return join(ctx, w, c, s)
}

// newClient returns a client of the socket, or of the TCP API with its key.
func newClient(socket, url, key string) (*forgesyncapi.ClientWithResponses, error) {
	switch {
	case socket != "" && url == "":
		hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", socket)
		}}}
		return forgesyncapi.NewClientWithResponses("http://forgesync", forgesyncapi.WithHTTPClient(hc))
	case url != "" && socket == "":
		bearer := func(_ context.Context, req *http.Request) error {
			req.Header.Set("Authorization", "Bearer "+key)
			return nil
		}
		return forgesyncapi.NewClientWithResponses(url, forgesyncapi.WithRequestEditorFn(bearer))
	}
	return nil, errors.New("give either -socket PATH or -url URL (with -key)")
}

// printStatus prints what the daemon is doing and what is installed.
func printStatus(ctx context.Context, w io.Writer, c *forgesyncapi.ClientWithResponses) error {
	r, err := c.GetStatusWithResponse(ctx)
	if err != nil {
		return fmt.Errorf("GET /v1/status: %w", err)
	}
	if r.JSON200 == nil {
		return apiError("GET /v1/status", r.StatusCode(), r.Body)
	}
	st := r.JSON200
	n := st.Counts
	fmt.Fprintf(w, "forgesync %s (pid %d): %s, generation %d\n", st.Version, st.Pid, st.State, st.Generation)
	fmt.Fprintf(w, "packs: %d installed, %d enabled; %d pieces, %d lifts, %d doors installed; %d archives rejected\n",
		n.Packs, n.Enabled, n.Pieces, n.Lifts, n.Doors, n.Rejected)
	return nil
}

// follow prints each event of the stream as it comes, until ctx ends, the
// stream ends, or events have been printed (when events > 0).
func follow(ctx context.Context, w io.Writer, c *forgesyncapi.ClientWithResponses, since, events int) error {
	params := &forgesyncapi.FollowEventsParams{}
	if since >= 0 {
		params.Since = &since
	}
	resp, err := c.FollowEvents(ctx, params)
	if err != nil {
		return fmt.Errorf("GET /v1/events: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		return apiError("GET /v1/events", resp.StatusCode, body)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for n := 0; events <= 0 || n < events; n++ {
		if !sc.Scan() {
			if err := sc.Err(); err != nil {
				return fmt.Errorf("GET /v1/events: %w", err)
			}
			return errors.New("GET /v1/events: the daemon ended the stream")
		}
		var ev forgesyncapi.Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			return fmt.Errorf("GET /v1/events: line %d: %w", n+1, err)
		}
		line, err := describe(ev)
		if err != nil {
			return fmt.Errorf("GET /v1/events: line %d: %w", n+1, err)
		}
		fmt.Fprintln(w, line)
	}
	return nil
}

// describe says in one line what an event reports; a type this client
// does not know (from a newer daemon) is shown by its name.
func describe(ev forgesyncapi.Event) (string, error) {
	typ, err := ev.Discriminator()
	if err != nil {
		return "", err
	}
	v, err := ev.ValueByDiscriminator()
	if err != nil && !strings.HasPrefix(err.Error(), "unknown discriminator value") {
		return "", fmt.Errorf("%s event: %w", typ, err)
	}
	switch e := v.(type) {
	case forgesyncapi.SyncStartedEvent:
		return fmt.Sprintf("%d sync-started (%s): %d archives", e.Id, e.Data.Trigger, len(e.Data.Archives)), nil
	case forgesyncapi.SyncFinishedEvent:
		s := fmt.Sprintf("%d sync-finished (%s): %d archives", e.Id, e.Data.Trigger, len(e.Data.Archives))
		if e.Data.Error != nil {
			return s + ", failed: " + *e.Data.Error, nil
		}
		if e.Data.Generation != nil {
			s += fmt.Sprintf(", generation %d", *e.Data.Generation)
		}
		return s, nil
	case forgesyncapi.PackInstalledEvent:
		return fmt.Sprintf("%d pack-installed: %s %s %s", e.Id, e.Data.Pack, e.Data.Version, e.Data.Result), nil
	case forgesyncapi.PackRejectedEvent:
		return fmt.Sprintf("%d pack-rejected: %s (%d reasons)", e.Id, e.Data.Archive, len(e.Data.Reasons)), nil
	case forgesyncapi.PackEnabledEvent:
		return fmt.Sprintf("%d pack-enabled: %s %s", e.Id, e.Data.Pack, e.Data.Version), nil
	case forgesyncapi.PackDisabledEvent:
		return fmt.Sprintf("%d pack-disabled: %s %s", e.Id, e.Data.Pack, e.Data.Version), nil
	case forgesyncapi.PackRemovedEvent:
		return fmt.Sprintf("%d pack-removed: %s %s", e.Id, e.Data.Pack, e.Data.Version), nil
	case forgesyncapi.DroppedEvent:
		return fmt.Sprintf("fell behind after event %d: reconnect with -since %d", e.Data.LastId, e.Data.LastId), nil
	}
	// Any other type, or one a newer daemon sends: its id and type.
	var head struct {
		ID int `json:"id"`
	}
	raw, err := ev.MarshalJSON()
	if err == nil {
		err = json.Unmarshal(raw, &head)
	}
	if err != nil {
		return "", fmt.Errorf("%s event: %w", typ, err)
	}
	return fmt.Sprintf("%d %s", head.ID, typ), nil
}

// apiError is the daemon's error answer in words.
func apiError(what string, status int, body []byte) error {
	var e forgesyncapi.Error
	if json.Unmarshal(body, &e) == nil && e.Error.Message != "" {
		return fmt.Errorf("%s: %d %s: %s", what, status, e.Error.Code, e.Error.Message)
	}
	return fmt.Errorf("%s: status %d", what, status)
}
