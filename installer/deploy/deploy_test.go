package deploy

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
	"github.com/mjolnir-forge/forgesync/lua"
)

var errLocked = errors.New("locked by the game (test)")

// locks plays a running game holding files open: a rename over a locked
// path fails busy. It counts renames onto each path.
type locks struct {
	mu      sync.Mutex
	locked  map[string]bool
	renames map[string]int
}

// ledgerEntries returns what the ledger in stateDir records, sorted by
// path; no ledger yet is an empty record.
func ledgerEntries(stateDir string) ([]ledgerEntry, error) {
	m, err := readLedger(filepath.Join(stateDir, ledgerName))
	if err != nil {
		return nil, err
	}
	return sortedEntries(m), nil
}

func newLocks() *locks { return &locks{locked: map[string]bool{}, renames: map[string]int{}} }

func (l *locks) set(p string, on bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.locked[p] = on
}

func (l *locks) count(p string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.renames[p]
}

func (l *locks) renamer() atomicfile.Renamer {
	return atomicfile.Renamer{
		Rename: func(oldpath, newpath string) error {
			l.mu.Lock()
			locked := l.locked[newpath]
			l.mu.Unlock()
			if locked {
				return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: errLocked}
			}
			l.mu.Lock()
			l.renames[newpath]++
			l.mu.Unlock()
			return os.Rename(oldpath, newpath)
		},
		Busy:    func(err error) bool { return errors.Is(err, errLocked) },
		MaxWait: time.Millisecond,
		Sleep:   func(time.Duration) {},
	}
}

type fixture struct {
	t      *testing.T
	state  string
	target string
	locks  *locks
	d      *Deployer
	clock  time.Time
}

func newFixture(t *testing.T) *fixture {
	root := t.TempDir()
	f := &fixture{t: t, state: filepath.Join(root, "state"), target: filepath.Join(root, "mods", "MJOLNIRLobby", "dlls"), locks: newLocks(),
		clock: time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)}
	f.d = &Deployer{StateDir: f.state, Renamer: f.locks.renamer(), Now: func() time.Time { return f.clock }}
	return f
}

func (f *fixture) deploy(src fs.FS, names ...string) []FileReport {
	f.t.Helper()
	reps, err := f.d.Deploy(f.t.Context(), Deployment{Component: "native", Source: src, Names: names, Target: f.target})
	if err != nil {
		f.t.Fatalf("Deploy(%v) error: %v", names, err)
	}
	return reps
}

func (f *fixture) path(name string) string { return filepath.Join(f.target, filepath.FromSlash(name)) }

func (f *fixture) read(name string) string {
	f.t.Helper()
	b, err := os.ReadFile(f.path(name))
	if err != nil {
		f.t.Fatal(err)
	}
	return string(b)
}

func (f *fixture) ledger() map[string]ledgerEntry {
	f.t.Helper()
	es, err := ledgerEntries(f.state)
	if err != nil {
		f.t.Fatal(err)
	}
	m := map[string]ledgerEntry{}
	for _, e := range es {
		m[e.Path] = e
	}
	return m
}

func hexSum(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

func statuses(reps []FileReport) []DeployStatus {
	var out []DeployStatus
	for _, r := range reps {
		out = append(out, r.Status)
	}
	return out
}

func src(files map[string]string) fstest.MapFS {
	m := fstest.MapFS{}
	for k, v := range files {
		m[k] = &fstest.MapFile{Data: []byte(v), Mode: 0o644}
	}
	return m
}

func TestDeployFreshThenUnchanged(t *testing.T) {
	f := newFixture(t)
	s := src(map[string]string{"forge_doors.dll": "MZ v1", "sub/readme.txt": "hello"})
	reps := f.deploy(s, "forge_doors.dll", "sub/readme.txt")
	if got := statuses(reps); !slices.Equal(got, []DeployStatus{Deployed, Deployed}) {
		t.Fatalf("first Deploy statuses = %v; want both deployed", got)
	}
	if got := f.read("forge_doors.dll"); got != "MZ v1" {
		t.Errorf("forge_doors.dll = %q; want %q", got, "MZ v1")
	}
	if got := f.read("sub/readme.txt"); got != "hello" {
		t.Errorf("sub/readme.txt = %q; want %q", got, "hello")
	}
	led := f.ledger()
	e, ok := led[f.path("forge_doors.dll")]
	if !ok || e.SHA256 != hexSum("MZ v1") || e.Component != "native" || !e.Time.Equal(f.clock) {
		t.Errorf("ledger entry = %+v; want sha %s, component native, time %s", e, hexSum("MZ v1"), f.clock)
	}
	if reps[0].SHA256 != hexSum("MZ v1") || reps[0].Path != f.path("forge_doors.dll") {
		t.Errorf("report = %+v; want sha and path of forge_doors.dll", reps[0])
	}

	f.clock = f.clock.Add(time.Hour)
	before := f.locks.count(f.path("forge_doors.dll"))
	reps = f.deploy(s, "forge_doors.dll", "sub/readme.txt")
	if got := statuses(reps); !slices.Equal(got, []DeployStatus{Unchanged, Unchanged}) {
		t.Fatalf("second Deploy statuses = %v; want both unchanged", got)
	}
	if n := f.locks.count(f.path("forge_doors.dll")) - before; n != 0 {
		t.Errorf("second Deploy renamed onto forge_doors.dll %d times; want 0", n)
	}
	if e := f.ledger()[f.path("forge_doors.dll")]; !e.Time.Equal(f.clock.Add(-time.Hour)) {
		t.Errorf("ledger time after an unchanged deploy = %s; want the time it was written", e.Time)
	}
}

func TestDeployChangedAndWiped(t *testing.T) {
	f := newFixture(t)
	f.deploy(src(map[string]string{"a.lua": "v1", "b.lua": "b"}), "a.lua", "b.lua")
	reps := f.deploy(src(map[string]string{"a.lua": "v2", "b.lua": "b"}), "a.lua", "b.lua")
	if got := statuses(reps); !slices.Equal(got, []DeployStatus{Deployed, Unchanged}) {
		t.Fatalf("statuses after a source change = %v; want [deployed unchanged]", got)
	}
	if got := f.read("a.lua"); got != "v2" {
		t.Errorf("a.lua = %q; want v2", got)
	}
	// A game update wipes the file: it is deployed again.
	if err := os.Remove(f.path("b.lua")); err != nil {
		t.Fatal(err)
	}
	reps = f.deploy(src(map[string]string{"a.lua": "v2", "b.lua": "b"}), "a.lua", "b.lua")
	if got := statuses(reps); !slices.Equal(got, []DeployStatus{Unchanged, Deployed}) {
		t.Fatalf("statuses after a wipe = %v; want [unchanged deployed]", got)
	}
}

func TestDeployNeverTouchesForeignFiles(t *testing.T) {
	f := newFixture(t)
	if err := os.MkdirAll(f.target, 0o755); err != nil {
		t.Fatal(err)
	}
	// A file forgesync never wrote, with other bytes.
	if err := os.WriteFile(f.path("lifts.lua"), []byte("-- the user's own"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A file forgesync never wrote, with the same bytes: adopted, not rewritten.
	if err := os.WriteFile(f.path("same.lua"), []byte("same"), 0o644); err != nil {
		t.Fatal(err)
	}
	reps := f.deploy(src(map[string]string{"lifts.lua": "ours", "same.lua": "same"}), "lifts.lua", "same.lua")
	if got := statuses(reps); !slices.Equal(got, []DeployStatus{ForeignSkipped, Unchanged}) {
		t.Fatalf("statuses = %v; want [foreign-skipped unchanged]", got)
	}
	if got := f.read("lifts.lua"); got != "-- the user's own" {
		t.Errorf("foreign lifts.lua = %q; want it untouched", got)
	}
	if !strings.Contains(reps[0].Reason, "not written by forgesync") || !strings.Contains(reps[0].Reason, f.path("lifts.lua")) {
		t.Errorf("foreign reason = %q; want the path and why", reps[0].Reason)
	}
	led := f.ledger()
	if _, ok := led[f.path("lifts.lua")]; ok {
		t.Error("ledger records the foreign file")
	}
	if e, ok := led[f.path("same.lua")]; !ok || e.SHA256 != hexSum("same") {
		t.Errorf("ledger entry for the identical file = %+v, %v; want it adopted", e, ok)
	}

	// A file forgesync wrote and someone changed since: left alone, and
	// forgesync no longer claims it.
	if err := os.WriteFile(f.path("same.lua"), []byte("edited by hand"), 0o644); err != nil {
		t.Fatal(err)
	}
	reps = f.deploy(src(map[string]string{"same.lua": "newer"}), "same.lua")
	if reps[0].Status != ForeignSkipped || !strings.Contains(reps[0].Reason, "changed since forgesync wrote it") {
		t.Fatalf("edited file report = %+v; want foreign-skipped, changed since written", reps[0])
	}
	if got := f.read("same.lua"); got != "edited by hand" {
		t.Errorf("edited same.lua = %q; want it untouched", got)
	}
	if _, ok := f.ledger()[f.path("same.lua")]; ok {
		t.Error("ledger still claims the edited file")
	}
	// Still left alone on the next deploy.
	reps = f.deploy(src(map[string]string{"same.lua": "newer"}), "same.lua")
	if reps[0].Status != ForeignSkipped {
		t.Errorf("edited file on the next deploy: %s; want foreign-skipped", reps[0].Status)
	}
}

func TestDeployLockedTargetIsStagedThenSwapped(t *testing.T) {
	f := newFixture(t)
	f.deploy(src(map[string]string{"forge_doors.dll": "v1"}), "forge_doors.dll")
	dll := f.path("forge_doors.dll")
	staged := dll + PendingSuffix

	f.locks.set(dll, true) // the game loaded the module
	reps := f.deploy(src(map[string]string{"forge_doors.dll": "v2"}), "forge_doors.dll")
	r := reps[0]
	if r.Status != StagedLocked || r.Staged != staged || !strings.Contains(r.Reason, "held open") {
		t.Fatalf("locked report = %+v; want staged-locked at %s", r, staged)
	}
	if got := f.read("forge_doors.dll"); got != "v1" {
		t.Errorf("locked target = %q; want v1 untouched", got)
	}
	if b, err := os.ReadFile(staged); err != nil || string(b) != "v2" {
		t.Errorf("staged file = %q, %v; want v2", b, err)
	}
	e := f.ledger()[dll]
	if e.SHA256 != hexSum("v1") || e.StagedSHA256 != hexSum("v2") {
		t.Errorf("ledger while staged = %+v; want sha v1, staged v2", e)
	}

	// Still locked, and a newer version arrives: the staged file follows.
	reps = f.deploy(src(map[string]string{"forge_doors.dll": "v3"}), "forge_doors.dll")
	if reps[0].Status != StagedLocked {
		t.Fatalf("second locked report = %+v; want staged-locked", reps[0])
	}
	if b, _ := os.ReadFile(staged); string(b) != "v3" {
		t.Errorf("staged file = %q; want v3", b)
	}

	// The game exits: the next deploy swaps the staged file in.
	f.locks.set(dll, false)
	reps = f.deploy(src(map[string]string{"forge_doors.dll": "v3"}), "forge_doors.dll")
	if reps[0].Status != Deployed {
		t.Fatalf("report after unlock = %+v; want deployed", reps[0])
	}
	if got := f.read("forge_doors.dll"); got != "v3" {
		t.Errorf("target after unlock = %q; want v3", got)
	}
	if _, err := os.Stat(staged); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("staged file after the swap: %v; want it gone", err)
	}
	e = f.ledger()[dll]
	if e.SHA256 != hexSum("v3") || e.StagedSHA256 != "" {
		t.Errorf("ledger after the swap = %+v; want sha v3, nothing staged", e)
	}
	entries, _ := os.ReadDir(f.target)
	for _, de := range entries {
		if strings.HasPrefix(de.Name(), atomicfile.TempPrefix) {
			t.Errorf("temp file left behind: %s", de.Name())
		}
	}
}

func TestDeployStagedThenSourceRevertedToTarget(t *testing.T) {
	f := newFixture(t)
	f.deploy(src(map[string]string{"m.dll": "v1"}), "m.dll")
	dll := f.path("m.dll")
	f.locks.set(dll, true)
	f.deploy(src(map[string]string{"m.dll": "v2"}), "m.dll")
	// The bundle goes back to v1 while the game still runs: nothing to
	// swap; the obsolete staged copy is removed.
	reps := f.deploy(src(map[string]string{"m.dll": "v1"}), "m.dll")
	if reps[0].Status != Unchanged {
		t.Fatalf("report = %+v; want unchanged", reps[0])
	}
	if _, err := os.Stat(dll + PendingSuffix); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("obsolete staged file: %v; want it removed", err)
	}
}

func TestDeployForeignFileInTheStagingSlot(t *testing.T) {
	f := newFixture(t)
	f.deploy(src(map[string]string{"m.dll": "v1"}), "m.dll")
	dll := f.path("m.dll")
	if err := os.WriteFile(dll+PendingSuffix, []byte("not ours"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.locks.set(dll, true)
	reps, err := f.d.Deploy(t.Context(), Deployment{Component: "native", Source: src(map[string]string{"m.dll": "v2"}), Names: []string{"m.dll"}, Target: f.target})
	if err == nil || reps[0].Status != DeployFailed || !strings.Contains(err.Error(), "did not write") {
		t.Fatalf("Deploy with a foreign staging file = %+v, %v; want failed naming the file", reps, err)
	}
	if b, _ := os.ReadFile(dll + PendingSuffix); string(b) != "not ours" {
		t.Errorf("foreign staging file = %q; want it untouched", b)
	}
}

func TestDeployErrors(t *testing.T) {
	f := newFixture(t)
	for _, name := range []string{"/abs.lua", "../up.lua", "a/../b.lua", `dir\file.lua`, "", ".", "a//b.lua"} {
		_, err := f.d.Deploy(t.Context(), Deployment{Component: "lua", Source: src(nil), Names: []string{name}, Target: f.target})
		if !errors.Is(err, errDeployName) || !strings.Contains(err.Error(), "lua") {
			t.Errorf("Deploy(name %q) error = %v; want ErrDeployName naming the component", name, err)
		}
	}
	if _, err := f.d.Deploy(t.Context(), Deployment{Source: src(nil), Target: f.target}); err == nil {
		t.Error("Deploy without a component: no error")
	}
	// A missing source fails that file only.
	reps, err := f.d.Deploy(t.Context(), Deployment{Component: "native", Source: src(map[string]string{"ok.txt": "x"}), Names: []string{"missing.dll", "ok.txt"}, Target: f.target})
	if err == nil || !strings.Contains(err.Error(), "missing.dll") {
		t.Errorf("Deploy with a missing source error = %v; want one naming missing.dll", err)
	}
	if got := statuses(reps); !slices.Equal(got, []DeployStatus{DeployFailed, Deployed}) {
		t.Errorf("statuses = %v; want [failed deployed]", got)
	}
	// A cancelled context stops before the first file.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	reps, err = f.d.Deploy(ctx, Deployment{Component: "native", Source: src(map[string]string{"ok.txt": "y"}), Names: []string{"ok.txt"}, Target: f.target})
	if !errors.Is(err, context.Canceled) || len(reps) != 0 {
		t.Errorf("Deploy(cancelled) = %v, %v; want no reports and context.Canceled", reps, err)
	}
}

func TestLedgerDecoding(t *testing.T) {
	cases := []struct {
		name, body, want string
	}{
		{"not json", "{", "unexpected EOF"},
		{"unknown field", `{"format":"forgesync-deployed","version":1,"files":[],"extra":1}`, "unknown field"},
		{"trailing data", `{"format":"forgesync-deployed","version":1,"files":[]} {}`, "data after the ledger"},
		{"other format", `{"format":"x","version":1,"files":[]}`, `format "x"`},
		{"relative path", `{"format":"forgesync-deployed","version":1,"files":[{"path":"a","component":"lua","sha256":"","time":"2026-01-01T00:00:00Z"}]}`, "not absolute"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, ledgerName)
			if err := os.WriteFile(p, []byte(c.body), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := ledgerEntries(dir)
			if !errors.Is(err, errLedger) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), p) {
				t.Errorf("ledgerEntries(%s) = %v; want ErrLedger naming %s and %q", c.name, err, p, c.want)
			}
			d := &Deployer{StateDir: dir}
			if _, err := d.Deploy(t.Context(), Deployment{Component: "lua", Source: src(map[string]string{"a": "a"}), Names: []string{"a"}, Target: filepath.Join(dir, "t")}); !errors.Is(err, errLedger) {
				t.Errorf("Deploy with a bad ledger = %v; want ErrLedger", err)
			}
			if _, err := os.Stat(filepath.Join(dir, "t", "a")); err == nil {
				t.Error("Deploy wrote a file although the ledger was unreadable")
			}
		})
	}
	if es, err := ledgerEntries(t.TempDir()); err != nil || len(es) != 0 {
		t.Errorf("ledgerEntries(no ledger) = %v, %v; want empty", es, err)
	}
}

// TestDeployLuaAndNativeShareTheLedger deploys the embedded Lua scripts and
// a module folder (os.DirFS, as the native module is) with the same
// Deployer; both stay recorded.
func TestDeployLuaAndNativeShareTheLedger(t *testing.T) {
	root := t.TempDir()
	mods := filepath.Join(root, "mods")
	modules := filepath.Join(root, "modules")
	if err := os.MkdirAll(modules, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(modules, "forge_doors.dll"), []byte("MZ"), 0o644); err != nil {
		t.Fatal(err)
	}
	d := &Deployer{StateDir: filepath.Join(root, "state")}
	reps, err := d.DeployLua(t.Context(), mods)
	if err != nil {
		t.Fatal(err)
	}
	if len(reps) != len(lua.Deployed()) {
		t.Fatalf("DeployLua = %d reports; want %d", len(reps), len(lua.Deployed()))
	}
	for _, r := range reps {
		want, err := fs.ReadFile(lua.Files, r.Name)
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(mods, "MJOLNIRLevelLoader", "Scripts", r.Name))
		if err != nil || string(got) != string(want) || r.Status != Deployed || r.Component != "lua" {
			t.Errorf("deployed %s: status %s, bytes equal %v, err %v", r.Name, r.Status, string(got) == string(want), err)
		}
	}
	for _, name := range []string{"tests", "sim"} {
		if _, err := os.Stat(filepath.Join(mods, "MJOLNIRLevelLoader", "Scripts", name)); err == nil {
			t.Errorf("%s/ was deployed; tests and the simulated engine must not be", name)
		}
	}
	if _, err := d.Deploy(t.Context(), Deployment{Component: "native", Source: os.DirFS(modules), Names: []string{"forge_doors.dll"}, Target: filepath.Join(mods, "MJOLNIRLobby", "dlls")}); err != nil {
		t.Fatal(err)
	}
	es, err := ledgerEntries(d.StateDir)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, e := range es {
		counts[e.Component]++
	}
	if counts["lua"] != len(lua.Deployed()) || counts["native"] != 1 {
		t.Errorf("ledger components = %v; want %d lua and 1 native", counts, len(lua.Deployed()))
	}
	reps, err = d.DeployLua(t.Context(), mods)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range reps {
		if r.Status != Unchanged {
			t.Errorf("second DeployLua %s: %s; want unchanged", r.Name, r.Status)
		}
	}
}

func TestDeployCleansCrashTemps(t *testing.T) {
	f := newFixture(t)
	if err := os.MkdirAll(f.target, 0o755); err != nil {
		t.Fatal(err)
	}
	leftover := filepath.Join(f.target, atomicfile.TempPrefix+"m.dll-abc")
	if err := os.WriteFile(leftover, []byte("half"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.deploy(src(map[string]string{"m.dll": "v1"}), "m.dll")
	if _, err := os.Stat(leftover); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("crash leftover %s: %v; want removed", leftover, err)
	}
}

func TestDeployRemovesFilesNoLongerNamed(t *testing.T) {
	f := newFixture(t)
	f.deploy(src(map[string]string{"old.lua": "old", "kept.lua": "k", "edited.lua": "e", "gone.lua": "g"}), "old.lua", "kept.lua", "edited.lua", "gone.lua")
	// Another component's file in the same folder is not this deployment's.
	if _, err := f.d.Deploy(t.Context(), Deployment{Component: "other", Source: src(map[string]string{"x.lua": "x"}), Names: []string{"x.lua"}, Target: f.target}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.path("edited.lua"), []byte("by hand"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(f.path("gone.lua")); err != nil {
		t.Fatal(err)
	}
	reps := f.deploy(src(map[string]string{"kept.lua": "k"}), "kept.lua")
	got := map[string]DeployStatus{}
	for _, r := range reps {
		got[r.Name] = r.Status
	}
	want := map[string]DeployStatus{"kept.lua": Unchanged, "old.lua": removed, "edited.lua": ForeignSkipped, "gone.lua": removed}
	if len(got) != len(want) {
		t.Fatalf("reports = %v; want %v", got, want)
	}
	for name, st := range want {
		if got[name] != st {
			t.Errorf("%s: %s; want %s", name, got[name], st)
		}
	}
	if _, err := os.Stat(f.path("old.lua")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("old.lua: %v; want removed", err)
	}
	if b, _ := os.ReadFile(f.path("edited.lua")); string(b) != "by hand" {
		t.Errorf("edited.lua = %q; want it untouched", b)
	}
	if b, _ := os.ReadFile(f.path("x.lua")); string(b) != "x" {
		t.Errorf("other component's x.lua = %q; want it untouched", b)
	}
	led := f.ledger()
	for _, name := range []string{"old.lua", "edited.lua", "gone.lua"} {
		if _, ok := led[f.path(name)]; ok {
			t.Errorf("ledger still records %s", name)
		}
	}
	if _, ok := led[f.path("x.lua")]; !ok {
		t.Error("ledger lost the other component's file")
	}
}
