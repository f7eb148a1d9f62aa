package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/cmd/launcher-client/forgesyncapi"
	"github.com/mjolnir-forge/forgesync/installer/intake"
)

// bin holds the forgesync binary and this example, built once.
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "fslcbin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	bin = dir
	for _, b := range [][2]string{{"forgesync", "../forgesync"}, {"launcher-client", "."}} {
		if out, err := exec.Command("go", "build", "-o", filepath.Join(dir, b[0]), b[1]).CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "build %s: %v\n%s", b[0], err, out)
			os.Exit(2)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// logs keeps a daemon's output and closes ready once it says it started.
type logs struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	ready chan struct{}
}

func (l *logs) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	had := bytes.Contains(l.buf.Bytes(), []byte("daemon started"))
	l.buf.Write(p)
	if !had && bytes.Contains(l.buf.Bytes(), []byte("daemon started")) {
		close(l.ready)
	}
	return len(p), nil
}

func (l *logs) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// daemon is a real forgesync daemon on a temp game folder.
type daemon struct {
	root, drop, sock string
}

// startDaemon runs `forgesync daemon` until the test ends. The root is
// short: a socket path must fit in 108 bytes.
func startDaemon(t *testing.T) *daemon { return startDaemonWith(t, "") }

// startDaemonWith runs the daemon with extra configuration appended.
func startDaemonWith(t *testing.T, extra string) *daemon {
	t.Helper()
	root, err := os.MkdirTemp("", "fslc")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	d := &daemon{root: root, drop: filepath.Join(root, "mods", "MJOLNIRForgePacks", "drop"), sock: filepath.Join(root, "s.sock")}
	if err := os.MkdirAll(d.drop, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(root, "f.toml")
	text := "[paths]\nmods = \"mods\"\npaks = \"paks\"\nstate = \"state\"\nsocket = \"s.sock\"\n[watch]\nsettle = \"200ms\"\nrescan = \"60s\"\n[deploy]\nnative = false\n" + extra
	if err := os.WriteFile(cfg, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(bin, "forgesync"), "daemon", "--config", cfg)
	out := &logs{ready: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("daemon log:\n%s", out.String())
		}
	})
	select {
	case <-out.ready:
	case <-done:
		t.Fatalf("daemon exited:\n%s", out.String())
	case <-time.After(20 * time.Second):
		t.Fatalf("daemon did not start:\n%s", out.String())
	}
	return d
}

// dropExample packs an example pack into drop, by a rename as a finished
// download does.
func (d *daemon) dropExample(t *testing.T, name string) {
	t.Helper()
	l, err := intake.ListPack(filepath.Join("../forgesync/examples", name), intake.DefaultLimits(), nil)
	if err != nil || len(l.Problems) > 0 {
		t.Fatalf("list %s: %v %v", name, err, l.Problems)
	}
	var buf bytes.Buffer
	if err := intake.WritePackZip(&buf, os.DirFS(l.Root), l.Files); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(d.drop, name+".zip.part")
	if err := os.WriteFile(tmp, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(d.drop, name+".zip")); err != nil {
		t.Fatal(err)
	}
}

// TestGeneratedClientDrivesDaemon speaks to a real daemon with nothing but
// the generated client: status, a sync that installs a pack, the packs, a
// 404, a disable, and the event stream, each event decoded to its type.
func TestGeneratedClientDrivesDaemon(t *testing.T) {
	d := startDaemon(t)
	c, err := newClient(d.sock, "", "")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()

	st, err := c.GetStatusWithResponse(ctx)
	if err != nil || st.JSON200 == nil {
		t.Fatalf("GetStatus = %v, %v", st, err)
	}
	if st.JSON200.Pid <= 0 || st.JSON200.Version == "" || st.JSON200.State != "idle" {
		t.Errorf("status %+v; want an idle daemon's pid and version", *st.JSON200)
	}
	d.dropExample(t, "glass-works")
	for deadline := time.Now().Add(30 * time.Second); ; {
		sync, err := c.SyncWithResponse(ctx, forgesyncapi.SyncJSONRequestBody{})
		if err != nil || sync.JSON200 == nil {
			t.Fatalf("Sync = %+v, %v", sync, err)
		}
		packs, err := c.ListPacksWithResponse(ctx)
		if err != nil || packs.JSON200 == nil {
			t.Fatalf("ListPacks = %+v, %v", packs, err)
		}
		if slices.ContainsFunc(packs.JSON200.Packs, func(p forgesyncapi.Pack) bool { return p.Id == "glass-works" && p.Enabled }) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("glass-works not installed after 30 s: %+v", packs.JSON200.Packs)
		}
	}
	p, err := c.GetPackWithResponse(ctx, "glass-works")
	if err != nil || p.JSON200 == nil || p.JSON200.PieceCount == 0 || len(p.JSON200.Pieces) != p.JSON200.PieceCount {
		t.Fatalf("GetPack(glass-works) = %+v, %v", p, err)
	}
	nf, err := c.GetPackWithResponse(ctx, "no-such-pack")
	if err != nil || nf.StatusCode() != 404 || nf.JSON404 == nil || nf.JSON404.Error.Code != forgesyncapi.NotFound || nf.JSON404.Error.Message == "" {
		t.Fatalf("GetPack(no-such-pack) = %d %s, %v; want 404 not_found with a message", nf.StatusCode(), nf.Body, err)
	}
	dis, err := c.DisablePackWithResponse(ctx, "glass-works", forgesyncapi.DisablePackJSONRequestBody{})
	if err != nil || dis.JSON200 == nil || dis.JSON200.Generation == nil {
		t.Fatalf("DisablePack = %+v, %v", dis, err)
	}

	// The stream from its start, up to the disable: every line decodes to
	// the type its discriminator names.
	since := 0
	resp, err := c.FollowEvents(ctx, &forgesyncapi.FollowEventsParams{Since: &since})
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("FollowEvents = %v, %v", resp, err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 4<<20)
	var types []string
	var finished []forgesyncapi.SyncFinishedEvent
	var disabled *forgesyncapi.PackDisabledEvent
	for disabled == nil && sc.Scan() {
		var ev forgesyncapi.Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("event %s: %v", sc.Bytes(), err)
		}
		v, err := ev.ValueByDiscriminator()
		if err != nil {
			t.Fatalf("event %s: %v", sc.Bytes(), err)
		}
		typ, _ := ev.Discriminator()
		types = append(types, typ)
		switch e := v.(type) {
		case forgesyncapi.SyncFinishedEvent:
			finished = append(finished, e)
		case forgesyncapi.PackDisabledEvent:
			disabled = &e
		}
	}
	if disabled == nil {
		t.Fatalf("the stream ended before pack-disabled (%v): %v", sc.Err(), types)
	}
	if disabled.Data.Pack != "glass-works" || disabled.Data.Version == "" || disabled.Data.Generation == nil || *disabled.Data.Generation != *dis.JSON200.Generation {
		t.Errorf("pack-disabled %+v; want glass-works and the generation the disable answered (%d)", disabled.Data, *dis.JSON200.Generation)
	}
	installed := slices.IndexFunc(finished, func(e forgesyncapi.SyncFinishedEvent) bool {
		return e.Data.Results.Installed != nil && *e.Data.Results.Installed == 1 && slices.Contains(e.Data.Archives, "glass-works.zip")
	})
	if installed < 0 || finished[installed].Data.Fingerprint == nil || finished[installed].Data.Generation == nil {
		t.Errorf("no sync-finished says glass-works.zip was installed, with the set and generation after: %+v", finished)
	}
	for _, want := range []string{"sync-started", "archive-seen", "pack-installed", "inventory-published", "generation", "sync-finished", "pack-disabled"} {
		if !slices.Contains(types, want) {
			t.Errorf("the stream had no %s event: %v", want, types)
		}
	}
}

// TestExampleRuns builds the example and runs it against a real daemon: it
// prints the status, then the events held since the start, then follows
// the stream live while a launcher enables, disables and removes a pack.
func TestExampleRuns(t *testing.T) {
	d := startDaemon(t)
	d.dropExample(t, "glass-works")
	c, err := newClient(d.sock, "", "")
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; {
		if _, err := c.SyncWithResponse(t.Context(), forgesyncapi.SyncJSONRequestBody{}); err != nil {
			t.Fatal(err)
		}
		st, err := c.GetStatusWithResponse(t.Context())
		if err != nil || st.JSON200 == nil {
			t.Fatalf("GetStatus = %+v, %v", st, err)
		}
		if st.JSON200.Counts.Packs == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("glass-works not installed after 30 s: %+v", st.JSON200.Counts)
		}
	}

	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, filepath.Join(bin, "launcher-client"), "-socket", d.sock, "-since", "0")
	cmd.Stderr = &stderr
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	sc := bufio.NewScanner(pipe)
	// readUntil reads the example's lines until one holds want.
	readUntil := func(want string) {
		t.Helper()
		for sc.Scan() {
			out.WriteString(sc.Text() + "\n")
			if strings.Contains(sc.Text(), want) {
				return
			}
		}
		cmd.Wait()
		t.Fatalf("launcher-client ended before printing %q:\n%s%s", want, out.String(), stderr.String())
	}
	readUntil("pack-installed: glass-works")
	if _, err := c.DisablePackWithResponse(ctx, "glass-works", forgesyncapi.DisablePackJSONRequestBody{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.EnablePackWithResponse(ctx, "glass-works", forgesyncapi.EnablePackJSONRequestBody{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.RemovePackWithResponse(ctx, "glass-works", forgesyncapi.RemovePackJSONRequestBody{}); err != nil {
		t.Fatal(err)
	}
	readUntil("pack-removed: glass-works")
	cmd.Process.Signal(os.Interrupt)
	io.Copy(io.Discard, pipe)
	if err := cmd.Wait(); err != nil {
		t.Errorf("launcher-client interrupted = %v; want exit 0\n%s", err, stderr.String())
	}

	lines := strings.Split(out.String(), "\n")
	if !regexp.MustCompile(`^forgesync \S+ \(pid \d+\): idle, generation 1$`).MatchString(lines[0]) ||
		lines[1] != "packs: 1 installed, 1 enabled; 3 pieces, 0 lifts, 1 doors installed; 0 archives rejected" {
		t.Errorf("status lines:\n%s\n%s", lines[0], lines[1])
	}
	for _, re := range []string{
		`(?m)^\d+ sync-started \(start\): 0 archives$`,
		`(?m)^\d+ sync-finished \(request\): 1 archives, generation 1$`,
		`(?m)^\d+ pack-installed: glass-works \S+ installed$`,
		`(?m)^\d+ generation$`,
		`(?m)^\d+ pack-disabled: glass-works \S+\n\d+ inventory-published\n\d+ generation\n\d+ pack-enabled: glass-works \S+$`,
		`(?m)^\d+ pack-removed: glass-works \S+$`,
	} {
		if !regexp.MustCompile(re).MatchString(out.String()) {
			t.Errorf("launcher-client printed no line matching %s:\n%s", re, out.String())
		}
	}
}

// TestExampleOverTCP runs the example on the loopback TCP API with the key
// from the state folder, then with another key, which the daemon answers
// with "wrong API key".
func TestExampleOverTCP(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	d := startDaemonWith(t, "[api]\nlisten = \""+addr+"\"\n")
	key, err := os.ReadFile(filepath.Join(d.root, "state", "api-key"))
	if err != nil {
		t.Fatal(err)
	}
	run := func(key string) (string, string, error) {
		var stdout, stderr bytes.Buffer
		cmd := exec.CommandContext(t.Context(), filepath.Join(bin, "launcher-client"), "-url", "http://"+addr, "-key", key, "-since", "0", "-events", "3")
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		return stdout.String(), stderr.String(), err
	}
	out, errs, err := run(strings.TrimSpace(string(key)))
	if err != nil || !regexp.MustCompile(`^forgesync \S+ \(pid \d+\): idle, generation 0\npacks: 0 installed, 0 enabled; 0 pieces, 0 lifts, 0 doors installed; 0 archives rejected\n1 sync-started \(start\): 0 archives\n2 inventory-published\n3 sync-finished \(start\): 0 archives\n$`).MatchString(out) {
		t.Errorf("launcher-client over TCP = %v:\n%s%s", err, out, errs)
	}
	out, errs, err = run(strings.Repeat("0", 64))
	const want = "launcher-client: GET /v1/status: 401 unauthorized: wrong API key: the key sent does not match the state folder's api-key file\n"
	if err == nil || out != "" || errs != want {
		t.Errorf("launcher-client with another key = %v:\n%s%s\nwant exit 1 and %q", err, out, errs, want)
	}
}
