package pipeline

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mjolnir-forge/forgesync/installer/intake"
	"github.com/mjolnir-forge/forgesync/installer/place"
	"github.com/mjolnir-forge/forgesync/installer/store"
	"github.com/mjolnir-forge/forgesync/installer/verdict"
	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
	"github.com/mjolnir-forge/forgesync/internal/errkind"
	"github.com/mjolnir-forge/forgesync/internal/semver"
	"github.com/mjolnir-forge/forgesync/inventory"
	"github.com/mjolnir-forge/forgesync/inventory/rejection"
	"github.com/mjolnir-forge/forgesync/inventory/render"
)

// RuleUnreadable is the rule of a rejection Reason for an archive that
// could not be read at all.
const RuleUnreadable = "unreadable"

// Rules of the rejections the pipeline itself decides.
const (
	// RuleInstallFailed: a valid pack could not be put in place for a
	// reason that is not the machine's passing condition (a name the file
	// system refuses).
	RuleInstallFailed = "install-failed"
	// RuleFailedRepeatedly: the archive was tried MaxAttempts times.
	RuleFailedRepeatedly = "failed-repeatedly"
)

// txn is the work of one transaction.
type txn struct {
	p       *Pipeline
	sum     *Summary
	st      *store.State
	packs   []inventory.InstalledPack
	dirty   bool
	dispose []func() error // run after publication: deletions, faults
	// rejects are the archives from drop rejected, moved to
	// drop/rejected/ after publication (see disposeRejected).
	rejects []rejected
	// attemptsDirty says the counts in attempts differ from those
	// attemptsFile starts with: a try was appended, or a fault took one
	// back.
	attemptsDirty bool
	// attempts counts the tries of each archive in processing; see begin.
	attempts attempts
	cause    store.Cause // of the generation a committed change records
	// r is the pipeline's Renamer with this transaction's Budget: all the
	// files held in one pass share one wait, then fail at once as held.
	r atomicfile.Renamer
	// changes are the packs the change enabled, disabled or removed,
	// reported once it is committed.
	changes []PackChange
	// blocked, when not nil, says why an interrupted set apply (journaled
	// before a crash) cannot be finished yet: until it is, dropped
	// archives wait in drop and no change is applied.
	blocked *rejection.Reason
}

// transact runs one transaction: the change (if any), every archive in
// processing, then commit (state), publication (identity bindings last),
// removal of replaced content, and disposal of rejected and duplicate
// archives. The order is what makes a crash at any point recoverable: an
// archive leaves processing only after the state that installs it is
// written or its rejection is on disk, and content is deleted only after
// the inventory that no longer names it is published.
func (p *Pipeline) transact(ctx context.Context, o txnOptions) (*Summary, error) {
	start, flushes, writes := time.Now(), atomicfile.Fsyncs(), p.writes.snapshot()
	p.stages = stageTimes{last: start}
	trigger := p.trigger // set by startPass, whose sync-started went out
	p.trigger = ""
	sum, changes, err := p.run(ctx, o)
	if err != nil {
		// Nothing of a failed transaction was committed that the state on
		// disk does not say: forget the cache and read it again next time.
		p.st, p.packs = nil, nil
		if trigger != "" {
			p.obs.PassFinished(Pass{Trigger: trigger, Archives: []string{}, Results: map[Result]int{}, Duration: time.Since(start), Err: err})
		}
		return nil, err
	}
	sum.Duration = time.Since(start)
	// What the transaction cost the disk: each flush may be a journal
	// commit, the figure to watch when installs slow a running game.
	// Where its time went, step by step (see stageTimes).
	// The state files it replaced, the tries it appended and their
	// bytes: a bounded number of writes a pass, however many archives.
	w := p.writes.since(writes)
	p.log.Debug("transaction done", append([]any{"cause", o.cause, "duration", sum.Duration, "flushes", atomicfile.Fsyncs() - flushes,
		"state_writes", w.total(), "state_appends", w.appends, "state_bytes", w.bytes}, p.stages.attrs...)...)
	p.logChanges(sum, changes, o)
	p.report(sum, changes)
	if trigger != "" {
		p.passFinished(trigger, sum)
	}
	return sum, nil
}

// startPass tells the observer of a pass over drop that trigger started,
// before it claims anything, and marks the next transaction as that
// pass's: the observer hears it finish, whatever happens. The pass
// considers the archives left in processing, in the order it takes them,
// then the names it is about to claim from drop.
func (p *Pipeline) startPass(trigger Trigger, names []string) {
	p.trigger = trigger
	if p.opts.Observer == nil {
		return
	}
	archives, err := (&txn{p: p}).processing()
	if err != nil {
		archives = nil // the pass fails on it, and says so
	}
	listed := make(map[string]bool, len(archives)+len(names))
	for _, n := range archives {
		listed[n] = true
	}
	for _, n := range names {
		if !listed[n] {
			listed[n] = true
			archives = append(archives, n)
		}
	}
	p.obs.PassStarted(trigger, append([]string{}, archives...))
}

// passFinished tells the observer of a committed pass: every archive it
// gave an outcome, the outcomes by result, and the set it left.
func (p *Pipeline) passFinished(trigger Trigger, sum *Summary) {
	d := Pass{Trigger: trigger, Archives: []string{}, Results: map[Result]int{}, Duration: sum.Duration, Generation: sum.Generation}
	for _, o := range sum.Outcomes {
		d.Archives = append(d.Archives, o.Archive)
		d.Results[o.Result]++
	}
	if p.st != nil {
		d.Fingerprint = fingerprint(generationPacks(p.st))
	}
	p.obs.PassFinished(d)
}

// report tells the observer what a committed transaction did: the packs
// its change enabled, disabled or removed, its outcomes, its publication,
// the set it applied, the generation it recorded and its warnings.
func (p *Pipeline) report(sum *Summary, changes []PackChange) {
	if p.opts.Observer == nil {
		return
	}
	for _, c := range changes {
		c.Generation = sum.Generation
		p.obs.PackChanged(c)
	}
	for _, o := range sum.Outcomes {
		switch o.Result {
		case ResultWaiting:
			for _, r := range o.Reasons {
				p.obs.Warning(o.Archive + ": " + r.Message)
			}
		case ResultRejected:
			p.obs.PackRejected(o)
		default:
			p.obs.PackInstalled(o)
		}
	}
	if len(sum.Published) > 0 {
		enabled := 0
		for _, pk := range p.packs {
			if pk.Enabled {
				enabled++
			}
		}
		p.obs.Published(sum.Published, enabled)
	}
	if sum.Set != nil && sum.Set.Changed() {
		p.obs.SetApplied(*sum.Set)
	}
	if sum.Generation > 0 && p.st != nil && len(p.st.Generations) > 0 {
		p.obs.GenerationRecorded(p.st.Generations[len(p.st.Generations)-1])
	}
	for _, w := range sum.Warnings {
		p.obs.Warning(w)
	}
}

// progressEvery throttles the progress reports of one archive.
const progressEvery = 100 * time.Millisecond

// progress returns the extraction progress callback of one archive: it
// tells the observer at most once per progressEvery, and the last time.
func (p *Pipeline) progress(name string) func(done, total int64) {
	if p.opts.Observer == nil {
		return nil
	}
	var last time.Time
	return func(done, total int64) {
		if now := time.Now(); now.Sub(last) >= progressEvery || (total > 0 && done >= total) {
			last = now
			p.obs.Extracting(name, done, total)
		}
	}
}

func (p *Pipeline) run(ctx context.Context, o txnOptions) (_ *Summary, _ []PackChange, err error) {
	t, err := p.newTxn(ctx, o.change, o.cause)
	if err != nil {
		return nil, nil, err
	}
	defer func() {
		if err != nil && t.attemptsDirty {
			// A failed transaction's tries count, a fault's does not:
			// its counts are written as they are.
			if serr := p.saveAttempts(t.attempts); serr != nil {
				p.log.Warn("could not update the attempt counts", "err", serr)
			}
		}
	}()
	p.stages.mark("begin")
	if o.change == nil || o.change.kind != changeSet && o.change.kind != changeProfile {
		// A set (or a profile) is applied alone: dropped archives wait
		// for the next pass.
		if err := t.processAll(ctx, o); err != nil {
			return nil, nil, err
		}
	}
	sum, err := t.commit()
	return sum, t.changes, err
}

// newTxn starts a transaction: it finishes an interrupted set apply first,
// then applies the change, if any.
func (p *Pipeline) newTxn(ctx context.Context, ch *change, cause store.Cause) (*txn, error) {
	st, err := p.state()
	if err != nil {
		return nil, err
	}
	if err := p.requeueOrphans(st); err != nil {
		return nil, err
	}
	r := p.passRenamer()
	p.cleanStaging(r)
	t := &txn{p: p, st: st, cause: cause, sum: &Summary{Outcomes: []Outcome{}, Published: []string{}, Warnings: []string{}}, attempts: p.loadAttempts()}
	t.r = r
	// Archives a claim could not take wait in drop; the summary says why.
	t.sum.Outcomes = append(t.sum.Outcomes, p.unclaimed...)
	p.unclaimed = nil
	if ps := st.PendingSet; ps != nil {
		if err := t.finishInterrupted(ctx, ps); err != nil {
			return nil, err
		}
	}
	if ch != nil {
		if t.blocked != nil {
			return nil, &waitError{Reason: *t.blocked, err: errBlocked}
		}
		if err := t.loadPacks(); err != nil {
			return nil, err
		}
		if err := t.apply(ctx, ch); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// errBlocked is what a change waits for while an interrupted set apply
// cannot be finished.
var errBlocked = errors.New("an interrupted set apply must be finished first")

// finishInterrupted finishes a set apply or rollback that was journaled
// and not committed (a crash), from the archives it journaled. When what
// it needs is not there yet (a file the game holds, a full disk: the
// packs' content is as it was before this try) the journal stays, the
// transaction goes on blocked (see txn.blocked) and its summary says what
// waits: start-up never fails on the machine's condition, and every pass
// tries again.
func (t *txn) finishInterrupted(ctx context.Context, ps *store.PendingSet) error {
	p := t.p
	if err := t.loadPacks(); err != nil {
		return err
	}
	p.log.Info("finishing an interrupted set apply", "cause", ps.Cause)
	err := t.rollForward(ctx, ps, nil)
	if err == nil {
		return nil
	}
	if !errors.As(err, new(errNothingPlaced)) {
		return fmt.Errorf("finish the interrupted %s: %w", ps.Cause, err)
	}
	what := "set apply"
	if ps.Cause == CauseRollback {
		what = "rollback"
	}
	r := faultReason(err, placedFile(err, p.opts.Paks), "it is finished at the next pass; until then dropped archives wait in drop and changes wait")
	r.Message = "an interrupted " + what + " waits: " + r.Message
	t.blocked = &r
	t.sum.Pending = append(t.sum.Pending, r)
	p.log.Warn("an interrupted set apply waits; tried again at the next pass", "cause", ps.Cause, "err", err)
	return nil
}

// processAll processes every archive waiting in processing, in name order,
// until ctx ends (the rest then stays for the next pass).
func (t *txn) processAll(ctx context.Context, o txnOptions) error {
	names, err := t.processing()
	if err != nil {
		return err
	}
	for _, name := range names {
		if ctx.Err() != nil {
			break
		}
		if t.blocked != nil {
			// Installed now, it would be disabled or removed by the set
			// when it is finished: it waits for that, in drop.
			r := *t.blocked
			r.Message = "waits for " + strings.TrimPrefix(r.Message, "an ")
			t.wait(name, Outcome{Archive: name}, r, o.origin(name))
			continue
		}
		if err := t.loadPacks(); err != nil {
			return err
		}
		if rep := verdict.NotArchive(t.p.store.Path(store.ProcessingDir, name)); rep != nil {
			// No archive at all, as its first bytes tell: judged here, no
			// unpacker started, so no try to count.
			t.reject(name, Outcome{Archive: name}, rep.Problems, o.origin(name))
			continue
		}
		try, err := t.begin(name)
		if err != nil {
			return err
		}
		if !try {
			t.reject(name, Outcome{Archive: name}, []rejection.Reason{{Rule: RuleFailedRepeatedly, Message: failedRepeatedly(t.attempts[name])}}, o.origin(name))
			continue
		}
		if err := t.archive(ctx, name, o); err != nil {
			return err
		}
	}
	return nil
}

// commit writes the state (with a new generation) when anything changed,
// publishes the inventory, and only then removes what the new state no
// longer names.
func (t *txn) commit() (*Summary, error) {
	p, st := t.p, t.st
	if !t.dirty && !st.Pending() && p.inventoryCurrent(st) {
		// Nothing changed, and the files on disk are this state's.
		return t.done()
	}
	if err := t.loadPacks(); err != nil {
		return nil, err
	}
	inv, err := renderInventory(t.packs)
	if err != nil {
		return nil, err
	}
	// A committed state names the inventory it renders: a pass finds out
	// whether it is on disk by hashing the files there (see
	// inventoryCurrent), so no second save has to record that it was
	// published, and a power loss before or during the publication leaves
	// files the next pass finds different and publishes again.
	recorded := false
	if t.dirty {
		st.Inventory = inv.hashes
		before := lastGeneration(st)
		if err := t.pruneProfiles(); err != nil {
			return nil, err
		}
		if err := t.recordGeneration(); err != nil {
			return nil, err
		}
		if err := p.store.Save(st); err != nil {
			return nil, err
		}
		if lastGeneration(st) != before {
			p.copyGenerations(st)
		}
		recorded = true
		p.step("state")
		p.stages.mark("commit")
	}
	published, err := p.publish(t.r, inv)
	p.stages.mark("publish")
	if errors.Is(err, atomicfile.ErrBusy) {
		// A game or a scanner holds an inventory file past the retry.
		// What is committed stays committed; the files on disk are not
		// those the state names, so the next pass publishes again. Old
		// content stays until installed.txt no longer names it.
		if !p.passSaid("inventory not published") {
			p.log.Warn("inventory not published yet; tried again at the next pass", "err", err)
		}
		r := faultReason(err, busyFile(err), "the inventory is published at the next pass")
		r.Message = "inventory not published yet: " + r.Message
		t.sum.Pending = append(t.sum.Pending, r)
		return t.done()
	}
	if err != nil {
		return nil, err
	}
	t.sum.Published = published
	if st.Pending() {
		if err := t.removeReplaced(); err != nil {
			return nil, err
		}
		recorded = false
	}
	if !recorded {
		st.Inventory = inv.hashes
		// The commit above is on disk: this records what followed it,
		// which a power loss may lose, and the next pass then does again.
		if err := p.store.SaveLazily(st); err != nil {
			return nil, err
		}
		p.stages.mark("record")
	}
	return t.done()
}

// removeReplaced deletes, after publication, the content, kept archives
// and stored manifests the committed state no longer names. Content that
// cannot be removed yet stays pending for the next pass.
func (t *txn) removeReplaced() error {
	p, st := t.p, t.st
	var keep []string
	for _, r := range st.Packs {
		keep = append(keep, r.Content...)
	}
	leftover, err := place.RemoveContentLeftover(t.r, p.opts.Paks, st.PendingRemovals, keep)
	if err != nil {
		p.log.Warn("could not remove old content; tried again at the next pass", "err", err)
		t.sum.Warnings = append(t.sum.Warnings, err.Error())
	}
	for _, a := range st.PendingArchives {
		if err := t.removeKept(a); err != nil {
			return fmt.Errorf("remove replaced archive %s: %w", a, err)
		}
	}
	for _, m := range st.PendingManifests {
		if err := t.removeManifest(m); err != nil {
			return err
		}
	}
	p.step("remove-old")
	st.PendingRemovals, st.PendingArchives, st.PendingManifests = leftover, nil, nil
	return nil
}

// requeueOrphans moves back to processing every kept archive that no state
// record names: an archive moved to archives/ by a transaction whose state
// was never written (a crash, or a failure before the commit) is not
// installed, so it is processed again.
func (p *Pipeline) requeueOrphans(st *store.State) error {
	known := map[string]bool{}
	for _, r := range st.Packs {
		known[r.Archive] = true
	}
	needed := neededKeys(st)
	for _, a := range st.PendingArchives {
		known[a] = true // replaced: deleted after the next publication
	}
	archives, err := os.ReadDir(p.store.Path(store.ArchivesDir))
	if err != nil {
		return fmt.Errorf("read kept archives: %w", err)
	}
	for _, e := range archives {
		if !e.Type().IsRegular() || known[e.Name()] || needed[store.KeyOfKept(e.Name())] || strings.HasPrefix(e.Name(), atomicfile.TempPrefix) {
			continue
		}
		if err := p.opts.Renamer.Replace(p.store.Path(store.ArchivesDir, e.Name()), p.store.Path(store.ProcessingDir, e.Name())); err != nil {
			return fmt.Errorf("requeue archive %s: %w", e.Name(), err)
		}
		p.log.Info("processing again an archive whose install was not committed", "archive", e.Name())
	}
	return nil
}

// done disposes of the archives once the transaction is committed and
// published: rejected ones move beside their reasons, duplicates go. A
// disposal that fails is a warning, never a failure of the batch: the
// archive stays in processing, and its attempt count ends its retries.
// The exception is a folder of ours made a link (atomicfile.ErrLink): the
// machine, not an archive, is at fault, and the batch reports it.
// Counts of archives that left processing are forgotten, in one write.
func (t *txn) done() (*Summary, error) {
	if err := t.disposeRejected(); err != nil {
		return nil, err
	}
	for _, d := range t.dispose {
		if err := d(); err != nil {
			if errors.Is(err, atomicfile.ErrLink) {
				return nil, err
			}
			t.disposeFailed(err)
		}
	}
	if err := t.p.forget(t.attempts, t.attemptsDirty); err != nil {
		t.p.log.Warn("could not update the attempt counts", "err", err)
	}
	return t.finish(), nil
}

// loadPacks decodes the installed packs for the rules and the renderer.
func (t *txn) loadPacks() error {
	if t.packs != nil {
		return nil
	}
	packs, err := t.p.decoded(t.st)
	if err != nil {
		return err
	}
	t.packs = packs
	return nil
}

// finish adds the warnings about the installed set and logs the outcomes.
func (t *txn) finish() *Summary {
	p := t.p
	if t.packs != nil {
		p.packs = t.packs
	}
	if w := inventory.LiftClassWarning(p.packs); w != "" {
		t.sum.Warnings = append(t.sum.Warnings, w)
	}
	for _, o := range t.sum.Outcomes {
		p.log.Info("archive processed", "archive", o.Archive, "result", o.Result, "pack", o.Pack, "version", o.Version, "reasons", o.Reasons)
	}
	return t.sum
}

// processing lists the archives waiting in processing, in name order, but
// for kept archives put back by a recovery: those of one pack come oldest
// version first, so the newest ends installed and the older ones are
// superseded by it (in name order 1.10.0 would come before 1.9.0, and 1.9.0
// would then be rejected as a downgrade the player never dropped).
func (t *txn) processing() ([]string, error) {
	entries, err := os.ReadDir(t.p.store.Path(store.ProcessingDir))
	if err != nil {
		return nil, fmt.Errorf("read processing folder: %w", err)
	}
	var names []string
	for _, e := range entries {
		if e.Type().IsRegular() && !strings.HasPrefix(e.Name(), atomicfile.TempPrefix) {
			names = append(names, e.Name())
		}
	}
	slices.SortStableFunc(names, compareKept)
	return names, nil
}

// compareKept orders archive names by pack for kept archives (their id)
// and by name for the others; kept archives of one pack by version.
func compareKept(a, b string) int {
	pa, va, ka := keptOrder(a)
	pb, vb, kb := keptOrder(b)
	if c := strings.Compare(pa, pb); c != 0 {
		return c
	}
	switch {
	case ka && kb:
		if c := semver.Compare(va, vb); c != 0 {
			return c
		}
	case ka != kb:
		if ka {
			return -1
		}
		return 1
	}
	return strings.Compare(a, b)
}

// keptOrder returns the sort key of an archive name: for a kept archive
// its pack id and version, else the name itself.
func keptOrder(name string) (string, semver.Version, bool) {
	if id, version, ok := store.SplitKeptKey(store.KeyOfKept(name)); ok {
		if v, err := semver.Parse(version); err == nil {
			return id, v, true
		}
	}
	return name, semver.Version{}, false
}

func (t *txn) apply(ctx context.Context, ch *change) error {
	switch ch.kind {
	case changeSet:
		return t.applySet(ctx, ch.set)
	case changeProfile:
		return ch.edit(ctx, t)
	}
	rec := t.st.Find(ch.id)
	if rec == nil {
		return fmt.Errorf("%s: %w (see `forgesync packs`)", ch.id, ErrNotInstalled)
	}
	// Copy on write: the decoded packs are shared with published
	// snapshots, which readers hold while this runs.
	t.packs = slices.Clone(t.packs)
	i := slices.IndexFunc(t.packs, func(p inventory.InstalledPack) bool { return p.Manifest.ID == ch.id })
	switch ch.kind {
	case changeEnable:
		if v := inventory.CheckEnable(t.packs, ch.id); v.Refused() {
			return fmt.Errorf("enable %s: %s: %w", ch.id, reasonMessages(v.Reasons), errkind.Refused)
		}
		if !rec.Enabled {
			t.changes = append(t.changes, PackChange{Kind: ChangeEnabled, Pack: rec.ID, Version: rec.Version})
		}
		t.dirty = t.dirty || !rec.Enabled
		rec.Enabled, t.packs[i].Enabled = true, true
	case changeDisable:
		if rec.Enabled {
			t.changes = append(t.changes, PackChange{Kind: ChangeDisabled, Pack: rec.ID, Version: rec.Version})
		}
		t.dirty = t.dirty || rec.Enabled
		rec.Enabled, t.packs[i].Enabled = false, false
	case changeRemove:
		t.changes = append(t.changes, PackChange{Kind: ChangeRemoved, Pack: rec.ID, Version: rec.Version})
		t.st.PendingRemovals = append(t.st.PendingRemovals, rec.Content...)
		t.st.PendingArchives = append(t.st.PendingArchives, rec.Archive)
		t.st.PendingManifests = append(t.st.PendingManifests, rec.Manifest)
		t.st.Packs = slices.DeleteFunc(t.st.Packs, func(r store.PackRecord) bool { return r.ID == ch.id })
		t.packs = slices.Delete(t.packs, i, i+1)
		t.dirty = true
	default:
		return fmt.Errorf("pipeline: a change of unknown kind %d to %s", ch.kind, ch.id)
	}
	return nil
}

// archive processes one claimed archive; o says whether an install named
// it, and whether that install was forced.
func (t *txn) archive(ctx context.Context, name string, o txnOptions) error {
	p := t.p
	from := o.origin(name)
	force := o.force && from == fromInstall
	rep, staged, err := t.unpack(ctx, name)
	if err != nil {
		if ctx.Err() != nil {
			return nil // cancelled: it stays in processing
		}
		if isFault(err) {
			// Staging full, the unpacker not started: the machine's.
			t.fault(name, Outcome{Archive: name}, err, from)
			return nil
		}
		rep = &verdict.Report{Problems: []rejection.Reason{{Rule: RuleUnreadable, Message: "could not read the archive: " + err.Error()}}}
	}
	out := Outcome{Archive: name, Pack: rep.Pack.ID, Version: rep.Pack.Version}
	for _, n := range rep.Notes {
		// What the verdict left out without judging it (the files a Mac
		// or Windows adds) is said, as scan says it.
		t.sum.Warnings = append(t.sum.Warnings, name+": "+n)
	}
	if !rep.Valid {
		t.reject(name, out, rep.Problems, from)
		return nil
	}
	defer func() {
		if err := staged.Remove(); err != nil {
			p.log.Warn("could not remove staging; tried again at the next pass", "archive", name, "err", err)
		}
	}()
	m := rep.Manifest
	if t.st.CurrentProfile() != store.OwnProfile {
		// Another profile is on: the pack joins own, installed when own
		// is current again.
		return t.keepForOwn(name, out, staged, m, force, from)
	}
	cand := inventory.InstalledPack{Manifest: m, Enabled: true, ArchiveSHA256: staged.SHA256}
	if prev := t.st.Find(m.ID); prev != nil {
		cand.Enabled = prev.Enabled
	}
	v := inventory.CheckInstall(t.packs, cand, force)
	if v.Refused() {
		t.reject(name, out, v.Reasons, from)
		return nil
	}
	if v.Outcome == inventory.OutcomeAlready {
		t.already(name, out, t.st.Find(m.ID))
		return nil
	}
	placed, kept, manifest, err := t.place(name, staged, m)
	p.stages.mark("place")
	if errors.Is(err, atomicfile.ErrLink) {
		return fmt.Errorf("install %s: %w", name, err) // the machine's fault, see done
	}
	if err != nil && isFault(err) {
		// The machine's condition (a file the game holds, a full disk):
		// the archive waits for it to pass; the old version is whole.
		t.fault(name, out, err, from)
		return nil
	}
	if err != nil {
		t.installFailed(name, out, err, from)
		return nil
	}
	rec := store.PackRecord{ID: m.ID, Version: m.Version, Enabled: cand.Enabled, ArchiveSHA256: staged.SHA256,
		Archive: kept, InstalledAt: p.opts.Now().UTC(), Content: placed, Manifest: manifest}
	outcome, previous := t.record(rec, v.Outcome)
	out.Result, out.Previous = resultOf(outcome), previous
	t.packs = slices.DeleteFunc(slices.Clone(t.packs), func(p inventory.InstalledPack) bool { return p.Manifest.ID == m.ID })
	t.packs = append(t.packs, cand)
	sortPacks(t.packs)
	t.dirty = true
	t.sum.Outcomes = append(t.sum.Outcomes, out)
	return nil
}

// unpack unpacks the claimed archive name into staging, in the unpacker's
// child process; a child that died on it is started again, up to
// MaxAttempts deaths in all.
func (t *txn) unpack(ctx context.Context, name string) (*verdict.Report, *intake.Staged, error) {
	p := t.p
	path := p.store.Path(store.ProcessingDir, name)
	rep, staged, err := verdict.Archive(ctx, p.opts.Extractor, path, p.store.Path(store.StagingDir), p.opts.Limits, p.progress(name))
	for deaths := 1; err == nil && unpackerDied(rep); deaths++ {
		// A child that died once may have been killed by anything (the
		// machine short of memory): poison is dying on the same bytes
		// MaxAttempts times.
		if deaths == MaxAttempts {
			for i := range rep.Problems {
				rep.Problems[i].Message += fmt.Sprintf(" — it died on this archive %d times", deaths)
			}
			break
		}
		p.log.Warn("the unpacker died; unpacking again", "archive", name, "deaths", deaths, "reasons", rep.Problems)
		rep, staged, err = verdict.Archive(ctx, p.opts.Extractor, path, p.store.Path(store.StagingDir), p.opts.Limits, p.progress(name))
	}
	p.stages.mark("unpack")
	return rep, staged, err
}

// installFailed rejects an archive whose valid pack could not be put in
// place for a reason tied to it (a name the file system refuses): its
// rejection, not the batch's failure. The error is kept with its tries.
func (t *txn) installFailed(name string, out Outcome, err error, from origin) {
	t.p.log.Warn("could not install an archive", "archive", name, "err", err)
	a := t.attempts[name]
	a.Last = err.Error()
	t.attempts[name], t.attemptsDirty = a, true
	t.reject(name, out, []rejection.Reason{{Rule: RuleInstallFailed, Message: "could not install the pack: " + err.Error()}}, from)
}

// unpackerDied reports whether rep rejects an archive only because the
// isolated unpacker died on it, saying nothing of a limit.
func unpackerDied(rep *verdict.Report) bool {
	return !rep.Valid && len(rep.Problems) > 0 && !slices.ContainsFunc(rep.Problems, func(r rejection.Reason) bool {
		return r.Rule != intake.RuleUnpackerCrashed
	})
}

// place puts a valid pack's content in place, all or nothing, keeps its
// archive and stores its manifest. On failure it undoes what it did: the
// previous version's files are back, and the archive is back in
// processing.
func (t *txn) place(name string, staged *intake.Staged, m *inventory.Manifest) (placed []string, kept, manifest string, err error) {
	p := t.p
	path := p.store.Path(store.ProcessingDir, name)
	var owned []string
	if prev := t.st.Find(m.ID); prev != nil {
		owned = prev.Content
	}
	keptPath := ""
	var pl *place.Placement
	defer func() {
		if err == nil {
			return
		}
		if pl != nil {
			if rerr := pl.Undo(); rerr != nil {
				p.log.Warn("could not put back the content of a failed install", "err", rerr)
			}
		}
		if keptPath != "" {
			if rerr := p.opts.Renamer.Replace(keptPath, path); rerr != nil {
				p.log.Warn("could not put back an archive whose install failed", "err", rerr)
			}
		}
	}()
	pl, err = place.Place(t.r, staged.Root, staged.Files, p.opts.Paks, m.ID, owned, p.step)
	if err != nil {
		return nil, "", "", err
	}
	key := store.KeptKey(m.ID, m.Version, staged.SHA256)
	index, err := t.keptIndex()
	if err != nil {
		return nil, "", "", err
	}
	twin, isTwin := index[key]
	if isTwin {
		// The same bytes are kept already (for a generation): once is
		// enough, and this copy goes once the install is committed.
		kept = twin
	} else {
		kept = key + archiveExt(name, staged.Format)
		if err := p.opts.Renamer.Replace(path, p.store.Path(store.ArchivesDir, kept)); err != nil {
			return nil, "", "", fmt.Errorf("keep archive: %w", err)
		}
		keptPath = p.store.Path(store.ArchivesDir, kept)
	}
	p.step("archive:" + name)
	norm, err := render.Manifest(m)
	if err != nil {
		return nil, "", "", err
	}
	manifest, err = p.store.WriteManifest(m.ID, norm)
	if err != nil {
		return nil, "", "", err
	}
	if isTwin {
		t.dispose = append(t.dispose, func() error { return removeIfExists(path) })
	}
	if err := pl.Commit(); err != nil {
		// The replaced files are temp files now, removed when the pack
		// is placed again.
		p.log.Warn("could not remove the replaced content yet", "err", err)
	}
	return pl.Paths, kept, manifest, nil
}

// fault records an archive the machine's condition stopped (see
// isFault): its try is not counted toward MaxAttempts, and once the
// transaction is committed it goes back to the drop folder, to be tried
// again at the next pass; an archive given to Install is not the drop
// folder's, so only its copy is removed. Nothing of it was installed.
func (t *txn) fault(name string, out Outcome, err error, from origin) {
	p := t.p
	retry := "the archive waits in drop and is retried at the next pass"
	if from == fromInstall {
		retry = "install it again once that is done"
	}
	p.log.Warn("archive waits: the machine failed, not the archive", "archive", name, "err", err)
	reason := faultReason(err, placedFile(err, p.opts.Paks), retry)
	if a, ok := t.attempts[name]; ok {
		// Written with the other counts when the transaction ends.
		a.Count = max(a.Count-1, 0)
		a.Last = reason.Value
		t.attempts[name] = a
		t.attemptsDirty = true
	}
	t.wait(name, out, reason, from)
}

// wait records an archive that waits for reason, the machine's condition,
// and puts it back in drop once the transaction is committed; see fault.
// Its tries are left as they are.
func (t *txn) wait(name string, out Outcome, reason rejection.Reason, from origin) {
	p := t.p
	out.Result, out.Reasons = ResultWaiting, []rejection.Reason{reason}
	t.sum.Outcomes = append(t.sum.Outcomes, out)
	if from == fromDrop {
		if p.faulted == nil {
			p.faulted = map[string]faulted{}
		}
		p.faulted[name] = faulted{retry: p.opts.Now().Add(faultRetry), reason: reason}
	}
	src := p.store.Path(store.ProcessingDir, name)
	t.dispose = append(t.dispose, func() error {
		if from == fromInstall {
			return removeIfExists(src)
		}
		dst := filepath.Join(p.opts.Drop, name)
		if _, err := os.Lstat(dst); err == nil {
			return nil // dropped again meanwhile: this copy waits in processing
		}
		if err := atomicfile.Move(p.opts.Renamer, src, dst, 0o644); err != nil {
			return fmt.Errorf("put back %s in drop: %w", name, err)
		}
		return nil
	})
}

// already records an archive whose pack is installed from the same bytes:
// the copy goes, once the transaction is committed.
func (t *txn) already(name string, out Outcome, rec *store.PackRecord) {
	p := t.p
	out.Result = resultOf(inventory.OutcomeAlready)
	t.sum.Outcomes = append(t.sum.Outcomes, out)
	path := p.store.Path(store.ProcessingDir, name)
	kept := p.store.Path(store.ArchivesDir, rec.Archive)
	if _, err := os.Stat(kept); errors.Is(err, os.ErrNotExist) {
		// The twin was lost (a crash between commit and its move):
		// this copy becomes the kept one.
		t.dispose = append(t.dispose, func() error { return p.opts.Renamer.Replace(path, kept) })
	} else {
		t.dispose = append(t.dispose, func() error { return removeIfExists(path) })
	}
	t.dispose = append(t.dispose, func() error { p.step("done:" + name); return nil })
}

// record puts an installed pack's record in the state, replacing the
// previous version's (whose content, archive and manifest the new one does
// not share become pending removals), and returns the outcome (installed
// when no version was, else what CheckInstall decided) and the version
// replaced.
func (t *txn) record(rec store.PackRecord, outcome inventory.Outcome) (inventory.Outcome, string) {
	prev := t.st.Find(rec.ID)
	if prev == nil {
		t.st.Packs = append(t.st.Packs, rec)
		slices.SortFunc(t.st.Packs, func(a, b store.PackRecord) int { return strings.Compare(a.ID, b.ID) })
		return inventory.OutcomeInstalled, ""
	}
	previous := prev.Version
	t.replace(prev, rec)
	return outcome, previous
}

// replace puts rec in place of prev; what prev had and rec does not
// (content, kept archive, stored manifest) becomes a pending removal,
// deleted once the new state is published.
func (t *txn) replace(prev *store.PackRecord, rec store.PackRecord) {
	for _, c := range prev.Content {
		if !slices.Contains(rec.Content, c) {
			t.st.PendingRemovals = append(t.st.PendingRemovals, c)
		}
	}
	if prev.Archive != rec.Archive {
		t.st.PendingArchives = append(t.st.PendingArchives, prev.Archive)
	}
	if prev.Manifest != rec.Manifest {
		t.st.PendingManifests = append(t.st.PendingManifests, prev.Manifest)
	}
	*prev = rec
}

// removeKept deletes a kept archive that no state record and no kept
// generation names any more.
func (t *txn) removeKept(name string) error {
	for _, r := range t.st.Packs {
		if r.Archive == name {
			return nil
		}
	}
	if neededKeys(t.st)[store.KeyOfKept(name)] {
		return nil
	}
	return removeIfExists(t.p.store.Path(store.ArchivesDir, name))
}

// removeManifest deletes a stored manifest no state record and no
// profile names any more.
func (t *txn) removeManifest(name string) error {
	for _, r := range t.st.Packs {
		if r.Manifest == name {
			return nil
		}
	}
	for _, pr := range t.st.Profiles {
		for _, m := range pr.Manifests {
			if m == name {
				return nil
			}
		}
	}
	return t.p.store.RemoveManifest(name)
}

// reasonMessages joins the messages of the reasons a change is refused,
// in their order, for the error that refuses it.
func reasonMessages(reasons []rejection.Reason) string {
	msgs := make([]string, len(reasons))
	for i, r := range reasons {
		msgs[i] = r.Message
	}
	return strings.Join(msgs, "; ")
}

// reject records a rejection. The archive moves to drop/rejected/ with its
// reasons beside it, after publication, with the other rejections of the
// transaction (see disposeRejected); an archive given to Install is not
// the drop folder's, so only its copy is removed.
func (t *txn) reject(name string, out Outcome, reasons []rejection.Reason, from origin) {
	out.Result, out.Reasons = resultOf(inventory.OutcomeRejected), reasons
	t.sum.Outcomes = append(t.sum.Outcomes, out)
	if from == fromInstall {
		src := t.p.store.Path(store.ProcessingDir, name)
		t.dispose = append(t.dispose, func() error { return removeIfExists(src) })
		return
	}
	t.rejects = append(t.rejects, rejected{name: name, out: out})
}

// maxNameBytes is the longest file name the common file systems take.
const maxNameBytes = 255

// uniqueName returns name, or name with -2, -3… before its extension, so
// that nothing in dir is replaced (see freeName): an earlier rejected
// archive of the same name is kept. taken, when not nil, holds the names
// drawn before in one batch whose files are not in dir yet; the name
// returned and its note's join it. The result leaves room for the ".txt"
// beside it and its temp file: a name the file system would refuse is
// shortened, never a reason to fail.
func uniqueName(dir, name string, taken map[string]bool) string {
	ext := filepath.Ext(name)
	if len(ext) > 16 {
		ext = ""
	}
	stem := strings.TrimSuffix(name, ext)
	// Room for "-N", the ".txt" and the temp name it is written through.
	const room = len("-9999") + len(".txt") + len(atomicfile.TempPrefix) + len("-") + 12
	if len(name)+room > maxNameBytes {
		stem = cutUTF8(stem, maxNameBytes-room-len(ext))
		name = stem + ext
	}
	cand := name
	for i := 2; !freeName(dir, cand, taken); i++ {
		cand = fmt.Sprintf("%s-%d%s", stem, i, ext)
	}
	if taken != nil {
		taken[foldName(cand)], taken[foldName(cand+".txt")] = true, true
	}
	return cand
}

// cutUTF8 returns s cut to at most n bytes, on a character boundary.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// archiveExt keeps the dropped name's extension when it has one, else uses
// the detected format's.
func archiveExt(name, format string) string {
	lower := strings.ToLower(name)
	for _, e := range []string{".tar.gz", ".tar.xz", ".tar.zst", ".tgz", ".zip", ".7z", ".tar", ".rar"} {
		if strings.HasSuffix(lower, e) {
			return name[len(name)-len(e):]
		}
	}
	return format
}

// removeIfExists removes path, waiting out a scanner that holds it for a
// moment; a missing file is not an error.
func removeIfExists(path string) error {
	if err := (atomicfile.Renamer{}).Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// stageTimes times the steps of a transaction: each mark records the time
// since the one before (or the transaction's start) under the step's
// name, as attributes of the debug line that ends the transaction. A step
// that repeats (one unpack per archive) is recorded each time.
type stageTimes struct {
	last  time.Time
	attrs []any
}

func (s *stageTimes) mark(step string) {
	now := time.Now()
	s.attrs = append(s.attrs, step, now.Sub(s.last))
	s.last = now
}
