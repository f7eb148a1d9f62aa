package pipeline

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/installer/place"
	"github.com/mjolnir-forge/forgesync/installer/store"
	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
	"github.com/mjolnir-forge/forgesync/internal/errkind"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// heldPak returns a fault env in which c.pak (of pack-c) is the file the
// game holds once fe.set(syscall.EBUSY) is called.
func heldPak(t *testing.T) *faultEnv {
	return newFaultEnv(t, func(e *env, p string) bool {
		return filepath.Base(p) == "c.pak" && strings.HasPrefix(p, e.paks)
	})
}

// content returns the content of an installed file.
func (e *env) content(t *testing.T, pack, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(e.paks, place.ContentRoot, pack, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// journaled reports whether the state on disk holds a set journal.
func (e *env) journaled(t *testing.T) bool {
	t.Helper()
	st, err := (&store.Store{Dir: e.state}).Load()
	if err != nil {
		t.Fatal(err)
	}
	return st.PendingSet != nil
}

// checkWaits checks that err is a WaitError about the held c.pak, saying
// what, in the drop path's words, naming no temp file.
func checkWaits(t *testing.T, err error, what string) {
	t.Helper()
	var we *waitError
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	if !errors.As(err, &we) || !errors.Is(err, atomicfile.ErrBusy) || !strings.HasPrefix(msg, what+": ") ||
		!strings.Contains(msg, "c.pak is held by another program (the game?); close it") || strings.Contains(msg, atomicfile.TempPrefix) {
		t.Fatalf("= %v; want a WaitError that says %q, names the held c.pak and no temp file", err, what)
	}
}

// TestHeldFileSetWaitsAndChangesNothing: a set apply and a rollback that
// meet a file the game holds put every pack back as it was (pack-a, placed
// before pack-c's held file, too), leave no journal, and say so as the drop
// path does; while the file is still held the daemon starts, an unrelated
// dropped pack installs, and enable and disable work; the rollback is not
// done later behind the user's back. On the old code the journal stayed
// and every start, sync and change failed finishing it.
func TestHeldFileSetWaitsAndChangesNothing(t *testing.T) {
	skipUnderRace(t)
	fe := heldPak(t)
	fe.dropPack(t, "a1.zip", spec{id: "pack-a", version: "1.0.0", content: map[string]string{"a.pak": "a1"}})
	fe.dropPack(t, "c1.zip", spec{id: "pack-c", version: "1.0.0", content: map[string]string{"c.pak": "c1"}})
	mustSync(t, fe.p, map[string]Result{"a1.zip": ResultInstalled, "c1.zip": ResultInstalled})
	set := newArchiveSet(t)
	v2 := []lock.Entry{
		set.add(t, spec{id: "pack-a", version: "2.0.0", content: map[string]string{"a.pak": "a2"}}),
		set.add(t, spec{id: "pack-c", version: "2.0.0", content: map[string]string{"c.pak": "c2"}}),
	}
	if _, err := fe.p.ApplySet(t.Context(), v2, SetOptions{Source: set.source}); err != nil {
		t.Fatal(err)
	}
	gen := fe.p.st.Generations[len(fe.p.st.Generations)-1].N

	fe.set(syscall.EBUSY)
	_, err := fe.p.Rollback(t.Context(), 0)
	checkWaits(t, err, "the rollback was not done")
	v3 := []lock.Entry{
		set.add(t, spec{id: "pack-a", version: "3.0.0", content: map[string]string{"a.pak": "a3"}}),
		set.add(t, spec{id: "pack-c", version: "3.0.0", content: map[string]string{"c.pak": "c3"}}),
	}
	fe.p.BeginPass()
	_, err = fe.p.ApplySet(t.Context(), v3, SetOptions{Source: set.source})
	checkWaits(t, err, "the set was not applied")
	if a, c := fe.content(t, "pack-a", "a.pak"), fe.content(t, "pack-c", "c.pak"); a != "a2" || c != "c2" || fe.journaled(t) {
		t.Fatalf("after the waits: a.pak %q, c.pak %q, journal %v; want a2, c2 and no journal", a, c, fe.journaled(t))
	}

	// Still held: the daemon starts, a dropped pack installs, changes work.
	fe.p.Close()
	p, rec, err := Open(t.Context(), fe.opts)
	if err != nil || rec.Waiting() {
		t.Fatalf("start with c.pak held = %v (%+v); want a start with nothing waiting", err, rec)
	}
	defer p.Close()
	fe.dropPack(t, "d1.zip", spec{id: "pack-d", version: "1.0.0", content: map[string]string{"d.pak": "d1"}})
	mustSync(t, p, map[string]Result{"d1.zip": ResultInstalled})
	if _, err := p.Disable(t.Context(), "pack-d"); err != nil {
		t.Fatalf("Disable with c.pak held = %v", err)
	}
	if _, err := p.Enable(t.Context(), "pack-d"); err != nil {
		t.Fatalf("Enable with c.pak held = %v", err)
	}

	// Released: the next pass does not roll back behind the user's back.
	fe.set(nil)
	p.BeginPass()
	mustSync(t, p, map[string]Result{})
	st, _ := p.state()
	if c := fe.content(t, "pack-c", "c.pak"); c != "c2" || st.Find("pack-c").Version != "2.0.0" || st.Generations[len(st.Generations)-1].Cause == CauseRollback {
		t.Fatalf("after release: c.pak %q, pack-c %s, last generation %+v (before the waits: %d); want c2, 2.0.0, no rollback",
			c, st.Find("pack-c").Version, st.Generations[len(st.Generations)-1], gen)
	}
	if _, err := p.ApplySet(t.Context(), v3, SetOptions{Source: set.source}); err != nil {
		t.Fatalf("ApplySet after release = %v", err)
	}
	if a, c := fe.content(t, "pack-a", "a.pak"), fe.content(t, "pack-c", "c.pak"); a != "a3" || c != "c3" {
		t.Fatalf("after release: a.pak %q, c.pak %q; want a3, c3", a, c)
	}
}

// errCrash is the panic that stands for a crash in the middle of a step.
var errCrash = errors.New("crash")

// crashAfter opens a pipeline on fe's folders that panics (a crash, for
// the test) at step, runs op on it, and closes it.
func crashAfter(t *testing.T, fe *faultEnv, step string, op func(p *Pipeline)) {
	t.Helper()
	opts := fe.opts
	opts.Step = func(name string) {
		if name == step {
			panic(errCrash)
		}
	}
	p, _, err := Open(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	defer func() {
		if r := recover(); r != errCrash {
			t.Fatalf("no crash at %s (%v)", step, r)
		}
	}()
	op(p)
}

// TestInterruptedSetWaitsForHeldFile: a set apply a crash interrupted after
// its journal, finished at the next start while the game holds a file it
// needs, does not stop the start: the start says what waits (the
// interrupted set, the held file), a dropped archive goes back to drop and
// is named, a change waits, and once the file is released the next pass
// finishes the set and then installs the dropped archive. On the old code
// the start failed.
func TestInterruptedSetWaitsForHeldFile(t *testing.T) {
	skipUnderRace(t)
	fe := heldPak(t)
	fe.dropPack(t, "a1.zip", spec{id: "pack-a", version: "1.0.0", content: map[string]string{"a.pak": "a1"}})
	fe.dropPack(t, "c1.zip", spec{id: "pack-c", version: "1.0.0", content: map[string]string{"c.pak": "c1"}})
	mustSync(t, fe.p, map[string]Result{"a1.zip": ResultInstalled, "c1.zip": ResultInstalled})
	fe.p.Close()
	set := newArchiveSet(t)
	v2 := []lock.Entry{
		set.add(t, spec{id: "pack-a", version: "2.0.0", content: map[string]string{"a.pak": "a2"}}),
		set.add(t, spec{id: "pack-c", version: "2.0.0", content: map[string]string{"c.pak": "c2"}}),
	}
	crashAfter(t, fe, "journal", func(p *Pipeline) { p.ApplySet(t.Context(), v2, SetOptions{Source: set.source}) })
	if !fe.journaled(t) {
		t.Fatal("no journal after the crash")
	}

	fe.set(syscall.EBUSY)
	p, rec, err := Open(t.Context(), fe.opts)
	if err != nil {
		t.Fatalf("start with an interrupted set and c.pak held = %v; want a start", err)
	}
	defer p.Close()
	if !rec.Waiting() || len(rec.Pending) != 1 || !strings.Contains(rec.Pending[0].Message, "an interrupted set apply waits") ||
		!strings.Contains(rec.Pending[0].Message, "c.pak is held by another program") {
		t.Fatalf("start-up pending = %+v; want the interrupted set, waiting for the held c.pak", rec.Pending)
	}
	if a, c := fe.content(t, "pack-a", "a.pak"), fe.content(t, "pack-c", "c.pak"); a != "a1" || c != "c1" {
		t.Fatalf("a.pak %q, c.pak %q; want each pack whole (a1, c1)", a, c)
	}
	fe.dropPack(t, "d1.zip", spec{id: "pack-d", version: "1.0.0", content: map[string]string{"d.pak": "d1"}})
	sum := mustSync(t, p, map[string]Result{"d1.zip": ResultWaiting})
	if o := outcome(t, sum, "d1.zip"); !strings.Contains(o.Reasons[0].Message, "interrupted set apply") {
		t.Fatalf("d1.zip waits for %q; want the interrupted set named", o.Reasons[0].Message)
	}
	if got, _ := readyArchives(fe.drop); len(got) != 1 || len(listFiles(t, filepath.Join(fe.state, store.ProcessingDir))) != 0 {
		t.Fatalf("drop holds %v, processing %v; want d1.zip back in drop", got, listFiles(t, filepath.Join(fe.state, store.ProcessingDir)))
	}
	_, err = p.Enable(t.Context(), "pack-a")
	if we := (*waitError)(nil); !errors.As(err, &we) || !strings.Contains(err.Error(), "interrupted set apply") {
		t.Fatalf("Enable while the set waits = %v; want a WaitError naming it", err)
	}

	fe.set(nil)
	p.BeginPass()
	sum = mustSync(t, p, map[string]Result{"d1.zip": ResultInstalled})
	if sum.Waiting() || fe.journaled(t) {
		t.Fatalf("after release: %+v, journal %v; want the set finished", sum, fe.journaled(t))
	}
	if a, c := fe.content(t, "pack-a", "a.pak"), fe.content(t, "pack-c", "c.pak"); a != "a2" || c != "c2" {
		t.Fatalf("after release: a.pak %q, c.pak %q; want the set's a2, c2", a, c)
	}
}

// TestOnePassOneWait: with installed.txt held by the game, a command's pass
// (the start-up recovery, which must read and republish the inventory, a
// set apply and the deploy after it) waits one budget in all, not one per
// transaction: on the old code each had its own.
func TestOnePassOneWait(t *testing.T) {
	skipUnderRace(t)
	e := newEnv(t)
	p := e.open(t)
	e.dropPack(t, "a1.zip", spec{id: "pack-a", version: "1.0.0", content: map[string]string{"a.pak": "a1"}})
	mustSync(t, p, map[string]Result{"a1.zip": ResultInstalled})
	p.Close()
	// A game update wiped doors.txt: the start must publish again.
	if err := os.Remove(filepath.Join(InventoryDir(e.mods), "doors.txt")); err != nil {
		t.Fatal(err)
	}
	held := filepath.Join(InventoryDir(e.mods), "installed.txt")
	var waited time.Duration
	opts := e.options()
	opts.DeployLua = true
	opts.Renamer = atomicfile.Renamer{
		Rename: func(o, n string) error {
			if n == held {
				return &os.LinkError{Op: "rename", Old: o, New: n, Err: syscall.EBUSY}
			}
			return os.Rename(o, n)
		},
		OpenRead: func(n string) (*os.File, error) {
			if n == held {
				return nil, &os.PathError{Op: "open", Path: n, Err: syscall.EBUSY}
			}
			return os.Open(n)
		},
		Busy:  func(err error) bool { return errors.Is(err, syscall.EBUSY) },
		Sleep: func(d time.Duration) { waited += d },
	}
	p, rec, err := Open(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	set := newArchiveSet(t)
	pins := []lock.Entry{set.add(t, spec{id: "pack-a", version: "2.0.0", content: map[string]string{"a.pak": "a2"}})}
	sum, err := p.ApplySet(t.Context(), pins, SetOptions{Source: set.source})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Deploy(t.Context()); err != nil {
		t.Fatal(err)
	}
	if waited > atomicfile.DefaultMaxWait {
		t.Errorf("the pass waited %v for installed.txt; want one wait in all, at most %v", waited, atomicfile.DefaultMaxWait)
	}
	if !rec.Waiting() || !sum.Waiting() || !strings.HasSuffix(sum.Pending[0].File, "installed.txt") {
		t.Errorf("recovery pending %+v, set pending %+v; want both to say installed.txt waits", rec.Pending, sum.Pending)
	}
}

// TestRunnerRetriesWhatWaits: the daemon's writer tries again what a pass
// left waiting (here the inventory a game held) at its next period, with
// nothing dropped; on the old code it waited for the next archive or a
// restart.
func TestRunnerRetriesWhatWaits(t *testing.T) {
	e := newEnv(t)
	rec := &recorder{signal: make(chan struct{}, 1)}
	held := filepath.Join(InventoryDir(e.mods), "installed.txt")
	var holding atomic.Bool
	opts := e.options()
	opts.Observer = rec
	opts.Renamer = atomicfile.Renamer{
		Rename: func(o, n string) error {
			if n == held && holding.Load() {
				return &os.LinkError{Op: "rename", Old: o, New: n, Err: syscall.EBUSY}
			}
			return os.Rename(o, n)
		},
		Busy:    func(err error) bool { return errors.Is(err, syscall.EBUSY) },
		MaxWait: time.Millisecond,
		Sleep:   func(time.Duration) {},
	}
	r := startRunner(t, opts, RunnerOptions{Deploy: true, Redeploy: 10 * time.Millisecond})
	holding.Store(true)
	e.dropPack(t, "a1.zip", spec{id: "pack-a", version: "1.0.0", content: map[string]string{"a.pak": "a1"}})
	sum, err := r.SyncDrop(t.Context())
	if err != nil || !sum.Waiting() {
		t.Fatalf("SyncDrop with installed.txt held = %+v, %v; want its publication pending", sum, err)
	}
	if s := r.Snapshot(); s.State == StateError || s.LastSync.Result != SyncWaiting || !strings.Contains(s.LastSync.Error, "installed.txt is held") ||
		strings.Contains(s.LastSync.Error, atomicfile.TempPrefix) {
		t.Fatalf("status = %s, %+v; want the last sync waiting on installed.txt, no error, no temp name", s.State, s.LastSync)
	}
	seen := len(rec.events())
	holding.Store(false)
	rec.waitFor(t, "installed.txt published by a pass nothing was dropped for", func(all []any) bool {
		for _, d := range all[seen:] {
			if ip, ok := d.(published); ok && slices.Contains(ip.Files, "installed.txt") {
				return true
			}
		}
		return false
	})
	if !strings.Contains(e.inv("installed.txt"), "pack-a") {
		t.Fatalf("installed.txt:\n%s\nwant pack-a", e.inv("installed.txt"))
	}
}

// TestRunnerSetWaitIsNotAnError: status calls a set apply that a held file
// stopped before it changed anything waiting, not an error.
func TestRunnerSetWaitIsNotAnError(t *testing.T) {
	fe := heldPak(t)
	fe.dropPack(t, "c1.zip", spec{id: "pack-c", version: "1.0.0", content: map[string]string{"c.pak": "c1"}})
	mustSync(t, fe.p, map[string]Result{"c1.zip": ResultInstalled})
	set := newArchiveSet(t)
	pins := []lock.Entry{set.add(t, spec{id: "pack-c", version: "2.0.0", content: map[string]string{"c.pak": "c2"}})}
	r := runRunner(t, fe.p, RunnerOptions{})
	fe.set(syscall.EBUSY)
	_, err := r.ApplySet(t.Context(), pins, SetOptions{Source: set.source})
	checkWaits(t, err, "the set was not applied")
	if s := r.Snapshot(); s.State != StateIdle || s.LastSync.Result != SyncWaiting || !strings.Contains(s.LastSync.Error, "c.pak is held") {
		t.Fatalf("status = %s, %+v; want idle, the last sync waiting on c.pak", s.State, s.LastSync)
	}
}

// TestDamagedKeptArchive: a kept archive whose bytes changed on disk is
// the machine's damage, not the set's: a rollback that needs it (no
// network) waits as a fault, saying so, with nothing changed; a set apply
// whose source has the right bytes takes them and keeps them instead of
// failing on every run. On the old code both were refusals
// ("archive does not match its sha256"), the set's on every run.
func TestDamagedKeptArchive(t *testing.T) {
	skipUnderRace(t)
	e := newEnv(t)
	p := e.open(t)
	set := newArchiveSet(t)
	v1 := []lock.Entry{set.add(t, spec{id: "pack-a", version: "1.0.0", content: map[string]string{"a.pak": "a1"}})}
	v2 := []lock.Entry{set.add(t, spec{id: "pack-a", version: "2.0.0", content: map[string]string{"a.pak": "a2"}})}
	for _, pins := range [][]lock.Entry{v1, v2} {
		if _, err := p.ApplySet(t.Context(), pins, SetOptions{Source: set.source}); err != nil {
			t.Fatal(err)
		}
	}
	kept := filepath.Join(e.state, store.ArchivesDir, store.KeptKey("pack-a", "1.0.0", v1[0].SHA256)+".zip")
	damage := func() {
		f, err := os.OpenFile(kept, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteAt([]byte("XX"), 40); err != nil {
			t.Fatal(err)
		}
	}
	// The kept archive and the source's copy are one file (as the cache's
	// and the store's are): the damage is both's, until the source gets
	// the bytes again (a download writes a new file).
	damage()
	v1[0] = set.add(t, spec{id: "pack-a", version: "1.0.0", content: map[string]string{"a.pak": "a1"}})
	_, err := p.Rollback(t.Context(), 0)
	if we := (*waitError)(nil); !errors.As(err, &we) || errkind.Of(err) != errkind.Internal ||
		!strings.Contains(err.Error(), "kept archive of pack-a 1.0.0 is damaged") {
		t.Fatalf("Rollback to a damaged kept archive = %v; want a fault saying it is damaged", err)
	}
	if a := e.content(t, "pack-a", "a.pak"); a != "a2" {
		t.Fatalf("a.pak %q after the refused rollback; want a2", a)
	}
	if _, err := p.ApplySet(t.Context(), v1, SetOptions{Source: set.source}); err != nil {
		t.Fatalf("ApplySet of v1 with its kept archive gone = %v; want it taken from the source", err)
	}
	if a := e.content(t, "pack-a", "a.pak"); a != "a1" || fileSHA(t, kept) != v1[0].SHA256 {
		t.Fatalf("a.pak %q, kept archive sha256 %s; want a1 and the pinned bytes kept again", a, fileSHA(t, kept))
	}
}
