package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/daemon"
	"github.com/mjolnir-forge/forgesync/installer"
)

// The end-to-end tests drive the real binary, built once in TestMain, on
// temp folders, and watch it through its real socket.

var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "fsbin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	binary = filepath.Join(dir, "forgesync")
	if out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build forgesync: %v\n%s", err, out)
		os.Exit(2)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// game is a temp install with a config for the binary. Its root is short:
// a socket path must fit in 108 bytes.
type game struct {
	root, config, drop, inv, state, sock string
}

func newGame(t *testing.T) *game {
	t.Helper()
	root, err := os.MkdirTemp("", "fse2e")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	g := &game{root: root, config: filepath.Join(root, "f.toml"), drop: filepath.Join(root, "mods", "MJOLNIRForgePacks", "drop"),
		inv: filepath.Join(root, "mods", "MJOLNIRForgePacks"), state: filepath.Join(root, "state"), sock: filepath.Join(root, "s.sock")}
	text := "[paths]\nmods = \"mods\"\npaks = \"paks\"\nstate = \"state\"\nsocket = \"s.sock\"\n[watch]\nsettle = \"200ms\"\nrescan = \"60s\"\n[deploy]\nnative = false\n"
	if err := os.WriteFile(g.config, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(g.drop, 0o755)
	return g
}

// start runs the daemon and waits until its socket answers.
func (g *game) start(t *testing.T) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(binary, "daemon", "--config", g.config)
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
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
		}
		if t.Failed() {
			t.Logf("daemon log:\n%s", logs.String())
		}
	})
	deadline := time.Now().Add(20 * time.Second)
	for !daemon.Probe(t.Context(), g.sock) {
		if time.Now().After(deadline) {
			t.Fatalf("daemon did not answer on %s:\n%s", g.sock, logs.String())
		}
		select {
		case <-done:
			t.Fatalf("daemon exited:\n%s", logs.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	return cmd
}

// events follows the daemon's event stream from the first event.
type events struct {
	mu  sync.Mutex
	all []api.Event
	ch  chan struct{}
}

func (g *game) follow(t *testing.T) *events {
	ev := &events{ch: make(chan struct{}, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	c := daemon.NewClient(g.sock)
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.Events(ctx, 0, func(e api.Event) error {
			ev.mu.Lock()
			ev.all = append(ev.all, e)
			ev.mu.Unlock()
			select {
			case ev.ch <- struct{}{}:
			default:
			}
			return nil
		})
	}()
	t.Cleanup(func() { cancel(); <-done; c.Close() })
	return ev
}

// wait blocks until cond holds over the events seen, or fails at the deadline.
func (ev *events) wait(t *testing.T, d time.Duration, what string, cond func([]api.Event) bool) []api.Event {
	t.Helper()
	deadline := time.After(d)
	for {
		ev.mu.Lock()
		all := slices.Clone(ev.all)
		ev.mu.Unlock()
		if cond(all) {
			return all
		}
		select {
		case <-ev.ch:
		case <-deadline:
			t.Fatalf("timed out waiting for %s; events:\n%s", what, describe(all))
		}
	}
}

func describe(all []api.Event) string {
	var b strings.Builder
	for _, e := range all {
		fmt.Fprintf(&b, "%d %s %s\n", e.ID, e.Type, e.Data)
	}
	return b.String()
}

func count(all []api.Event, typ api.EventType) int {
	n := 0
	for _, e := range all {
		if e.Type == typ {
			n++
		}
	}
	return n
}

// consecutive checks the ids the client saw are 1, 2, 3, … in order.
func consecutive(t *testing.T, all []api.Event) {
	t.Helper()
	for i, e := range all {
		if e.ID != uint64(i+1) {
			t.Fatalf("event %d has id %d; want consecutive ids from 1:\n%s", i, e.ID, describe(all))
		}
	}
}

// packZip makes a valid pack archive with n lift blocks and extra content bytes.
func packZip(t *testing.T, id, version string, content int) []byte {
	t.Helper()
	dir := t.TempDir()
	manifest := fmt.Sprintf(`{"schema":1,"id":%q,"version":%q,"name":"Pack %s","authors":["E2E"],"pieces":[{"id":"deck","kind":"block","tag":"mjolnir\\forge\\%s\\deck","class":"/Game/MJOLNIR/Forge/%s/Blocks/BP_Deck.BP_Deck_C","dimensions_m":[2,2,0.5]}]}`, id, version, id, id, id)
	files := []installer.File{{Path: "forgepack.json", Size: int64(len(manifest))}}
	os.WriteFile(filepath.Join(dir, "forgepack.json"), []byte(manifest), 0o644)
	if content > 0 {
		os.MkdirAll(filepath.Join(dir, "content"), 0o755)
		// Random bytes: content that does not compress, like cooked packages.
		data := make([]byte, content)
		rng := rand.NewChaCha8([32]byte{byte(len(id)), byte(content)})
		rng.Read(data)
		os.WriteFile(filepath.Join(dir, "content", "Big.pak"), data, 0o644)
		files = append(files, installer.File{Path: "content/Big.pak", Size: int64(content)})
	}
	var buf bytes.Buffer
	if err := installer.WritePackZip(&buf, os.DirFS(dir), files); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestDaemonSlowDownloadInstalledOnce(t *testing.T) {
	g := newGame(t)
	g.start(t)
	ev := g.follow(t)
	data := packZip(t, "slow-pack", "1.0.0", 256<<10)
	part := filepath.Join(g.drop, "slow-pack.zip.part")
	f, err := os.Create(part)
	if err != nil {
		t.Fatal(err)
	}
	// A browser writing in chunks, then renaming the finished download.
	for off := 0; off < len(data); off += len(data)/8 + 1 {
		f.Write(data[off:min(off+len(data)/8+1, len(data))])
		time.Sleep(30 * time.Millisecond)
	}
	f.Close()
	if err := os.Rename(part, filepath.Join(g.drop, "slow-pack.zip")); err != nil {
		t.Fatal(err)
	}
	all := ev.wait(t, 30*time.Second, "the pack installed and published", func(all []api.Event) bool {
		return count(all, api.EventPackInstalled) >= 1 && count(all, api.EventInventoryPublished) >= 1
	})
	// Give a second, mistaken claim the chance to show, then count.
	time.Sleep(600 * time.Millisecond)
	ev.mu.Lock()
	all = slices.Clone(ev.all)
	ev.mu.Unlock()
	consecutive(t, all)
	if n := count(all, api.EventPackInstalled); n != 1 {
		t.Fatalf("%d pack-installed events; want exactly 1:\n%s", n, describe(all))
	}
	for _, e := range all {
		if e.Type == api.EventArchiveSeen && strings.Contains(string(e.Data), ".part") {
			t.Fatalf("the unfinished download was claimed: %s", e.Data)
		}
	}
	inst, _ := os.ReadFile(filepath.Join(g.inv, "installed.txt"))
	if !strings.Contains(string(inst), `mjolnir\forge\slow-pack\deck`) {
		t.Fatalf("installed.txt lacks the pack:\n%s", inst)
	}
	if left, _ := os.ReadDir(g.drop); len(left) != 0 {
		t.Fatalf("drop still holds %v", left)
	}
}

func TestDaemon200ArchivesAtOnce(t *testing.T) {
	g := newGame(t)
	g.start(t)
	ev := g.follow(t)
	stage := filepath.Join(g.root, "stage")
	os.MkdirAll(stage, 0o755)
	var names []string
	for i := range 200 {
		name := fmt.Sprintf("pack-%03d.zip", i)
		var data []byte
		switch {
		case i%20 == 7:
			data = []byte("this is not an archive") // rejected
		case i%20 == 13:
			data = packZip(t, fmt.Sprintf("pack-%03d", i-1), "1.0.0", 0) // the same bytes as i-1: already installed
		default:
			data = packZip(t, fmt.Sprintf("pack-%03d", i), "1.0.0", 0)
		}
		os.WriteFile(filepath.Join(stage, name), data, 0o644)
		names = append(names, name)
	}
	for _, n := range names {
		if err := os.Rename(filepath.Join(stage, n), filepath.Join(g.drop, n)); err != nil {
			t.Fatal(err)
		}
	}
	outcomes := func(all []api.Event) int {
		return count(all, api.EventPackInstalled) + count(all, api.EventPackRejected)
	}
	all := ev.wait(t, 90*time.Second, "200 outcomes", func(all []api.Event) bool { return outcomes(all) >= 200 })
	consecutive(t, all)
	if n := count(all, api.EventPackRejected); n != 10 {
		t.Errorf("%d rejected; want 10", n)
	}
	if pubs := count(all, api.EventInventoryPublished); pubs < 1 || pubs > 10 {
		t.Errorf("%d publications for 200 archives; want one or a few", pubs)
	}
	// Every archive accounted for exactly once: kept (installed), in
	// rejected/ with its reasons, or gone as already installed.
	kept, _ := os.ReadDir(filepath.Join(g.state, installer.ArchivesDir))
	rejected, _ := filepath.Glob(filepath.Join(g.drop, "rejected", "*.zip"))
	reasons, _ := filepath.Glob(filepath.Join(g.drop, "rejected", "*.zip.txt"))
	if len(kept) != 180 || len(rejected) != 10 || len(reasons) != 10 {
		t.Errorf("kept %d, rejected %d (%d reasons); want 180, 10, 10", len(kept), len(rejected), len(reasons))
	}
	left, _ := pipelineReady(g.drop)
	if len(left) != 0 {
		t.Errorf("drop still holds %v", left)
	}
	inst, _ := os.ReadFile(filepath.Join(g.inv, "installed.txt"))
	if rows := strings.Count(string(inst), "\n") - 1; rows != 180 {
		t.Errorf("installed.txt has %d rows; want 180", rows)
	}
}

// pipelineReady lists the regular files left directly in drop.
func pipelineReady(drop string) ([]string, error) {
	entries, err := os.ReadDir(drop)
	var out []string
	for _, e := range entries {
		if e.Type().IsRegular() {
			out = append(out, e.Name())
		}
	}
	return out, err
}

func TestDaemonKill9Converges(t *testing.T) {
	archives := map[string][]byte{
		"big.zip":   packZip(t, "big-pack", "1.0.0", 48<<20),
		"small.zip": packZip(t, "small-pack", "2.0.0", 1024),
		"bad.zip":   []byte("PK\x03\x04 but not really"),
	}
	// The reference: the same archives through one uninterrupted sync.
	ref := newGame(t)
	for n, d := range archives {
		os.WriteFile(filepath.Join(ref.drop, n), d, 0o644)
	}
	if out, err := exec.Command(binary, "sync", "--config", ref.config).CombinedOutput(); err == nil || !strings.Contains(string(out), "bad.zip: rejected") {
		t.Fatalf("reference sync: %v\n%s", err, out)
	}

	g := newGame(t)
	cmd := g.start(t)
	ev := g.follow(t)
	for n, d := range archives {
		os.WriteFile(filepath.Join(g.drop, n+".part"), d, 0o644)
	}
	for n := range archives {
		os.Rename(filepath.Join(g.drop, n+".part"), filepath.Join(g.drop, n))
	}
	ev.wait(t, 60*time.Second, "extraction under way", func(all []api.Event) bool {
		return count(all, api.EventProgress) >= 1
	})
	cmd.Process.Signal(syscall.SIGKILL)
	for daemon.Probe(t.Context(), g.sock) {
		time.Sleep(20 * time.Millisecond)
	}
	// A restart recovers (stale socket, processing/, temp files) and converges.
	g.start(t)
	c := daemon.NewClient(g.sock)
	defer c.Close()
	deadline := time.Now().Add(60 * time.Second)
	for {
		st, err := c.Status(t.Context())
		left, _ := pipelineReady(g.drop)
		proc, _ := os.ReadDir(filepath.Join(g.state, installer.ProcessingDir))
		if err == nil && st.State == "idle" && len(st.Queue) == 0 && len(left) == 0 && len(proc) == 0 && st.Counts.Packs == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no convergence: status %+v, %v; drop %v; processing %d", st, err, left, len(proc))
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, f := range []string{"lifts.txt", "doors.txt", "installed.txt"} {
		got, _ := os.ReadFile(filepath.Join(g.inv, f))
		want, _ := os.ReadFile(filepath.Join(ref.inv, f))
		if !bytes.Equal(got, want) {
			t.Errorf("%s after kill -9 and restart =\n%s\nwant (uninterrupted)\n%s", f, got, want)
		}
	}
	var gotJSON, wantJSON struct {
		Packs []json.RawMessage `json:"packs"`
	}
	a, _ := os.ReadFile(filepath.Join(g.inv, "installed.json"))
	b, _ := os.ReadFile(filepath.Join(ref.inv, "installed.json"))
	json.Unmarshal(a, &gotJSON)
	json.Unmarshal(b, &wantJSON)
	if !bytes.Equal(a, b) {
		t.Errorf("installed.json differs from the uninterrupted run")
	}
	if r, _ := filepath.Glob(filepath.Join(g.drop, "rejected", "bad.zip*")); len(r) != 2 {
		t.Errorf("rejected files %v; want bad.zip and its reasons", r)
	}
}

func TestSecondDaemonRefused(t *testing.T) {
	g := newGame(t)
	g.start(t)
	out, err := exec.Command(binary, "daemon", "--config", g.config).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "is running") {
		t.Fatalf("second daemon: %v\n%s; want a refusal saying one runs already", err, out)
	}
	// With the daemon running, the CLI goes through it.
	out, err = exec.Command(binary, "packs", "--config", g.config).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "no packs installed") {
		t.Fatalf("packs via the daemon: %v\n%s", err, out)
	}
	out, err = exec.Command(binary, "disable", "nope", "--config", g.config).CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitInvalid || !strings.Contains(string(out), "not installed") {
		t.Fatalf("disable nope via the daemon: %v\n%s", err, out)
	}
}
