package pipeline

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/installer/deploy"
	"github.com/mjolnir-forge/forgesync/installer/store"
	"github.com/mjolnir-forge/forgesync/internal/errkind"
	"github.com/mjolnir-forge/forgesync/lua"
	"github.com/mjolnir-forge/forgesync/native"
)

// recorder keeps what a pipeline tells its Observer, each call as a
// value (see the types below), in order.
type recorder struct {
	mu     sync.Mutex
	all    []any
	signal chan struct{} // when set, receives a token after each call
}

// The calls of the Observer, as the recorder keeps them; the others are
// kept as their argument (PackChange, SetResult, store.Generation, Pass,
// deploy.FileReport).
type (
	passStarted struct {
		Trigger  Trigger
		Archives []string
	}
	archiveClaimed struct {
		Archive string
		Size    int64
	}
	extracting struct {
		Archive     string
		Done, Total int64
	}
	packInstalled Outcome
	packRejected  Outcome
	published     struct {
		Files []string
		Packs int
	}
	warning string
)

func (rc *recorder) add(v any) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.all = append(rc.all, v)
	if rc.signal != nil {
		select {
		case rc.signal <- struct{}{}:
		default:
		}
	}
}

func (rc *recorder) PassStarted(t Trigger, archives []string)  { rc.add(passStarted{t, archives}) }
func (rc *recorder) ArchiveClaimed(archive string, size int64) { rc.add(archiveClaimed{archive, size}) }
func (rc *recorder) Extracting(archive string, done, total int64) {
	rc.add(extracting{archive, done, total})
}
func (rc *recorder) PackChanged(c PackChange) { rc.add(c) }
func (rc *recorder) PackInstalled(o Outcome)  { rc.add(packInstalled(o)) }
func (rc *recorder) PackRejected(o Outcome)   { rc.add(packRejected(o)) }
func (rc *recorder) Published(files []string, enabledPacks int) {
	rc.add(published{files, enabledPacks})
}
func (rc *recorder) SetApplied(r SetResult)                { rc.add(r) }
func (rc *recorder) ProfileSwitched(s ProfileSwitch)       { rc.add(s) }
func (rc *recorder) GenerationRecorded(g store.Generation) { rc.add(g) }
func (rc *recorder) Warning(message string)                { rc.add(warning(message)) }
func (rc *recorder) PassFinished(p Pass)                   { rc.add(p) }
func (rc *recorder) ModuleDeployed(r deploy.FileReport)    { rc.add(r) }

// waitFor waits until cond holds over the calls so far, or fails after
// 10 s; it returns those calls.
func (rc *recorder) waitFor(t *testing.T, what string, cond func([]any) bool) []any {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		if all := rc.events(); cond(all) {
			return all
		}
		select {
		case <-rc.signal:
		case <-deadline:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func (rc *recorder) events() []any {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]any{}, rc.all...)
}

func startRunner(t *testing.T, opts Options, ropts RunnerOptions) *Runner {
	t.Helper()
	p, _, err := Open(t.Context(), opts)
	if err != nil {
		t.Fatalf("Open = %v", err)
	}
	t.Cleanup(func() { p.Close() })
	return runRunner(t, p, ropts)
}

// runRunner runs a Runner over p until the test ends, when it is stopped
// and must return nil.
func runRunner(t *testing.T, p *Pipeline, ropts RunnerOptions) *Runner {
	t.Helper()
	r := NewRunner(p, ropts)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error)
	go func() { done <- r.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run = %v; want nil on cancellation", err)
		}
	})
	return r
}

// TestEventsCarryTrueData runs the pipeline through one event of every type
// and checks every field of each, decoded as a client decodes it.
func TestEventsCarryTrueData(t *testing.T) {
	e := newEnv(t)
	rec := &recorder{}
	opts := e.options()
	opts.Observer = rec
	opts.DeployLua, opts.DeployNative = true, true // no release bundle: the module is missing
	r := startRunner(t, opts, RunnerOptions{Deploy: true})

	// 17 lift classes: one more than the runtime uses, which is a warning.
	e.dropPack(t, "a.zip", spec{id: "pack-a", version: "1.0.0", lifts: 17, content: map[string]string{"A.pak": strings.Repeat("x", 4096)}})
	e.dropPack(t, "b.zip", spec{id: "pack-b", version: "1.0.0", doors: 1, bad: true})
	e.dropPack(t, "c.zip", spec{id: "pack-c", version: "1.0.0", doors: 2})
	sizes := map[string]int64{}
	for _, n := range []string{"a.zip", "b.zip", "c.zip"} {
		sizes[n] = fileSize(t, filepath.Join(e.drop, n))
	}
	if _, err := r.SyncDrop(t.Context()); err != nil {
		t.Fatal(err)
	}
	e.dropPack(t, "c2.zip", spec{id: "pack-c", version: "1.1.0", doors: 2})
	sizes["c2.zip"] = fileSize(t, filepath.Join(e.drop, "c2.zip"))
	if _, err := r.SyncDrop(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Disable(t.Context(), "pack-a"); err != nil {
		t.Fatal(err)
	}
	seen, publications, generations, passes := checkCalls(t, e, rec.events(), sizes)
	// Open's pass finds nothing; each sync is one pass; a disable is none.
	wantPasses := []string{`started start []`, `finished start [] map[] generation 0`,
		`started request ["a.zip" "b.zip" "c.zip"]`, `finished request ["a.zip" "b.zip" "c.zip"] map[installed:2 rejected:1] generation 1`,
		`started request ["c2.zip"]`, `finished request ["c2.zip"] map[upgraded:1] generation 2`}
	if !slices.Equal(passes, wantPasses) {
		t.Errorf("pass events:\n%s\nwant\n%s", strings.Join(passes, "\n"), strings.Join(wantPasses, "\n"))
	}
	if want := []string{"1 drop 2", "2 drop 2", "3 disable 2"}; !slices.Equal(generations, want) {
		t.Errorf("generation events %q; want %q", generations, want)
	}
	if st := r.Status(); st.Generation != 3 || st.KeptArchiveBytes == 0 {
		t.Errorf("Status generation %d, kept %d bytes; want generation 3 and the archives' size", st.Generation, st.KeptArchiveBytes)
	}
	// Open publishes the empty inventory; then the first sync (a and c
	// enabled), the upgrade (both), the disable (c only).
	all := []string{"installed.json", "lifts.txt", "doors.txt", "installed.txt"}
	want := []published{{Files: all, Packs: 0}, {Files: all, Packs: 2},
		{Files: []string{"installed.json", "installed.txt"}, Packs: 2}, {Files: []string{"installed.json", "lifts.txt", "installed.txt"}, Packs: 1}}
	if !reflect.DeepEqual(publications, want) {
		t.Errorf("published = %+v; want %+v", publications, want)
	}
	for _, v := range []any{archiveClaimed{}, extracting{}, packInstalled{}, packRejected{}, published{}, deploy.FileReport{}, warning("")} {
		if typ := fmt.Sprintf("%T", v); seen[typ] == 0 {
			t.Errorf("no %s call; got %v", typ, seen)
		}
	}
	if seen["pipeline.archiveClaimed"] != 4 || seen["pipeline.packInstalled"] != 3 || seen["pipeline.packRejected"] != 1 {
		t.Errorf("calls by type = %v; want 4 archives claimed, 3 packs installed, 1 rejected", seen)
	}

	// Status uses the deploy's result: the gates alone do not make doors work.
	st := r.Status()
	if st.Modules == nil || st.Modules.DoorAutomation || !reflect.DeepEqual(st.Modules.SupportedBuilds, []string{"CU4"}) {
		t.Fatalf("status modules = %+v; want door automation off (no module) and the CU4 allowlist", st.Modules)
	}
	if !slicesContain(st.Warnings, "native door module missing") {
		t.Errorf("status warnings %q do not say the module is missing", st.Warnings)
	}
	if c := st.Counts; c != (Counts{Packs: 2, Enabled: 1, Pieces: 19, Lifts: 17, Doors: 2, EnabledDoors: 2, Rejected: 1}) {
		t.Errorf("counts = %+v", c)
	}
}

// checkCalls checks every call TestEventsCarryTrueData's pipeline made of
// its observer, and returns them counted by type, the publications, the
// generations ("N cause packs") and the passes, in order.
func checkCalls(t *testing.T, e *env, all []any, sizes map[string]int64) (seen map[string]int, publications []published, generations, passes []string) {
	t.Helper()
	seen = map[string]int{}
	fingerprints := map[int]string{} // by generation
	for _, d := range all {
		seen[fmt.Sprintf("%T", d)]++
		switch d := d.(type) {
		case archiveClaimed:
			if d.Size != sizes[d.Archive] || d.Size == 0 {
				t.Errorf("archive claimed %+v; want the size %d", d, sizes[d.Archive])
			}
		case extracting:
			if d.Archive == "" || d.Done < 0 || (d.Total > 0 && d.Done > d.Total) {
				t.Errorf("extracting %+v", d)
			}
		case packInstalled:
			want := map[string]packInstalled{
				"a.zip":  {Archive: "a.zip", Pack: "pack-a", Version: "1.0.0", Result: ResultInstalled},
				"c.zip":  {Archive: "c.zip", Pack: "pack-c", Version: "1.0.0", Result: ResultInstalled},
				"c2.zip": {Archive: "c2.zip", Pack: "pack-c", Version: "1.1.0", Result: ResultUpgraded, Previous: "1.0.0"},
			}[d.Archive]
			if !reflect.DeepEqual(d, want) {
				t.Errorf("pack installed %+v; want %+v", d, want)
			}
		case packRejected:
			if d.Archive != "b.zip" || d.Pack != "pack-b" || d.Version != "1.0.0" || len(d.Reasons) == 0 {
				t.Errorf("pack-rejected %+v", d)
			}
			for _, rs := range d.Reasons {
				if rs.Rule == "" || rs.Message == "" || rs.Path == "" {
					t.Errorf("pack-rejected reason %+v lacks its rule, path or message", rs)
				}
			}
		case published:
			publications = append(publications, d)
		case deploy.FileReport:
			if d.Component != "lua" || !strings.HasPrefix(d.Path, e.mods) || len(d.SHA256) != 64 || d.Status != deploy.Deployed {
				t.Errorf("module deployed %+v", d)
			}
		case warning:
			if !strings.Contains(string(d), "17 lift classes") {
				t.Errorf("warning %q", d)
			}
		case store.Generation:
			generations = append(generations, fmt.Sprintf("%d %s %d", d.N, d.Cause, len(d.Packs)))
			if !strings.HasPrefix(d.Fingerprint, "sha256:") {
				t.Errorf("generation %+v has no fingerprint", d)
			}
			fingerprints[d.N] = d.Fingerprint
		case PackChange:
			if want := (PackChange{Kind: ChangeDisabled, Pack: "pack-a", Version: "1.0.0", Generation: 3}); d != want {
				t.Errorf("pack changed %+v; want %+v", d, want)
			}
		case passStarted:
			passes = append(passes, fmt.Sprintf("started %s %q", d.Trigger, d.Archives))
		case Pass:
			passes = append(passes, fmt.Sprintf("finished %s %q %v generation %d", d.Trigger, d.Archives, d.Results, d.Generation))
			if d.Duration <= 0 || d.Err != nil || !strings.HasPrefix(d.Fingerprint, "sha256:") {
				t.Errorf("pass finished %+v; want a duration, a fingerprint and no error", d)
			}
			if fp, ok := fingerprints[d.Generation]; d.Generation > 0 && (!ok || fp != d.Fingerprint) {
				t.Errorf("pass finished %+v: fingerprint is not generation %d's %s", d, d.Generation, fp)
			}
		default:
			t.Errorf("unexpected call %#v", d)
		}
	}
	return seen, publications, generations, passes
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return info.Size()
}

func slicesContain(list []string, sub string) bool {
	for _, s := range list {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

func TestRunnerSerialisesAndSnapshotsNeverWait(t *testing.T) {
	e := newEnv(t)
	r := startRunner(t, e.options(), RunnerOptions{})
	e.dropPack(t, "a.zip", spec{id: "pack-a", version: "1.0.0", doors: 1})
	e.dropPack(t, "b.zip", spec{id: "pack-b", version: "1.0.0", doors: 1, bad: true})
	sum, err := r.SyncDrop(t.Context())
	if err != nil || len(sum.Outcomes) != 2 {
		t.Fatalf("Sync = %+v, %v", sum, err)
	}
	snap := r.Snapshot()
	if snap.State != StateIdle || len(snap.Packs) != 1 || len(snap.Rejections) != 1 || snap.LastSync.Result != "rejected" {
		t.Fatalf("snapshot = %+v", snap)
	}
	if want := map[Result]int{ResultInstalled: 1, ResultRejected: 1}; !reflect.DeepEqual(snap.LastSync.Results, want) {
		t.Errorf("last sync results = %v; want %v", snap.LastSync.Results, want)
	}
	if len(snap.Rejections[0].Reasons) == 0 {
		t.Fatalf("rejection without reasons: %+v", snap.Rejections[0])
	}

	// While the writer is busy, snapshots answer at once.
	release := make(chan struct{})
	busy := make(chan struct{})
	go r.Do(t.Context(), func(ctx context.Context, p *Pipeline) error {
		close(busy)
		<-release
		return nil
	})
	<-busy
	got := make(chan *Snapshot)
	go func() { got <- r.Snapshot() }()
	select {
	case s := <-got:
		if s.State != StateSyncing {
			t.Errorf("state while busy = %q; want syncing", s.State)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Snapshot waited for the running transaction")
	}
	close(release)

	// Errors keep their words and gain the socket's kinds.
	_, err = r.Disable(t.Context(), "nope")
	if !errors.Is(err, ErrNotInstalled) || !errors.Is(err, errkind.NotFound) || !strings.HasPrefix(err.Error(), "nope: pack is not installed") {
		t.Errorf("Disable(nope) = %v; want ErrNotInstalled and errkind.NotFound", err)
	}
}

// TestRunnerRedeploysOnItsOwn: with Deploy set the Runner deploys at start
// and every Redeploy period, with no request to trigger it.
func TestRunnerRedeploysOnItsOwn(t *testing.T) {
	e := newEnv(t)
	rec := &recorder{signal: make(chan struct{}, 1)}
	opts := e.options()
	opts.Observer, opts.DeployLua = rec, true
	startRunner(t, opts, RunnerOptions{Deploy: true, Redeploy: 10 * time.Millisecond})
	script := filepath.Join(e.mods, filepath.FromSlash(lua.ScriptsDir), filepath.FromSlash(lua.Deployed()[0]))
	first := rec.waitFor(t, "the deploy at start", func(all []any) bool { return countDeployed(all, script) > 0 })
	// A game update wipes a script: the next period puts it back.
	if err := os.Remove(script); err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, "a redeploy", func(all []any) bool { return countDeployed(all, script) > countDeployed(first, script) })
}

// countDeployed counts the deploys of path.
func countDeployed(all []any, path string) int {
	n := 0
	for _, d := range all {
		if m, ok := d.(deploy.FileReport); ok && m.Path == path {
			n++
		}
	}
	return n
}

// logCounter counts the log records with one message.
type logCounter struct {
	msg string
	mu  sync.Mutex
	n   int
}

func (h *logCounter) Enabled(context.Context, slog.Level) bool { return true }
func (h *logCounter) Handle(_ context.Context, r slog.Record) error {
	if r.Message == h.msg {
		h.mu.Lock()
		h.n++
		h.mu.Unlock()
	}
	return nil
}
func (h *logCounter) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *logCounter) WithGroup(string) slog.Handler      { return h }

// TestDeployProblemLoggedOnce: a deploy problem that lasts (no native
// module in the bundle) is logged when it appears, not at every redeploy.
func TestDeployProblemLoggedOnce(t *testing.T) {
	e := newEnv(t)
	logs := &logCounter{msg: "deploy"}
	opts := e.options()
	opts.Log, opts.DeployNative, opts.Modules = slog.New(logs), true, t.TempDir()
	p, _, err := Open(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	r := NewRunner(p, RunnerOptions{Deploy: true})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	for range 3 { // each request redeploys after it
		if _, err := r.SyncDrop(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if m := r.Snapshot().Modules; m == nil || m.DoorAutomation {
		t.Fatalf("modules = %+v; want the missing module reported", m)
	}
	if logs.n != 1 {
		t.Fatalf("the missing module was logged %d times over 4 deploys; want once", logs.n)
	}
}

// TestPackAndPassEvents: an enable, disable or remove that changes the set
// says so once, with the pack's version and the generation; one that
// changes nothing says nothing; every pass is bracketed by sync-started and
// sync-finished naming what triggered it, a failed one too, and starts
// before it claims anything.
func TestPackAndPassEvents(t *testing.T) {
	e := newEnv(t)
	rec := &recorder{}
	opts := e.options()
	opts.Observer = rec
	p, _, err := Open(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	e.dropPack(t, "a.zip", spec{id: "pack-a", version: "1.0.0"})
	if _, err := p.Claim(t.Context(), []string{"a.zip"}); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(t.TempDir(), "b.zip")
	spec{id: "pack-b", version: "2.0.0"}.zip(t, src)
	if _, err := p.Install(t.Context(), src, InstallOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, step := range []func() (*Summary, error){
		func() (*Summary, error) { return p.Disable(t.Context(), "pack-a") },
		func() (*Summary, error) { return p.Disable(t.Context(), "pack-a") }, // already: no event
		func() (*Summary, error) { return p.Enable(t.Context(), "pack-a") },
		func() (*Summary, error) { return p.Enable(t.Context(), "pack-a") }, // already: no event
		func() (*Summary, error) { return p.Remove(t.Context(), "pack-b") },
		func() (*Summary, error) { return p.SyncDrop(t.Context()) },
	} {
		if _, err := step(); err != nil {
			t.Fatal(err)
		}
	}
	// A pass that fails still finishes, with why.
	processing := filepath.Join(e.state, "processing")
	if err := os.RemoveAll(processing); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(processing, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := p.SyncDrop(t.Context()); err == nil {
		t.Fatal("Sync with processing a file = nil; want an error")
	}
	var got []string
	var failed *Pass
	for _, d := range rec.events() {
		switch d := d.(type) {
		case PackChange:
			got = append(got, fmt.Sprintf("pack-%s {Pack:%s Version:%s Generation:%d}", d.Kind, d.Pack, d.Version, d.Generation))
		case archiveClaimed:
			got = append(got, "archive-seen "+d.Archive)
		case passStarted:
			got = append(got, fmt.Sprintf("sync-started %s %q", d.Trigger, d.Archives))
		case Pass:
			got = append(got, fmt.Sprintf("sync-finished %s %q %v %d", d.Trigger, d.Archives, d.Results, d.Generation))
			if d.Err != nil {
				failed = &d
			}
		}
	}
	want := []string{
		`sync-started start []`, `sync-finished start [] map[] 0`,
		`sync-started watch ["a.zip"]`, `archive-seen a.zip`, `sync-finished watch ["a.zip"] map[installed:1] 1`,
		`sync-started install ["b.zip"]`, `archive-seen b.zip`, `sync-finished install ["b.zip"] map[installed:1] 2`,
		`pack-disabled {Pack:pack-a Version:1.0.0 Generation:3}`,
		`pack-enabled {Pack:pack-a Version:1.0.0 Generation:4}`,
		`pack-removed {Pack:pack-b Version:2.0.0 Generation:5}`,
		`sync-started request []`, `sync-finished request [] map[] 0`,
		`sync-started request []`, `sync-finished request [] map[] 0`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("events:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if failed == nil || !strings.Contains(failed.Err.Error(), "read processing folder") || failed.Fingerprint != "" || failed.Generation != 0 {
		t.Errorf("the failed pass's sync-finished = %+v; want its error and no fingerprint", failed)
	}
}

// TestStatusDoorsOfEnabledPacks: status counts the doors of every pack,
// and apart those of the enabled packs, which the 256-door limit counts.
func TestStatusDoorsOfEnabledPacks(t *testing.T) {
	e := newEnv(t)
	r := startRunner(t, e.options(), RunnerOptions{})
	e.dropPack(t, "a.zip", spec{id: "pack-a", version: "1.0.0", doors: 3})
	e.dropPack(t, "b.zip", spec{id: "pack-b", version: "1.0.0", doors: 2})
	if _, err := r.SyncDrop(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Disable(t.Context(), "pack-a"); err != nil {
		t.Fatal(err)
	}
	if c := r.Status().Counts; c.Doors != 5 || c.EnabledDoors != 2 || c.Enabled != 1 {
		t.Errorf("counts = %+v; want 5 doors, 2 of them in the one enabled pack", c)
	}
}

// TestLiftClassWarningOneText: the status socket warns about ignored lift
// classes in the words the sync's summary uses, not in words of its own.
func TestLiftClassWarningOneText(t *testing.T) {
	e := newEnv(t)
	r := startRunner(t, e.options(), RunnerOptions{})
	e.dropPack(t, "lifts.zip", spec{id: "many-lifts", version: "1.0.0", lifts: 17})
	sum, err := r.SyncDrop(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Warnings) != 1 {
		t.Fatalf("summary warnings = %q; want one about the ignored lift class", sum.Warnings)
	}
	if st := r.Status(); !slices.Contains(st.Warnings, sum.Warnings[0]) {
		t.Errorf("status warnings = %q; want the summary's %q", st.Warnings, sum.Warnings[0])
	}
}

// TestNativeOffDoorsNotWorkable: with [deploy] native = false, doors are
// not reported workable even when every gating mod is at its minimum, and
// status says why.
func TestNativeOffDoorsNotWorkable(t *testing.T) {
	e := newEnv(t)
	for mod, v := range map[string]string{native.ModForge: native.MinForge, native.ModLobby: native.MinLobby, native.ModLevelLoader: native.MinLevelLoader} {
		if err := os.MkdirAll(filepath.Join(e.mods, mod), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(e.mods, mod, native.ModVersionFile), []byte(v+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	opts := e.options()
	opts.DeployLua, opts.DeployNative = true, false
	p, _, err := Open(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	m, _ := p.DeployModules(t.Context())
	if !m.Gates.DoorAutomation {
		t.Fatalf("gates = %+v; want the gates open (every mod at its minimum)", m.Gates)
	}
	if m.DoorAutomation || m.DoorAutomationOff != NativeOff {
		t.Errorf("DeployModules with native off: door automation %v, off because %q; want false because %q", m.DoorAutomation, m.DoorAutomationOff, NativeOff)
	}
}
