package pipeline

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/installer/deploy"
	"github.com/mjolnir-forge/forgesync/installer/intake"
	"github.com/mjolnir-forge/forgesync/installer/place"
	"github.com/mjolnir-forge/forgesync/installer/store"
	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// faultEnv opens a pipeline whose renames and removals fail with fail
// (nil: they work) for the paths match selects, EBUSY counting as busy; the
// waits it asks for are summed in waited instead of slept.
type faultEnv struct {
	*env
	p      *Pipeline
	opts   Options // the pipeline's, for another start
	fail   atomic.Pointer[error]
	match  func(path string) bool
	waited time.Duration
}

func newFaultEnv(t *testing.T, match func(e *env, path string) bool) *faultEnv {
	t.Helper()
	fe := &faultEnv{env: newEnv(t)}
	fe.match = func(p string) bool { return match(fe.env, p) }
	injected := func(p string) error {
		if errp := fe.fail.Load(); errp != nil && fe.match(p) {
			return *errp
		}
		return nil
	}
	opts := fe.options()
	opts.Renamer = atomicfile.Renamer{
		Rename: func(o, n string) error {
			if err := injected(o); err != nil {
				return &os.LinkError{Op: "rename", Old: o, New: n, Err: err}
			}
			if err := injected(n); err != nil {
				return &os.LinkError{Op: "rename", Old: o, New: n, Err: err}
			}
			return os.Rename(o, n)
		},
		// A new pack's folder moved whole fails as a file's rename does.
		RenameFolder: func(o, n string) error {
			if err := injected(o); err != nil {
				return &os.LinkError{Op: "rename", Old: o, New: n, Err: err}
			}
			if err := injected(n); err != nil {
				return &os.LinkError{Op: "rename", Old: o, New: n, Err: err}
			}
			return atomicfile.Renamer{}.MoveFolder(o, n)
		},
		RemoveFile: func(p string) error {
			if err := injected(p); err != nil {
				return &os.PathError{Op: "remove", Path: p, Err: err}
			}
			return os.Remove(p)
		},
		Busy:  func(err error) bool { return errors.Is(err, syscall.EBUSY) },
		Sleep: func(d time.Duration) { fe.waited += d },
	}
	p, _, err := Open(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	fe.p, fe.opts = p, opts
	return fe
}

func (fe *faultEnv) set(err error) {
	if err == nil {
		fe.fail.Store(nil)
		return
	}
	fe.fail.Store(&err)
}

// pak returns the content of an installed file of pack-a.
func (fe *faultEnv) pak(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(fe.paks, place.ContentRoot, "pack-a", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// outcome returns the outcome of the named archive.
func outcome(t *testing.T, sum *Summary, name string) Outcome {
	t.Helper()
	for _, o := range sum.Outcomes {
		if o.Archive == name {
			return o
		}
	}
	t.Fatalf("no outcome for %s in %+v", name, sum.Outcomes)
	return Outcome{}
}

// TestUpgradeHeldFileIsFault: an upgrade whose second .pak the game holds
// is a fault, not a rejection: the old version stays whole and installed,
// the archive waits in drop, the summary names the archive, the file and
// what to do, the tries are not counted toward MaxAttempts, and the pass
// after the file is released completes the upgrade.
func TestUpgradeHeldFileIsFault(t *testing.T) {
	skipUnderRace(t)
	fe := newFaultEnv(t, func(e *env, p string) bool {
		return filepath.Base(p) == "b.pak" && strings.HasPrefix(p, e.paks)
	})
	fe.dropPack(t, "a1.zip", spec{id: "pack-a", version: "1.0.0", content: map[string]string{"a.pak": "a1", "b.pak": "b1"}})
	mustSync(t, fe.p, map[string]Result{"a1.zip": ResultInstalled})

	fe.set(syscall.EBUSY)
	for i := range MaxAttempts + 1 {
		fe.dropPack(t, "a2.zip", spec{id: "pack-a", version: "2.0.0", content: map[string]string{"a.pak": "a2", "b.pak": "b2"}})
		sum, err := fe.p.SyncDrop(t.Context())
		if err != nil {
			t.Fatalf("Sync #%d with b.pak held = %v", i, err)
		}
		o := outcome(t, sum, "a2.zip")
		if o.Result != ResultWaiting || !sum.Waiting() || sum.Rejected() {
			t.Fatalf("Sync #%d: a2.zip %s; want waiting, not rejected", i, o.Result)
		}
		msg := o.Reasons[0].Message
		for _, want := range []string{"b.pak", "held by another program", "close it", "waits in drop", "next pass"} {
			if !strings.Contains(msg, want) {
				t.Errorf("Sync #%d: reason %q lacks %q", i, msg, want)
			}
		}
		if a, b := fe.pak(t, "a.pak"), fe.pak(t, "b.pak"); a != "a1" || b != "b1" {
			t.Fatalf("Sync #%d: a.pak, b.pak = %q, %q; want the old version whole", i, a, b)
		}
		if !strings.Contains(fe.inv("installed.txt"), "1.0.0") {
			t.Fatalf("installed.txt = %q; want 1.0.0 still", fe.inv("installed.txt"))
		}
		if got, _ := readyArchives(fe.drop); len(got) != 1 || got[0] != "a2.zip" {
			t.Fatalf("Sync #%d: drop holds %v; want a2.zip waiting", i, got)
		}
		if got := listFiles(t, filepath.Join(fe.drop, rejectedDir)); len(got) != 0 {
			t.Fatalf("Sync #%d: rejected %v; want nothing", i, got)
		}
		if got := listFiles(t, filepath.Join(fe.state, store.ProcessingDir)); len(got) != 0 {
			t.Fatalf("Sync #%d: processing holds %v", i, got)
		}
	}
	fe.set(nil)
	sum := mustSync(t, fe.p, map[string]Result{"a2.zip": ResultUpgraded})
	if sum.Waiting() {
		t.Fatalf("summary after release still waits: %+v", sum)
	}
	if a, b := fe.pak(t, "a.pak"), fe.pak(t, "b.pak"); a != "a2" || b != "b2" {
		t.Fatalf("after release a.pak, b.pak = %q, %q; want the new version", a, b)
	}
	if got := listFiles(t, filepath.Join(fe.paks, place.ContentRoot)); strings.Join(got, ",") != "pack-a/a.pak,pack-a/b.pak" {
		t.Fatalf("paks holds %v; want the two files alone", got)
	}
}

// TestFullDiskIsFault: a disk that is full while the content is placed
// keeps the archive waiting, not rejected.
func TestFullDiskIsFault(t *testing.T) {
	fe := newFaultEnv(t, func(e *env, p string) bool { return strings.HasPrefix(p, e.paks) })
	fe.set(syscall.ENOSPC)
	fe.dropPack(t, "a1.zip", spec{id: "pack-a", version: "1.0.0", content: map[string]string{"a.pak": "a1"}})
	sum, err := fe.p.SyncDrop(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	o := outcome(t, sum, "a1.zip")
	if o.Result != ResultWaiting || !strings.Contains(o.Reasons[0].Message, "no space left") || !strings.Contains(o.Reasons[0].Message, "waits in drop") {
		t.Fatalf("a1.zip with the disk full: %s %q; want waiting, saying the disk is full", o.Result, o.Reasons)
	}
	if got, _ := readyArchives(fe.drop); len(got) != 1 {
		t.Fatalf("drop holds %v; want a1.zip waiting", got)
	}
	fe.set(nil)
	mustSync(t, fe.p, map[string]Result{"a1.zip": ResultInstalled})
}

// TestRemoveHeldPaksOneWait: removing a pack whose five paks the game
// holds waits one budget for the pass, not five seconds per file.
func TestRemoveHeldPaksOneWait(t *testing.T) {
	fe := newFaultEnv(t, func(e *env, p string) bool {
		return strings.HasSuffix(p, ".pak") && strings.HasPrefix(p, e.paks)
	})
	content := map[string]string{}
	for _, n := range []string{"1", "2", "3", "4", "5"} {
		content[n+".pak"] = n
	}
	fe.dropPack(t, "a1.zip", spec{id: "pack-a", version: "1.0.0", content: content})
	mustSync(t, fe.p, map[string]Result{"a1.zip": ResultInstalled})
	fe.set(syscall.EBUSY)
	sum, err := fe.p.Remove(t.Context(), "pack-a")
	if err != nil {
		t.Fatalf("Remove with the paks held = %v", err)
	}
	if fe.waited > atomicfile.DefaultMaxWait {
		t.Fatalf("Remove of 5 held paks waited %v; want at most one %v for the pass", fe.waited, atomicfile.DefaultMaxWait)
	}
	if len(sum.Warnings) == 0 {
		t.Fatalf("Remove with the paks held warned nothing")
	}
	fe.set(nil)
	fe.waited = 0
	mustSync(t, fe.p, map[string]Result{})
	if got := listFiles(t, filepath.Join(fe.paks, place.ContentRoot)); len(got) != 0 {
		t.Fatalf("paks after release holds %v; want nothing", got)
	}
}

// TestUnclaimedArchiveIsFault: an archive that could not be claimed (held
// past the wait) is not "nothing to do": the summary says it waits.
func TestUnclaimedArchiveIsFault(t *testing.T) {
	fe := newFaultEnv(t, func(e *env, p string) bool { return filepath.Base(p) == "a1.zip" && strings.HasPrefix(p, e.drop) })
	fe.dropPack(t, "a1.zip", spec{id: "pack-a", version: "1.0.0"})
	fe.set(syscall.EBUSY)
	sum, err := fe.p.SyncDrop(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	o := outcome(t, sum, "a1.zip")
	if o.Result != ResultWaiting || !strings.Contains(o.Reasons[0].Message, "held by another program") {
		t.Fatalf("a1.zip held in drop: %s %q; want waiting, held", o.Result, o.Reasons)
	}
	fe.set(nil)
	mustSync(t, fe.p, map[string]Result{"a1.zip": ResultInstalled})
}

// TestFaultMessage pins the words of a held file's reason.
func TestFaultMessage(t *testing.T) {
	fe := newFaultEnv(t, func(e *env, p string) bool {
		return filepath.Base(p) == "b.pak" && strings.HasPrefix(p, e.paks)
	})
	fe.dropPack(t, "a1.zip", spec{id: "pack-a", version: "1.0.0", content: map[string]string{"a.pak": "a1", "b.pak": "b1"}})
	mustSync(t, fe.p, map[string]Result{"a1.zip": ResultInstalled})
	fe.set(syscall.EBUSY)
	fe.dropPack(t, "a2.zip", spec{id: "pack-a", version: "2.0.0", content: map[string]string{"a.pak": "a2", "b.pak": "b2"}})
	sum, err := fe.p.SyncDrop(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	r := outcome(t, sum, "a2.zip").Reasons[0]
	file := filepath.Join(fe.paks, place.ContentRoot, "pack-a", "b.pak")
	want := file + " is held by another program (the game?); close it — the archive waits in drop and is retried at the next pass ("
	if r.Rule != RuleHeld || r.File != file || !strings.HasPrefix(r.Message, want) {
		t.Fatalf("reason = %s %s %q; want rule %s, file %s, message starting %q", r.Rule, r.File, r.Message, RuleHeld, file, want)
	}
}

// TestRunnerStatusSaysWaiting: status after a pass that left an archive
// waiting says so and why, instead of "ok".
func TestRunnerStatusSaysWaiting(t *testing.T) {
	fe := newFaultEnv(t, func(e *env, p string) bool { return strings.HasPrefix(p, e.paks) })
	fe.set(syscall.ENOSPC)
	fe.dropPack(t, "a1.zip", spec{id: "pack-a", version: "1.0.0", content: map[string]string{"a.pak": "a1"}})
	r := runRunner(t, fe.p, RunnerOptions{})
	if _, err := r.SyncDrop(t.Context()); err != nil {
		t.Fatal(err)
	}
	ls := r.Snapshot().LastSync
	if ls.Result != "waiting" || !strings.Contains(ls.Error, "a1.zip") || !strings.Contains(ls.Error, "the disk is full") {
		t.Fatalf("last sync = %+v; want waiting, naming a1.zip and the full disk", ls)
	}
}

// TestUnpackerNotStartedIsFault: an unpacker that cannot start (a missing
// or blocked program) is the machine's fault: the archive waits, it is not
// rejected as unreadable, and it installs once the unpacker starts.
func TestUnpackerNotStartedIsFault(t *testing.T) {
	e := newEnv(t)
	p := e.open(t)
	isolateFor(t, p, &intake.Isolation{Command: []string{filepath.Join(t.TempDir(), "no-such-unpacker")}})
	e.dropPack(t, "a1.zip", spec{id: "pack-a", version: "1.0.0"})
	sum, err := p.SyncDrop(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	o := outcome(t, sum, "a1.zip")
	if o.Result != ResultWaiting || o.Reasons[0].Rule != RuleFault || !strings.Contains(o.Reasons[0].Message, "start the unpacker") {
		t.Fatalf("a1.zip with no unpacker: %s %+v; want waiting, naming the unpacker", o.Result, o.Reasons)
	}
	if got, _ := readyArchives(e.drop); len(got) != 1 {
		t.Fatalf("drop holds %v; want a1.zip waiting", got)
	}
	p.opts.Extractor = useIsolation(testIsolation())
	mustSync(t, p, map[string]Result{"a1.zip": ResultInstalled})
}

// TestStarvedUnpackerIsFault: an unpacker that runs out of its wall-clock
// budget without having had the processor (here a child that only sleeps,
// as one at background priority does while the game takes both cores) is
// the machine's condition: the archive waits in drop and installs at the
// next pass, never rejected as "took too long to unpack".
func TestStarvedUnpackerIsFault(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep command:", err)
	}
	e := newEnv(t)
	p := e.open(t)
	isolateFor(t, p, &intake.Isolation{Command: []string{sleep, "30"}, Time: time.Second})
	e.dropPack(t, "a1.zip", spec{id: "pack-a", version: "1.0.0"})
	sum, err := p.SyncDrop(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	o := outcome(t, sum, "a1.zip")
	if o.Result != ResultWaiting || o.Reasons[0].Rule != RuleFault || !strings.Contains(o.Reasons[0].Message, "without getting the processor") ||
		!strings.Contains(o.Reasons[0].Message, "in its budget of 1 s") {
		t.Fatalf("a1.zip with a starved unpacker: %s %+v; want waiting, saying the unpacker was starved", o.Result, o.Reasons)
	}
	if got, _ := readyArchives(e.drop); len(got) != 1 {
		t.Fatalf("drop holds %v; want a1.zip waiting", got)
	}
	p.opts.Extractor = useIsolation(testIsolation())
	mustSync(t, p, map[string]Result{"a1.zip": ResultInstalled})
}

// TestReadOnlyTargets: with Windows' rules for a read-only file (a rename
// over it or its removal is denied, as for a held file), an upgrade over a
// .pak forgesync placed and then made read-only (attrib +r) clears it and
// succeeds; a read-only file in the way that forgesync did not place makes
// the archive wait, saying "read-only", never retried as held.
func TestReadOnlyTargets(t *testing.T) {
	e := newEnv(t)
	ro := func(p string) bool {
		fi, err := os.Lstat(p)
		return err == nil && fi.Mode().Perm()&0o200 == 0
	}
	opts := e.options()
	opts.Renamer = atomicfile.Renamer{
		Rename: func(o, n string) error {
			if ro(n) {
				return &os.LinkError{Op: "rename", Old: o, New: n, Err: syscall.EACCES}
			}
			return os.Rename(o, n)
		},
		RemoveFile: func(p string) error {
			if ro(p) {
				return &os.PathError{Op: "remove", Path: p, Err: syscall.EACCES}
			}
			return os.Remove(p)
		},
		Busy:  func(err error) bool { return errors.Is(err, syscall.EACCES) },
		Sleep: func(time.Duration) { t.Error("waited on a read-only file as if it were held") },
	}
	p, _, err := Open(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	dir := filepath.Join(e.paks, place.ContentRoot, "pack-a")
	e.dropPack(t, "a1.zip", spec{id: "pack-a", version: "1.0.0", content: map[string]string{"a.pak": "a1"}})
	mustSync(t, p, map[string]Result{"a1.zip": ResultInstalled})
	if err := os.Chmod(filepath.Join(dir, "a.pak"), 0o444); err != nil {
		t.Fatal(err)
	}
	e.dropPack(t, "a2.zip", spec{id: "pack-a", version: "2.0.0", content: map[string]string{"a.pak": "a2"}})
	mustSync(t, p, map[string]Result{"a2.zip": ResultUpgraded})
	if data, _ := os.ReadFile(filepath.Join(dir, "a.pak")); string(data) != "a2" {
		t.Fatalf("a.pak = %q after the upgrade; want a2", data)
	}
	// A file of the user's, read-only, where version 3 puts b.pak.
	if err := os.WriteFile(filepath.Join(dir, "b.pak"), []byte("mine"), 0o444); err != nil {
		t.Fatal(err)
	}
	e.dropPack(t, "a3.zip", spec{id: "pack-a", version: "3.0.0", content: map[string]string{"a.pak": "a3", "b.pak": "b3"}})
	sum, err := p.SyncDrop(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	o := outcome(t, sum, "a3.zip")
	if o.Result != ResultWaiting || o.Reasons[0].Rule != RuleReadOnly || !strings.Contains(o.Reasons[0].Message, filepath.Join(dir, "b.pak")+" is read-only") {
		t.Fatalf("a3.zip over a read-only file not ours: %s %+v; want waiting, read-only, naming b.pak", o.Result, o.Reasons)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "a.pak")); string(data) != "a2" {
		t.Fatalf("a.pak = %q after the refused upgrade; want a2 whole", data)
	}
}

// TestForeignFileInTheWay: a writable file of the player's own where a
// new version puts one (a read-only one is TestReadOnlyTargets') makes the
// archive wait, saying "in the way" and naming the file, which is left as
// it was, as is the old version (it was replaced, and gone at the commit);
// once it is moved away the archive installs.
func TestForeignFileInTheWay(t *testing.T) {
	skipUnderRace(t)
	e := newEnv(t)
	p := e.open(t)
	dir := filepath.Join(e.paks, place.ContentRoot, "pack-a")
	e.dropPack(t, "a1.zip", spec{id: "pack-a", version: "1.0.0", content: map[string]string{"a.pak": "a1"}})
	mustSync(t, p, map[string]Result{"a1.zip": ResultInstalled})
	mine := filepath.Join(dir, "b.pak")
	if err := os.WriteFile(mine, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.dropPack(t, "a2.zip", spec{id: "pack-a", version: "2.0.0", content: map[string]string{"a.pak": "a2", "b.pak": "b2"}})
	sum, err := p.SyncDrop(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	o := outcome(t, sum, "a2.zip")
	if o.Result != ResultWaiting || o.Reasons[0].Rule != RuleInTheWay || !strings.Contains(o.Reasons[0].Message, mine+" is in the pack's way") {
		t.Fatalf("a2.zip over a file not ours: %s %+v; want waiting, in-the-way, naming b.pak", o.Result, o.Reasons)
	}
	if data, _ := os.ReadFile(mine); string(data) != "mine" {
		t.Fatalf("the player's b.pak = %q; want it untouched", data)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "a.pak")); string(data) != "a1" {
		t.Fatalf("a.pak = %q after the refused upgrade; want a1 whole", data)
	}
	if err := os.Remove(mine); err != nil {
		t.Fatal(err)
	}
	mustSync(t, p, map[string]Result{"a2.zip": ResultUpgraded}) // an explicit sync tries it at once
}

// TestClaimHeldArchivesOneWait: three dropped archives held past the wait
// cost the pass one wait between them, not one each; they wait in drop.
func TestClaimHeldArchivesOneWait(t *testing.T) {
	fe := newFaultEnv(t, func(e *env, p string) bool { return strings.HasPrefix(p, e.drop) })
	for _, n := range []string{"a.zip", "b.zip", "c.zip"} {
		fe.dropPack(t, n, spec{id: "pack-" + n[:1], version: "1.0.0"})
	}
	fe.set(syscall.EBUSY)
	sum, err := fe.p.SyncDrop(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if fe.waited > atomicfile.DefaultMaxWait {
		t.Fatalf("claiming 3 held archives waited %v; want at most one %v for the pass", fe.waited, atomicfile.DefaultMaxWait)
	}
	for _, n := range []string{"a.zip", "b.zip", "c.zip"} {
		if o := outcome(t, sum, n); o.Result != ResultWaiting {
			t.Errorf("%s: %s; want waiting", n, o.Result)
		}
	}
}

// TestFaultRetryAtALaterPass: an archive that waits for a held file is not
// claimed again by the watcher's next batch (it would stall the writer one
// wait per batch while the game runs) until FaultRetry has passed; an
// explicit sync tries it at once.
func TestFaultRetryAtALaterPass(t *testing.T) {
	fe := newFaultEnv(t, func(e *env, p string) bool {
		return filepath.Base(p) == "b.pak" && strings.HasPrefix(p, e.paks)
	})
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	fe.p.opts.Now = func() time.Time { return now }
	fe.dropPack(t, "a1.zip", spec{id: "pack-a", version: "1.0.0", content: map[string]string{"a.pak": "a1", "b.pak": "b1"}})
	mustSync(t, fe.p, map[string]Result{"a1.zip": ResultInstalled})
	fe.set(syscall.EBUSY)
	fe.dropPack(t, "a2.zip", spec{id: "pack-a", version: "2.0.0", content: map[string]string{"a.pak": "a2", "b.pak": "b2"}})
	if o := outcome(t, mustClaim(t, fe.p, "a2.zip"), "a2.zip"); o.Result != ResultWaiting {
		t.Fatalf("a2.zip: %s; want waiting", o.Result)
	}
	// The watcher sees it back in drop at once: no new try, no new wait.
	// Each batch is a pass of its own, as the daemon's writer makes it.
	fe.waited = 0
	now = now.Add(faultRetry - time.Second)
	fe.p.BeginPass()
	sum := mustClaim(t, fe.p, "a2.zip")
	if o := outcome(t, sum, "a2.zip"); o.Result != ResultWaiting || fe.waited != 0 || !strings.Contains(o.Reasons[0].Message, "held by another program") {
		t.Fatalf("a2.zip claimed again before FaultRetry: %s %q after waiting %v; want waiting, the same reason, no wait", o.Result, o.Reasons, fe.waited)
	}
	if got, _ := readyArchives(fe.drop); len(got) != 1 {
		t.Fatalf("drop holds %v; want a2.zip", got)
	}
	// After FaultRetry the next batch tries it again.
	now = now.Add(2 * time.Second)
	fe.p.BeginPass()
	mustClaim(t, fe.p, "a2.zip")
	if fe.waited == 0 {
		t.Fatalf("a2.zip not tried again after FaultRetry")
	}
	// An explicit sync tries it at once.
	fe.set(nil)
	mustSync(t, fe.p, map[string]Result{"a2.zip": ResultUpgraded})
}

func mustClaim(t *testing.T, p *Pipeline, names ...string) *Summary {
	t.Helper()
	sum, err := p.Claim(t.Context(), names)
	if err != nil {
		t.Fatalf("Claim(%q) = %v", names, err)
	}
	return sum
}

// TestRunnerSyncRetriesAtOnce: the socket's sync (forgesync sync with a
// daemon running) is explicit: a waiting archive is tried at once, while
// the watcher's batch leaves it until FaultRetry.
func TestRunnerSyncRetriesAtOnce(t *testing.T) {
	fe := newFaultEnv(t, func(e *env, p string) bool { return strings.HasPrefix(p, e.paks) })
	fe.set(syscall.ENOSPC)
	fe.dropPack(t, "a1.zip", spec{id: "pack-a", version: "1.0.0", content: map[string]string{"a.pak": "a1"}})
	r := runRunner(t, fe.p, RunnerOptions{})
	if sum, err := r.Claim(t.Context(), []string{"a1.zip"}); err != nil || !sum.Waiting() {
		t.Fatalf("Claim = %+v, %v; want a1.zip waiting", sum, err)
	}
	fe.set(nil)
	if sum, err := r.Claim(t.Context(), []string{"a1.zip"}); err != nil || !sum.Waiting() {
		t.Fatalf("the watcher's next batch = %+v, %v; want a1.zip still waiting until FaultRetry", sum, err)
	}
	sum, err := r.SyncDrop(t.Context())
	if err != nil || len(sum.Outcomes) != 1 || sum.Outcomes[0].Result != ResultInstalled {
		t.Fatalf("Sync = %+v, %v; want a1.zip installed at once", sum, err)
	}
}

// TestIsFault: the machine's conditions are faults, whether they come as
// errors or, from the isolated unpacker, as its failure's words; an
// archive's own problems are not.
func TestIsFault(t *testing.T) {
	for _, tt := range []struct {
		name string
		err  error
		want bool
	}{
		{"held", fmt.Errorf("rename over x: %w", atomicfile.ErrBusy), true},
		{"read-only", fmt.Errorf("x %w", atomicfile.ErrReadOnly), true},
		{"disk full", &os.PathError{Op: "write", Path: "x", Err: syscall.ENOSPC}, true},
		{"child's disk full", errors.New("extract a.zip: write /state/staging/intake-1/content/a.pak: no space left on device"), true},
		{"child's disk full on Windows", errors.New("extract a.zip: write C:\\state\\staging\\a.pak: There is not enough space on the disk."), true},
		{"child's I/O error", errors.New("extract a.zip: read a.zip: input/output error"), true},
		{"unpacker not started", &os.PathError{Op: "fork/exec", Path: "/x", Err: syscall.ENOENT}, true},
		{"a name the file system refuses", &os.PathError{Op: "open", Path: "x", Err: syscall.ENAMETOOLONG}, false},
		{"damaged archive", errors.New("extract a.zip: zip: not a valid zip file"), false},
	} {
		if got := isFault(tt.err); got != tt.want {
			t.Errorf("isFault(%s: %v) = %v; want %v", tt.name, tt.err, got, tt.want)
		}
	}
}

// TestInstallFaultKeepsTheOriginal: an install the machine stops waits:
// the user's file stays where it is, the copy goes, and the reason says to
// install it again.
func TestInstallFaultKeepsTheOriginal(t *testing.T) {
	fe := newFaultEnv(t, func(e *env, p string) bool { return strings.HasPrefix(p, e.paks) })
	fe.set(syscall.ENOSPC)
	src := filepath.Join(fe.root, "elsewhere", "a1.zip")
	spec{id: "pack-a", version: "1.0.0", content: map[string]string{"a.pak": "a1"}}.zip(t, src)
	sum, err := fe.p.Install(t.Context(), src, InstallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	o := outcome(t, sum, "a1.zip")
	if o.Result != ResultWaiting || !strings.Contains(o.Reasons[0].Message, "install it again") {
		t.Fatalf("Install with the disk full: %s %q; want waiting, saying to install it again", o.Result, o.Reasons)
	}
	if _, err := os.Stat(src); err != nil {
		t.Fatalf("the original archive: %v", err)
	}
	if got := listFiles(t, filepath.Join(fe.state, store.ProcessingDir)); len(got) != 0 {
		t.Fatalf("processing holds %v", got)
	}
	if got, _ := readyArchives(fe.drop); len(got) != 0 {
		t.Fatalf("drop holds %v; an installed archive is not the drop folder's", got)
	}
}

// TestApplySetHeldFileLeavesPackWhole: a set apply whose upgrade meets a
// .pak the game holds fails as held, after one wait for the pass, and
// leaves that pack's old version whole (no mix of versions); once the file
// is released the apply completes.
func TestApplySetHeldFileLeavesPackWhole(t *testing.T) {
	fe := newFaultEnv(t, func(e *env, p string) bool {
		return filepath.Base(p) == "b.pak" && strings.HasPrefix(p, e.paks)
	})
	fe.dropPack(t, "a1.zip", spec{id: "pack-a", version: "1.0.0", content: map[string]string{"a.pak": "a1", "b.pak": "b1"}})
	mustSync(t, fe.p, map[string]Result{"a1.zip": ResultInstalled})

	set := newArchiveSet(t)
	pins := []lock.Entry{set.add(t, spec{id: "pack-a", version: "2.0.0", content: map[string]string{"a.pak": "a2", "b.pak": "b2"}})}
	fe.set(syscall.EBUSY)
	_, err := fe.p.ApplySet(t.Context(), pins, SetOptions{Source: set.source})
	if !errors.Is(err, atomicfile.ErrBusy) {
		t.Fatalf("ApplySet with b.pak held = %v; want ErrBusy", err)
	}
	if a, b := fe.pak(t, "a.pak"), fe.pak(t, "b.pak"); a != "a1" || b != "b1" {
		t.Fatalf("a.pak, b.pak = %q, %q; want the old version whole", a, b)
	}
	if fe.waited > atomicfile.DefaultMaxWait {
		t.Errorf("waited %v for one held file; want at most the pass's %v", fe.waited, atomicfile.DefaultMaxWait)
	}
	fe.set(nil)
	if _, err := fe.p.ApplySet(t.Context(), pins, SetOptions{Source: set.source}); err != nil {
		t.Fatalf("ApplySet after release = %v", err)
	}
	if a, b := fe.pak(t, "a.pak"), fe.pak(t, "b.pak"); a != "a2" || b != "b2" {
		t.Fatalf("after release a.pak, b.pak = %q, %q; want the new version", a, b)
	}
}

// TestDeployHeldFilesOneWait: when the game holds every Lua script, the
// deploy waits the Renamer's MaxWait once for all of them, not once per
// file, and each new version waits as a pending file.
func TestDeployHeldFilesOneWait(t *testing.T) {
	e := newEnv(t)
	scripts := filepath.Join(e.mods, "MJOLNIRLevelLoader", "Scripts")
	var waited time.Duration
	opts := e.options()
	opts.DeployLua = true
	opts.Renamer = atomicfile.Renamer{
		Rename: func(o, n string) error {
			if strings.HasPrefix(n, scripts) && !strings.HasSuffix(n, deploy.PendingSuffix) {
				return &os.LinkError{Op: "rename", Old: o, New: n, Err: syscall.EBUSY}
			}
			return os.Rename(o, n)
		},
		Busy:  func(err error) bool { return errors.Is(err, syscall.EBUSY) },
		Sleep: func(d time.Duration) { waited += d },
	}
	p, _, err := Open(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	waited = 0
	reports, err := p.Deploy(t.Context())
	if err != nil {
		t.Fatalf("Deploy = %v", err)
	}
	held := 0
	for _, r := range reports {
		if r.Status == deploy.StagedLocked {
			held++
		}
	}
	if held < 2 {
		t.Fatalf("Deploy reports %+v; want every script pending", reports)
	}
	if waited > atomicfile.DefaultMaxWait {
		t.Errorf("Deploy waited %v for %d held files; want at most one wait, %v", waited, held, atomicfile.DefaultMaxWait)
	}
}
