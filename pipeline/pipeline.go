// Package pipeline owns every change to the installed state: claiming
// archives from the drop folder, one transaction per batch through a single
// writer (verdict, install rules, content placement, state, publication,
// identity bindings last), rejection with reasons, enable, disable and
// removal, and recovery after a crash at any point. Nothing a user dropped
// is lost: every archive ends installed, already installed, or rejected with
// its reasons beside it. It answers in its own values ([Summary], [Status],
// [History]) and tells what it does as it does it through the [Observer]
// it owns; it knows nothing of the wire, which the daemon converts to.
package pipeline

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mjolnir-forge/forgesync/installer/deploy"
	"github.com/mjolnir-forge/forgesync/installer/intake"
	"github.com/mjolnir-forge/forgesync/installer/place"
	"github.com/mjolnir-forge/forgesync/installer/store"
	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
	"github.com/mjolnir-forge/forgesync/internal/errkind"
	"github.com/mjolnir-forge/forgesync/internal/samepath"
	"github.com/mjolnir-forge/forgesync/inventory"
	"github.com/mjolnir-forge/forgesync/inventory/rejection"
)

// Options configure a Pipeline.
type Options struct {
	Drop  string // the drop folder
	Mods  string // the game's Mods folder; the inventory goes to Mods/MJOLNIRForgePacks
	Paks  string // pack content goes to Paks/MJOLNIRForge/<id>
	State string // the daemon's own data

	Limits intake.Limits
	// Extractor unpacks every archive, each in its child process; it is
	// required.
	Extractor *intake.Extractor
	Log       *slog.Logger
	// LockWait is how long to wait for another process holding the state.
	LockWait time.Duration
	// Now gives the time recorded in the state; nil means time.Now.
	Now func() time.Time
	// Step, when set, is called at every step boundary of a transaction
	// with a stable name ("claim:x.zip", "attempt:x.zip", "place:…",
	// "archive:x.zip", "state", "publish:…", "remove-content",
	// "rejections", "reject:x.zip", "done:x.zip").
	// Tests use it to stop the process at each boundary in turn.
	Step func(name string)
	// Observer, when set, hears what every transaction does: passes,
	// archives claimed (with their size), extraction progress, outcomes,
	// publications (with the number of enabled packs), generations,
	// deployed files and warnings (see [Observer]).
	Observer Observer
	// Renamer is used for publication renames; the zero value retries a
	// busy target on Windows.
	Renamer atomicfile.Renamer
	// DeployLua and DeployNative say what Deploy keeps in place; Modules
	// is the release bundle's modules/ folder holding the native module.
	DeployLua    bool
	DeployNative bool
	Modules      string
	// KeepGenerations is how many generations the state keeps (SPEC §11);
	// zero means DefaultKeepGenerations.
	KeepGenerations int
	// KeepProfiles is how many profiles besides own the state keeps (SPEC
	// §12), the least recently used pruned first; zero means 5.
	KeepProfiles int
}

// InventoryDir returns the folder of the inventory files under mods.
func InventoryDir(mods string) string { return filepath.Join(mods, "MJOLNIRForgePacks") }

// Outcome is the fate of one archive in a transaction: its result, the
// pack and version it held as far as they could be read, the version it
// replaced, and why it was rejected or waits.
type Outcome struct {
	Archive  string // the file name as dropped
	Result   Result
	Pack     string
	Version  string
	Previous string // the version replaced
	Reasons  []rejection.Reason
}

// Summary is the result of one transaction: each archive's outcome, the
// inventory files rewritten (unchanged ones are not), the warnings, how
// long it took, the generation it recorded (0 when the installed set did
// not change), what a set apply or a rollback changed, and the generation
// a rollback went back to (0 for every other transaction).
type Summary struct {
	Outcomes     []Outcome
	Published    []string
	Warnings     []string
	Duration     time.Duration
	Generation   int
	Set          *SetResult
	RolledBackTo int
	// Switched is what a profile switch changed; nil for every other
	// transaction.
	Switched *ProfileSwitch
	// Pending is what waits for the machine's condition besides archives:
	// an inventory not yet published, an interrupted set apply not yet
	// finished, each with what stops it and what to do.
	Pending []rejection.Reason
}

// Rejected reports whether any archive in the summary was rejected.
func (s *Summary) Rejected() bool {
	return slices.ContainsFunc(s.Outcomes, func(o Outcome) bool { return o.Result == ResultRejected })
}

// Waiting reports whether anything in the summary waits for a fault of the
// machine to pass: an archive, or what Pending names.
func (s *Summary) Waiting() bool {
	return len(s.Pending) > 0 || slices.ContainsFunc(s.Outcomes, func(o Outcome) bool { return o.Result == ResultWaiting })
}

// Merge returns the summary of s followed by later (a recovery pass, then
// the sync that came after it): their outcomes in order, each warning and
// each published file once, the durations added, the latest generation and
// set change, and what later leaves pending (it tried again what s left).
// A nil s gives later.
func (s *Summary) Merge(later *Summary) *Summary {
	if s == nil {
		return later
	}
	out := &Summary{
		Outcomes:   slices.Concat(s.Outcomes, later.Outcomes),
		Warnings:   []string{},
		Published:  []string{},
		Duration:   s.Duration + later.Duration,
		Generation: cmp.Or(later.Generation, s.Generation),
		Set:        cmp.Or(later.Set, s.Set),
		// What the recovery left waiting, the run after it tried again:
		// the later one says what still waits.
		Pending: later.Pending,
	}
	for _, w := range slices.Concat(s.Warnings, later.Warnings) {
		// The recovery and the run after it may say the same thing.
		if !slices.Contains(out.Warnings, w) {
			out.Warnings = append(out.Warnings, w)
		}
	}
	for _, f := range slices.Concat(s.Published, later.Published) {
		if !slices.Contains(out.Published, f) {
			out.Published = append(out.Published, f)
		}
	}
	if out.Outcomes == nil {
		out.Outcomes = []Outcome{}
	}
	return out
}

// Pipeline is the single writer of the installed state. Its methods must
// not be called concurrently; the daemon serialises them.
type Pipeline struct {
	opts  Options
	store *store.Store
	log   *slog.Logger
	// st and packs cache the state and its decoded packs between
	// transactions: while the lock is held no one else writes them. A
	// failed transaction drops them (its changes were never saved).
	st    *store.State
	packs []inventory.InstalledPack
	// unclaimed are the waiting outcomes of the archives Claim could not
	// move into processing, for its transaction's summary.
	unclaimed []Outcome
	// faulted are the archives a fault put back in drop, by name; see
	// FaultRetry.
	faulted map[string]faulted
	// budget is the one wait for held files of the pass under way: every
	// transaction, read and deploy of a pass spends it (see BeginPass).
	budget *atomicfile.Budget
	// said are the warnings logged in the pass under way, each logged
	// once per pass however many of its transactions meet it.
	said map[string]bool
	// obs hears what the pipeline does: Options.Observer, or a
	// NopObserver.
	obs Observer
	// trigger is what started the pass the next transaction runs
	// (TriggerStart, …), for the observer's PassStarted and
	// PassFinished; empty for a transaction that is not a pass over drop.
	trigger Trigger
	// stages times the steps of the running transaction, for its debug
	// log line.
	stages stageTimes
	// writes counts the state files the pipeline replaced (see
	// stateWrites).
	writes stateWrites
}

// passRenamer returns the configured Renamer with the Budget of the pass
// under way: every held file of the pass (claims, staging leftovers,
// content, publication, deploy) shares that one wait; then a held file
// fails at once, for a later pass.
func (p *Pipeline) passRenamer() atomicfile.Renamer {
	r := p.opts.Renamer
	if p.budget == nil {
		p.BeginPass()
	}
	r.Budget = p.budget
	return r
}

// BeginPass starts a pass: the wait for held files the Renamer's MaxWait
// allows is spent afresh by what follows, up to the next BeginPass. A
// command is one pass from Open to its end (the recovery, its own
// transaction and the deploy after it wait once in all); the daemon's
// writer begins one for each request and each periodic redeploy.
func (p *Pipeline) BeginPass() {
	p.budget = atomicfile.NewBudget(cmp.Or(p.opts.Renamer.MaxWait, atomicfile.DefaultMaxWait))
	p.said = nil
}

// passSaid reports whether the warning what was logged in this pass
// already, and marks it logged.
func (p *Pipeline) passSaid(what string) bool {
	if p.said[what] {
		return true
	}
	if p.said == nil {
		p.said = map[string]bool{}
	}
	p.said[what] = true
	return false
}

// ErrNotInstalled is returned by Enable, Disable and Remove for an unknown id.
// Its kind is [errkind.NotFound].
var ErrNotInstalled = errkind.New(errkind.NotFound, "pack is not installed")

// Open takes the state lock and recovers from any interrupted transaction:
// staging and temp files are removed, archives left in processing are
// processed again, and the inventory is republished from the state
// (byte-identical, so not rewritten, when nothing changed).
func Open(ctx context.Context, opts Options) (*Pipeline, *Summary, error) {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Limits == (intake.Limits{}) {
		opts.Limits = intake.DefaultLimits()
	}
	for _, d := range []string{opts.Drop, opts.Mods, opts.Paks, opts.State} {
		if d == "" {
			return nil, nil, errors.New("pipeline: drop, mods, paks and state folders are all required")
		}
	}
	if err := checkPlaces(opts.Drop, opts.State, opts.Paks); err != nil {
		return nil, nil, err
	}
	if opts.Extractor == nil {
		return nil, nil, errors.New("pipeline: an Extractor is required: archives are unpacked only in its child process")
	}
	// The inventory folder first: the default drop lies inside it, and
	// neither may be created through a link.
	if err := atomicfile.MkdirNoLinks(opts.Mods, filepath.Base(InventoryDir(opts.Mods)), 0o755); err != nil {
		return nil, nil, fmt.Errorf("create inventory folder: %w", err)
	}
	if err := os.MkdirAll(opts.Drop, 0o755); err != nil {
		return nil, nil, fmt.Errorf("create drop folder: %w", err)
	}
	lctx, cancel := context.WithTimeout(ctx, opts.LockWait)
	ps, err := store.Open(lctx, opts.State)
	cancel()
	if err != nil {
		return nil, nil, err
	}
	p := &Pipeline{opts: opts, store: ps, log: opts.Log, obs: opts.Observer}
	if p.obs == nil {
		p.obs = nopObserver{}
	}
	p.BeginPass()
	sum, err := p.recover(ctx)
	if err != nil {
		// The recovery's error is the answer; a lock that will not close
		// besides is this machine's, worth a line in the log.
		if cerr := ps.Close(); cerr != nil {
			p.log.Warn("could not release the state's lock after a failed start", "state", opts.State, "err", cerr)
		}
		return nil, nil, err
	}
	return p, sum, nil
}

// errPlaces is returned, wrapped with both folders, when the drop folder
// and the state or paks folder overlap: a sync would then reject its own
// state files as "not an archive", or claim installed content.
var errPlaces = errors.New("folders overlap")

// checkPlaces refuses a drop folder equal to or inside state or paks, and
// either of those inside drop, naming both, whatever their spelling.
func checkPlaces(drop, state, paks string) error {
	for _, o := range []struct{ name, dir string }{{"state", state}, {"paks", paks}} {
		if samepath.Overlap(drop, o.dir) {
			return fmt.Errorf("the drop folder %s and the %s folder %s %w: give each its own folder ([paths] drop and %s in the config)",
				drop, o.name, o.dir, errPlaces, o.name)
		}
	}
	return nil
}

// cleanStaging removes whatever the staging folder holds: nothing is
// staged between transactions, so anything there is the leftover of a
// crash or of a removal a scanner blocked. What still cannot go is logged
// and tried again at the next pass.
func (p *Pipeline) cleanStaging(r atomicfile.Renamer) {
	staging := p.store.Path(store.StagingDir)
	entries, _ := os.ReadDir(staging)
	for _, e := range entries {
		if err := atomicfile.RemoveAll(r, filepath.Join(staging, e.Name())); err != nil {
			p.log.Warn("could not remove staging leftovers; tried again at the next pass", "err", err)
		}
	}
}

// Close releases the state lock.
func (p *Pipeline) Close() error { return p.store.Close() }

// claimed reports an archive now in processing, with its size.
func (p *Pipeline) claimed(name string) {
	var size int64
	if info, err := os.Stat(p.store.Path(store.ProcessingDir, name)); err == nil {
		size = info.Size()
	}
	p.obs.ArchiveClaimed(name, size)
}

func (p *Pipeline) step(name string) {
	if p.opts.Step != nil {
		p.opts.Step(name)
	}
}

// recover finishes whatever a crash interrupted; see Open.
func (p *Pipeline) recover(ctx context.Context) (*Summary, error) {
	p.cleanStaging(p.opts.Renamer)
	p.cleanTemps()
	st, err := p.state()
	if err != nil {
		return nil, err
	}
	if err := p.restoreLastGeneration(st); err != nil {
		return nil, err
	}
	if err := p.cleanIncoming(st); err != nil {
		return nil, err
	}
	p.startPass(TriggerStart, nil)
	return p.transact(ctx, txnOptions{cause: CauseDrop})
}

// cleanTemps removes the temp files a crash left in every folder
// forgesync writes into: the state folder and every folder under it
// (processing, archives, manifests, incoming, the download cache, …),
// every pack's content folder under paks/MJOLNIRForge, the drop folder and
// drop/rejected/ (not the player's folders in drop), the inventory folder
// and the folders under mods it deploys into, whether deploying is on now
// or was once. Only names with atomicfile's temp prefix go, never through
// a link below a configured folder: nothing is removed elsewhere in the
// game's folders. A temp file held by a scanner is no reason not to start:
// it is logged, and tried again at the next start.
func (p *Pipeline) cleanTemps() {
	type folder struct {
		base, rel string // rel under base, the folder configured
		tree      bool   // every folder under it too
	}
	folders := []folder{{p.store.Dir, ".", true}, {p.opts.Paks, place.ContentRoot, true},
		{p.opts.Drop, ".", false}, {p.opts.Drop, rejectedDir, false}, {p.opts.Mods, filepath.Base(InventoryDir(p.opts.Mods)), false}}
	for _, d := range deploy.Folders(p.store.Dir, deploy.LuaScripts(p.opts.Mods), p.nativeDeployment()) {
		if rel, ok := samepath.Within(p.opts.Mods, d); ok && rel != "." {
			folders = append(folders, folder{p.opts.Mods, rel, false})
		}
	}
	for _, f := range folders {
		dir := filepath.Join(f.base, f.rel)
		if f.rel != "." {
			if err := atomicfile.NoLinks(f.base, f.rel); err != nil {
				// The deploy or the pass that writes there refuses it.
				p.log.Debug("leftover temp files not looked for behind a link", "dir", dir, "err", err)
				continue
			}
		}
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			continue // not there (or a file in its place, for a deploy to report): nothing of ours in it
		}
		var removed []string
		var err error
		if f.tree {
			removed, err = atomicfile.CleanTempTree(dir)
		} else {
			removed, err = atomicfile.CleanTemps(dir)
		}
		if err != nil {
			p.log.Warn("could not remove leftover temp files; tried again at the next start", "dir", dir, "err", err)
		}
		if len(removed) > 0 {
			p.log.Info("removed leftover temp files", "dir", dir, "files", removed)
		}
	}
}

// SyncDrop claims every ready archive in the drop folder and processes them as
// one transaction with one publication. It is an explicit request: the
// archives waiting for the machine's condition are tried at once.
func (p *Pipeline) SyncDrop(ctx context.Context) (*Summary, error) {
	names, err := readyArchives(p.opts.Drop)
	if err != nil {
		return nil, err
	}
	p.retryNow()
	return p.claim(ctx, names, TriggerRequest)
}

// Resume runs a pass that claims nothing: what earlier passes left
// waiting is tried again (an inventory file a game held, an interrupted
// set apply, an archive left in processing), as at start-up.
func (p *Pipeline) Resume(ctx context.Context) (*Summary, error) {
	return p.transact(ctx, txnOptions{cause: CauseDrop})
}

// owes reports whether a pass left something waiting that Resume would do:
// a journaled set, content or archives to delete, an archive in
// processing, or an inventory on disk that is not the state's.
func (p *Pipeline) owes() bool {
	st, err := p.state()
	if err != nil || st.PendingSet != nil || st.Pending() {
		return true
	}
	if entries, err := os.ReadDir(p.store.Path(store.ProcessingDir)); err != nil || len(entries) > 0 {
		return true
	}
	return !p.inventoryCurrent(st)
}

// retryNow lets the next Claim try the archives a fault put back in drop.
func (p *Pipeline) retryNow() { p.faulted = nil }

// Claim moves the named files from the drop folder into processing (by
// rename, so a file is claimed exactly once) and processes everything
// there as one transaction. An archive a fault put back in drop less than
// FaultRetry ago is left there, its outcome waiting as before.
func (p *Pipeline) Claim(ctx context.Context, names []string) (*Summary, error) {
	return p.claim(ctx, names, TriggerWatch)
}

// claim is Claim for a pass trigger started.
func (p *Pipeline) claim(ctx context.Context, names []string, trigger Trigger) (*Summary, error) {
	p.startPass(trigger, names)
	p.tidyRejected()
	p.unclaimed = nil
	r := p.passRenamer()
	// They are its transaction's, taken when it starts; none outlives it.
	defer func() { p.unclaimed = nil }()
	var claimed []string
	now := p.opts.Now()
	for _, n := range names {
		src := filepath.Join(p.opts.Drop, n)
		dst := p.store.Path(store.ProcessingDir, n)
		if f, ok := p.faulted[n]; ok && now.Before(f.retry) {
			p.unclaimed = append(p.unclaimed, Outcome{Archive: n, Result: ResultWaiting, Reasons: []rejection.Reason{f.reason}})
			continue
		}
		delete(p.faulted, n)
		if _, err := os.Stat(dst); err == nil {
			// A file of the same name is still being processed: wait for
			// the next pass rather than overwrite it.
			continue
		}
		// A rename, or across drives (drop under the game's folder, state
		// under the profile) a copy that is synced before the source goes.
		if err := atomicfile.Move(r, src, dst, 0o600); err != nil {
			if errors.Is(err, os.ErrNotExist) {
				continue // gone meanwhile
			}
			// Still being written or scanned, or any other failure of
			// this file's, not the batch's: the next pass claims it, and
			// the summary says it waits and why.
			p.log.Warn("could not claim an archive; claimed at the next pass", "archive", n, "err", err)
			p.unclaimed = append(p.unclaimed, Outcome{Archive: n, Result: ResultWaiting,
				Reasons: []rejection.Reason{faultReason(err, src, "the archive waits in drop and is claimed at the next pass")}})
			continue
		}
		p.step("claim:" + n)
		p.claimed(n)
		claimed = append(claimed, n)
	}
	sum, err := p.transact(ctx, txnOptions{cause: CauseDrop})
	if err != nil && ctx.Err() == nil {
		err = p.putBack(claimed, err)
	}
	return sum, err
}

// putBack returns to drop the archives a failed pass claimed (a failure
// of the state, not of an archive: nothing of them was committed), so that
// none waits in processing for a pass that nothing may start, and says so
// in err: status names them. They are claimed again once FaultRetry has
// passed, or at once by an explicit sync. One whose name drop holds again
// stays in processing, for the next pass.
func (p *Pipeline) putBack(names []string, err error) error {
	var back []string
	reason := faultReason(err, "", "the archive waits in drop and is retried at the next pass")
	for _, n := range names {
		src, dst := p.store.Path(store.ProcessingDir, n), filepath.Join(p.opts.Drop, n)
		if _, serr := os.Lstat(src); serr != nil {
			continue // the pass disposed of it before it failed
		}
		if _, serr := os.Lstat(dst); serr == nil {
			continue
		}
		if merr := atomicfile.Move(p.opts.Renamer, src, dst, 0o644); merr != nil {
			p.log.Warn("could not put back an archive of a failed pass; it is processed at the next pass", "archive", n, "err", merr)
			continue
		}
		if p.faulted == nil {
			p.faulted = map[string]faulted{}
		}
		p.faulted[n] = faulted{retry: p.opts.Now().Add(faultRetry), reason: reason}
		back = append(back, n)
	}
	if len(back) == 0 {
		return err
	}
	return fmt.Errorf("%w (put back in drop, retried at the next pass: %s)", err, strings.Join(back, ", "))
}

// InstallOptions says how Install holds its archive to the version rules.
type InstallOptions struct {
	// Force allows a same-version reinstall with other bytes and a
	// downgrade.
	Force bool
}

// Install processes one archive from anywhere (it is copied, the original
// stays where it is) as its own transaction.
func (p *Pipeline) Install(ctx context.Context, archive string, o InstallOptions) (*Summary, error) {
	name := filepath.Base(archive)
	dst := p.store.Path(store.ProcessingDir, name)
	in, err := os.Open(archive)
	if err != nil {
		return nil, fmt.Errorf("install: %w", err)
	}
	err = atomicfile.WriteWith(dst, 0o600, func(f *os.File) error {
		_, err := f.ReadFrom(in)
		return err
	})
	in.Close()
	if err != nil {
		return nil, fmt.Errorf("install: copy %s: %w", archive, err)
	}
	p.startPass(TriggerInstall, []string{name})
	p.claimed(name)
	return p.transact(ctx, txnOptions{cause: CauseInstall, install: name, force: o.Force})
}

// Enable enables an installed pack (refused when it would pass the door
// limit), publishing the new inventory.
func (p *Pipeline) Enable(ctx context.Context, id string) (*Summary, error) {
	return p.transact(ctx, txnOptions{cause: CauseEnable, change: &change{kind: changeEnable, id: id}})
}

// Disable keeps a pack installed but drops it from the text files.
func (p *Pipeline) Disable(ctx context.Context, id string) (*Summary, error) {
	return p.transact(ctx, txnOptions{cause: CauseDisable, change: &change{kind: changeDisable, id: id}})
}

// Remove uninstalls a pack: its entry, content and kept archive go.
func (p *Pipeline) Remove(ctx context.Context, id string) (*Summary, error) {
	return p.transact(ctx, txnOptions{cause: CauseRemove, change: &change{kind: changeRemove, id: id}})
}

// Packs returns the installed packs, sorted by id.
func (p *Pipeline) Packs() ([]inventory.InstalledPack, error) {
	st, err := p.state()
	if err != nil {
		return nil, err
	}
	return p.decoded(st)
}

// state returns the cached state, loading it on first use.
func (p *Pipeline) state() (*store.State, error) {
	if p.st == nil {
		st, err := p.store.Load()
		if err != nil {
			return nil, err
		}
		p.st, p.packs = st, nil
	}
	return p.st, nil
}

// decoded returns the packs of st, reading and validating their stored
// manifests on first use, sorted by id.
func (p *Pipeline) decoded(st *store.State) ([]inventory.InstalledPack, error) {
	if p.packs != nil {
		return p.packs, nil
	}
	out, err := decodePacks(p.store, st)
	if err != nil {
		return nil, err
	}
	p.packs = out
	return out, nil
}

// decodePacks returns the packs of st, reading and validating their stored
// manifests in s, sorted by id.
func decodePacks(s *store.Store, st *store.State) ([]inventory.InstalledPack, error) {
	out := make([]inventory.InstalledPack, 0, len(st.Packs))
	for _, r := range st.Packs {
		data, err := s.ReadManifest(r.Manifest)
		if errors.Is(err, atomicfile.ErrNotRegular) || errors.Is(err, atomicfile.ErrTooLarge) {
			return nil, s.ManifestRefused(r.Manifest, r.ID, err.Error())
		}
		if err != nil {
			return nil, fmt.Errorf("pack %s: %w", r.ID, err)
		}
		m, err := inventory.Decode("stored manifest of "+r.ID, data)
		if err != nil {
			return nil, s.ManifestRefused(r.Manifest, r.ID, err.Error())
		}
		out = append(out, inventory.InstalledPack{Manifest: m, Enabled: r.Enabled, ArchiveSHA256: r.ArchiveSHA256})
	}
	sortPacks(out)
	return out, nil
}

// ReadPacks returns the installed packs of the state folder, sorted by id,
// without taking the state's lock and without finishing what a crash or a
// held file interrupted (the state file is replaced atomically and stored
// manifests are named by content, so a read sees one committed state):
// `forgesync packs`, `diff` and `lock` answer beside a running daemon, and
// whatever the game holds.
func ReadPacks(state string) ([]inventory.InstalledPack, error) {
	s := &store.Store{Dir: state}
	st, err := s.Load()
	if err != nil {
		return nil, err
	}
	return decodePacks(s, st)
}

func sortPacks(packs []inventory.InstalledPack) {
	slices.SortFunc(packs, func(a, b inventory.InstalledPack) int { return strings.Compare(a.Manifest.ID, b.Manifest.ID) })
}

// txnOptions says what one transaction does besides processing the
// archives in processing (all a pass over drop does).
type txnOptions struct {
	cause store.Cause // the generation's cause: one of the Cause constants
	// change, when set, is applied first; a set is applied alone, the
	// archives in processing waiting for the next pass.
	change *change
	// rollbackTo is the generation a rollback goes back to; 0 otherwise.
	rollbackTo int
	// install is the archive Install copied into processing (its name
	// there): its rejection or fault is the install's, not the drop
	// folder's (see origin).
	install string
	// force lets the install's archive replace the installed version with
	// other bytes or a downgrade; no other archive of the pass.
	force bool
}

// origin says where the archive name in processing came from.
func (o txnOptions) origin(name string) origin {
	if o.install != "" && name == o.install {
		return fromInstall
	}
	return fromDrop
}

// origin is where an archive in processing came from, which decides where
// it goes when it is rejected or the machine fails it.
type origin int

const (
	// fromDrop: a pass claimed it from the drop folder; a rejection moves
	// it to drop/rejected/, a fault puts it back in drop.
	fromDrop origin = iota
	// fromInstall: Install copied it in; it is not the drop folder's, so
	// only the copy is removed.
	fromInstall
)

// changeKind is what a transaction's change does.
type changeKind int

const (
	changeEnable changeKind = iota + 1
	changeDisable
	changeRemove
	changeSet // a set apply or a rollback
	// changeProfile edits the profiles (save, remove, record) and leaves
	// the installed set as it is.
	changeProfile
)

// change is an enable, disable or remove of one pack in a transaction, or
// a set.
type change struct {
	kind changeKind
	id   string    // the pack enabled, disabled or removed
	set  *setApply // with changeSet
	// edit is the change of a changeProfile, run in the transaction.
	edit func(ctx context.Context, t *txn) error
}

// cleanIncoming removes the archives in incoming/ that no journaled set
// and no profile names: a set apply interrupted before its journal
// changed nothing.
func (p *Pipeline) cleanIncoming(st *store.State) error {
	keep := map[string]bool{}
	if st.PendingSet != nil {
		for _, gp := range st.PendingSet.Packs {
			keep[gp.SHA256] = true
		}
	}
	for _, pr := range st.Profiles {
		// A profile recorded just before a crash: its archives are kept
		// from here at the next switch to it.
		for _, gp := range pr.Packs {
			keep[gp.SHA256] = true
		}
	}
	entries, err := os.ReadDir(p.store.Path(store.IncomingDir))
	if err != nil {
		return fmt.Errorf("clean incoming archives: %w", err)
	}
	for _, e := range entries {
		if !keep[e.Name()] {
			if err := atomicfile.RemoveAll(p.opts.Renamer, p.store.Path(store.IncomingDir, e.Name())); err != nil {
				return fmt.Errorf("clean incoming archives: %w", err)
			}
		}
	}
	return nil
}

// rejectedDir is the folder under drop where rejected archives go; it is
// never scanned.
const rejectedDir = "rejected"

// readyArchives lists the regular files in drop that are not ignored, in
// name order. Folders (rejected/ among them) are skipped.
func readyArchives(drop string) ([]string, error) {
	entries, err := os.ReadDir(drop)
	if err != nil {
		return nil, fmt.Errorf("scan drop folder: %w", err)
	}
	var names []string
	for _, e := range entries {
		if !e.Type().IsRegular() || intake.IgnoredDropName(e.Name()) {
			continue
		}
		names = append(names, e.Name())
	}
	return names, nil
}

// Reconfigure takes new extraction limits and a new unpacker for the
// transactions that follow (a daemon's config reload: [limits],
// [performance]); a zero lim or a nil x keeps the one it has. It must run
// on the writer (see Runner.Do).
func (p *Pipeline) Reconfigure(lim intake.Limits, x *intake.Extractor) {
	if lim != (intake.Limits{}) {
		p.opts.Limits = lim
	}
	if x != nil {
		p.opts.Extractor = x
	}
}
