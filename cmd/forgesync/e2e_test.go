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
	"github.com/mjolnir-forge/forgesync/cmd/forgesync/cli"
	"github.com/mjolnir-forge/forgesync/daemon"
	"github.com/mjolnir-forge/forgesync/installer/intake"
	"github.com/mjolnir-forge/forgesync/installer/store"
)

// The end-to-end tests drive the real binary, built once in TestMain, on
// temp folders, and watch it through its real socket.

var binary string

func TestMain(m *testing.M) {
	if len(os.Args) == 2 && os.Args[1] == intake.ChildCommand {
		// The commands run in process (runCLI) unpack in this test
		// binary, re-run as their child.
		os.Exit(intake.RunChild(os.Stdin, os.Stdout))
	}
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
	closeBrowser()
	os.RemoveAll(dir)
	os.Exit(code)
}

// envBenchPriority, when set, is the [performance] priority of the games
// newGame lays out (scripts/bench-daemon.sh measures both).
const envBenchPriority = "FORGESYNC_BENCH_PRIORITY"

// game is a temp install with a config for the binary. Its root is short:
// a socket path must fit in 108 bytes.
type game struct {
	root, config, drop, inv, state, sock string
}

func newGame(t testing.TB) *game {
	t.Helper()
	root, err := os.MkdirTemp("", "fse2e")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	g := &game{root: root, config: filepath.Join(root, "f.toml"), drop: filepath.Join(root, "mods", "MJOLNIRForgePacks", "drop"),
		inv: filepath.Join(root, "mods", "MJOLNIRForgePacks"), state: filepath.Join(root, "state"), sock: filepath.Join(root, "s.sock")}
	text := "[paths]\nmods = \"mods\"\npaks = \"paks\"\nstate = \"state\"\nsocket = \"s.sock\"\n[watch]\nsettle = \"200ms\"\nrescan = \"60s\"\n[deploy]\nnative = false\n"
	if p := os.Getenv(envBenchPriority); p != "" {
		text += "[performance]\npriority = \"" + p + "\"\n" // the benchmarks' daemon, both ways
	}
	if err := os.WriteFile(g.config, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(g.drop, 0o755)
	return g
}

// proc is a running daemon: done closes when it exits.
type proc struct {
	cmd  *exec.Cmd
	done chan struct{}
	logs *logWriter
}

// logWriter keeps a daemon's log and signals when a line holding want
// arrives.
type logWriter struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	want  string
	ready chan struct{} // closed once want was written
	wrote chan struct{} // when not nil, signalled after each write
}

// waitFor blocks until the log holds a line matching each of lines (each
// a list of substrings one line must hold together), or fails at the
// deadline; it returns the log.
func (w *logWriter) waitFor(t testing.TB, d time.Duration, lines ...[]string) string {
	t.Helper()
	deadline := time.After(d)
	for {
		w.mu.Lock()
		if w.wrote == nil {
			w.wrote = make(chan struct{}, 1)
		}
		text, wrote := w.buf.String(), w.wrote
		w.mu.Unlock()
		missing := slices.IndexFunc(lines, func(want []string) bool { return !logHas(text, want...) })
		if missing < 0 {
			return text
		}
		select {
		case <-wrote:
		case <-deadline:
			t.Fatalf("timed out waiting for a log line holding %q; log:\n%s", lines[missing], text)
		}
	}
}

// logHas reports whether one line of log holds every one of parts.
func logHas(log string, parts ...string) bool {
	for l := range strings.Lines(log) {
		if !slices.ContainsFunc(parts, func(p string) bool { return !strings.Contains(l, p) }) {
			return true
		}
	}
	return false
}

func (w *logWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if w.wrote != nil {
		select {
		case w.wrote <- struct{}{}:
		default:
		}
	}
	if w.want != "" && bytes.Contains(w.buf.Bytes(), []byte(w.want)) {
		close(w.ready)
		w.want = ""
	}
	return len(p), nil
}

func (w *logWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// start runs the daemon and waits until it logs that it serves.
func (g *game) start(t testing.TB) *proc {
	t.Helper()
	cmd := exec.Command(binary, "daemon", "--config", g.config)
	logs := &logWriter{want: "daemon started", ready: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &proc{cmd: cmd, done: make(chan struct{}), logs: logs}
	go func() { cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
		}
		if t.Failed() {
			t.Logf("daemon log:\n%s", logs.String())
		}
	})
	select {
	case <-logs.ready:
	case <-p.done:
		t.Fatalf("daemon exited:\n%s", logs.String())
	case <-time.After(20 * time.Second):
		t.Fatalf("daemon did not start:\n%s", logs.String())
	}
	return p
}

// events follows the daemon's event stream from the first event.
type events struct {
	mu  sync.Mutex
	all []api.Event
	ch  chan struct{}
}

func (g *game) follow(t testing.TB) *events {
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

// snapshot returns the events seen so far.
func (ev *events) snapshot() []api.Event {
	ev.mu.Lock()
	defer ev.mu.Unlock()
	return slices.Clone(ev.all)
}

// wait blocks until cond holds over the events seen, or fails at the deadline.
func (ev *events) wait(t testing.TB, d time.Duration, what string, cond func([]api.Event) bool) []api.Event {
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
func packZip(t testing.TB, id, version string, content int) []byte {
	t.Helper()
	dir := t.TempDir()
	manifest := fmt.Sprintf(`{"schema":1,"id":%q,"version":%q,"name":"Pack %s","authors":["E2E"],"pieces":[{"id":"deck","kind":"block","tag":"mjolnir\\forge\\%s\\deck","class":"/Game/MJOLNIR/Forge/%s/Blocks/BP_Deck.BP_Deck_C","dimensions_m":[2,2,0.5]}]}`, id, version, id, id, id)
	files := []intake.File{{Path: "forgepack.json", Size: int64(len(manifest))}}
	os.WriteFile(filepath.Join(dir, "forgepack.json"), []byte(manifest), 0o644)
	if content > 0 {
		os.MkdirAll(filepath.Join(dir, "content"), 0o755)
		// Random bytes: content that does not compress, like cooked packages.
		data := make([]byte, content)
		rng := rand.NewChaCha8([32]byte{byte(len(id)), byte(content)})
		rng.Read(data)
		os.WriteFile(filepath.Join(dir, "content", "Big.pak"), data, 0o644)
		files = append(files, intake.File{Path: "content/Big.pak", Size: int64(content)})
	}
	var buf bytes.Buffer
	if err := intake.WritePackZip(&buf, os.DirFS(dir), files); err != nil {
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
	ev.wait(t, 30*time.Second, "the pack installed and published", func(all []api.Event) bool {
		return count(all, api.EventPackInstalled) >= 1 && count(all, api.EventInventoryPublished) >= 1
	})
	// A second, mistaken claim of the download would come from the same
	// watcher, whose work is in order: once a marker dropped now is
	// installed, and a rescan through the writer has run after it,
	// anything the download caused has been reported.
	if err := os.WriteFile(filepath.Join(g.drop, "marker.zip"), packZip(t, "marker-pack", "1.0.0", 0), 0o644); err != nil {
		t.Fatal(err)
	}
	ev.wait(t, 30*time.Second, "the marker installed", func(all []api.Event) bool {
		for _, e := range all {
			if d, err := e.Decode(); err == nil {
				if pi, ok := d.(api.PackInstalled); ok && pi.Pack == "marker-pack" {
					return true
				}
			}
		}
		return false
	})
	c := daemon.NewClient(g.sock)
	defer c.Close()
	if sum, err := c.SyncDrop(t.Context()); err != nil || len(sum.Outcomes) != 0 {
		t.Fatalf("sync after the install = %+v, %v; want nothing left to do", sum, err)
	}
	all := ev.snapshot()
	if n := count(all, api.EventArchiveSeen); n != 2 {
		t.Fatalf("%d archive-seen events; want the download and the marker, once each:\n%s", n, describe(all))
	}
	consecutive(t, all)
	if n := count(all, api.EventPackInstalled); n != 2 {
		t.Fatalf("%d pack-installed events; want the download's and the marker's:\n%s", n, describe(all))
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
	if left, _ := pipelineReady(g.drop); len(left) != 0 {
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
	kept, _ := os.ReadDir(filepath.Join(g.state, store.ArchivesDir))
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
	d := g.start(t)
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
	d.cmd.Process.Signal(syscall.SIGKILL)
	<-d.done
	// A restart recovers (stale socket, processing/, temp files): what
	// was in processing is done before the socket answers; a sync through
	// the writer then takes what is left in drop, and waits for it.
	g.start(t)
	c := daemon.NewClient(g.sock)
	defer c.Close()
	if _, err := c.SyncDrop(t.Context()); err != nil {
		t.Fatalf("sync after the restart: %v", err)
	}
	st, err := c.Status(t.Context())
	left, _ := pipelineReady(g.drop)
	proc, _ := os.ReadDir(filepath.Join(g.state, store.ProcessingDir))
	if err != nil || len(left) != 0 || len(proc) != 0 || st.Counts.Packs != 2 {
		t.Fatalf("no convergence: status %+v, %v; drop %v; processing %d", st, err, left, len(proc))
	}
	for _, f := range []string{"lifts.txt", "doors.txt", "installed.txt"} {
		got, _ := os.ReadFile(filepath.Join(g.inv, f))
		want, _ := os.ReadFile(filepath.Join(ref.inv, f))
		if !bytes.Equal(got, want) {
			t.Errorf("%s after kill -9 and restart =\n%s\nwant (uninterrupted)\n%s", f, got, want)
		}
	}
	a, _ := os.ReadFile(filepath.Join(g.inv, "installed.json"))
	b, _ := os.ReadFile(filepath.Join(ref.inv, "installed.json"))
	var got struct {
		Packs []struct {
			ID string `json:"id"`
		} `json:"packs"`
	}
	if err := json.Unmarshal(a, &got); err != nil || len(got.Packs) != 2 || got.Packs[0].ID != "big-pack" || got.Packs[1].ID != "small-pack" {
		t.Errorf("installed.json after kill -9 holds %+v, %v; want big-pack and small-pack", got.Packs, err)
	}
	if !bytes.Equal(a, b) {
		t.Errorf("installed.json after kill -9 and restart =\n%s\nwant (uninterrupted)\n%s", a, b)
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
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != cli.ExitInvalid || !strings.Contains(string(out), "not installed") {
		t.Fatalf("disable nope via the daemon: %v\n%s", err, out)
	}
}
