package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

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
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// Errors of a set apply and a rollback.
var (
	// ErrNoArchive is returned (wrapped, naming the pack) when an archive a
	// set or generation needs is neither kept nor given by the source;
	// its kind is [errkind.Conflict].
	ErrNoArchive = errkind.New(errkind.Conflict, "archive not available")
	// errArchiveMismatch is returned (wrapped) when an archive's bytes do
	// not have the SHA-256 its pin names; nothing is changed. Its kind is
	// [errkind.Conflict].
	errArchiveMismatch = errkind.New(errkind.Conflict, "archive does not match its sha256")
	// ErrNoGeneration is returned (wrapped) by Rollback for a generation
	// the state does not keep; its kind is [errkind.NotFound].
	ErrNoGeneration = errkind.New(errkind.NotFound, "no such generation")
)

// sentence is a refusal whose text is one whole sentence for the player:
// it matches kind (errors.Is) without repeating kind's words.
type sentence struct {
	text string
	kind error
}

func (s sentence) Error() string { return s.text }
func (s sentence) Unwrap() error { return s.kind }

// ArchiveSource finds the archive of a pinned pack that the store does not
// keep (a finished download, the cache): it returns the path of a local
// file, which the pipeline takes into incoming/ and checks against the
// pin's SHA-256 as it unpacks it, before anything of it goes near the
// store. An error says where it looked.
type ArchiveSource func(ctx context.Context, pin lock.Entry) (string, error)

// SetOptions tune ApplySet.
type SetOptions struct {
	// Prune removes the installed packs the set does not pin, instead of
	// disabling them.
	Prune bool
	// Source gives the archives the store does not keep; nil means kept
	// archives only.
	Source ArchiveSource
	// Profile, when not "", names the profile the set is recorded as and
	// made current (SPEC §12): own keeps what the player had, and a pack
	// dropped while it is current joins own. "" applies the set to the
	// current profile, as before profiles. ProfileSource says where the
	// set came from; "" means followed.
	Profile       string
	ProfileSource store.ProfileSource
}

// SetResult is what a set apply or a rollback changed (SPEC §10.3): the
// fingerprint of the enabled packs afterwards, the generation recorded (0
// when nothing changed), and the packs installed, upgraded, downgraded,
// reinstalled from other bytes, enabled, disabled and removed.
type SetResult struct {
	Fingerprint string
	Generation  int
	Installed   []SetChange
	Upgraded    []SetChange
	Downgraded  []SetChange
	Reinstalled []SetChange
	Enabled     []string
	Disabled    []string
	Removed     []string
}

// SetChange is one pack a set apply installed at another version.
type SetChange struct {
	ID       string
	Version  string
	Previous string
}

// Changed reports whether the apply changed anything.
func (r *SetResult) Changed() bool {
	return len(r.Installed)+len(r.Upgraded)+len(r.Downgraded)+len(r.Reinstalled)+len(r.Enabled)+len(r.Disabled)+len(r.Removed) > 0
}

func newSetResult() *SetResult {
	return &SetResult{Installed: []SetChange{}, Upgraded: []SetChange{}, Downgraded: []SetChange{}, Disabled: []string{}, Removed: []string{}}
}

// setApply is a set apply or a rollback in a transaction (not a
// [SetChange], one pack of its result).
type setApply struct {
	store.PendingSet
	source ArchiveSource
	// record, when not nil, is the profile the set is recorded as, put in
	// the state with the journal.
	record *store.Profile
}

// ApplySet makes the installed set exactly pins (SPEC §10.2 step 3), as one
// transaction: each pinned pack is installed, upgraded or downgraded to its
// pin (a pinned set is authoritative) and enabled; every other installed
// pack is disabled, or removed with Prune. Archives come from the store,
// else from opts.Source; each is checked against its SHA-256 and validated,
// and the whole set against the global limits, before anything is
// published; a refusal ([errkind.Refused], naming the packs) changes nothing. A
// set the machine already has publishes nothing.
func (p *Pipeline) ApplySet(ctx context.Context, pins []lock.Entry, opts SetOptions) (*Summary, error) {
	packs := make([]store.GenerationPack, 0, len(pins))
	seen := map[string]bool{}
	for _, e := range pins {
		if seen[e.ID] {
			return nil, fmt.Errorf("apply set: pack %s is pinned twice: %w", e.ID, errkind.Refused)
		}
		seen[e.ID] = true
		packs = append(packs, store.GenerationPack{ID: e.ID, Version: e.Version, SHA256: e.SHA256, Enabled: true})
	}
	slices.SortFunc(packs, func(a, b store.GenerationPack) int { return strings.Compare(a.ID, b.ID) })
	sc := &setApply{PendingSet: store.PendingSet{Cause: CauseSet, Prune: opts.Prune, Packs: packs}, source: opts.Source}
	if opts.Profile != "" {
		rec, err := p.setProfile(pins, packs, opts)
		if err != nil {
			return nil, err
		}
		sc.Profile, sc.record = rec.Name, rec
	}
	return p.transact(ctx, txnOptions{cause: CauseSet, change: &change{kind: changeSet, set: sc}})
}

// Rollback makes the installed set equal to generation n (0: the one before
// the current one) in one transaction, from kept archives only, and
// records a new generation with cause rollback. Over the global limits it
// is refused like any install.
func (p *Pipeline) Rollback(ctx context.Context, n int) (*Summary, error) {
	st, err := p.state()
	if err != nil {
		return nil, err
	}
	gens := st.Generations
	if n == 0 {
		if len(gens) < 2 {
			return nil, sentence{"there is no generation before the current one to roll back to (see `forgesync history`)", ErrNoGeneration}
		}
		n = gens[len(gens)-2].N
	}
	i := slices.IndexFunc(gens, func(g store.Generation) bool { return g.N == n })
	if i < 0 {
		kept := "none"
		switch {
		case len(gens) == 1:
			kept = strconv.Itoa(gens[0].N)
		case len(gens) > 1:
			kept = fmt.Sprintf("%d to %d", gens[0].N, gens[len(gens)-1].N)
		}
		return nil, sentence{fmt.Sprintf("generation %d is not kept (kept: %s; see `forgesync history`)", n, kept), ErrNoGeneration}
	}
	sc := &setApply{PendingSet: store.PendingSet{Cause: CauseRollback, Prune: true, Packs: slices.Clone(gens[i].Packs)}}
	sum, err := p.transact(ctx, txnOptions{cause: CauseRollback, change: &change{kind: changeSet, set: sc}, rollbackTo: n})
	if sum != nil {
		sum.RolledBackTo = n
	}
	return sum, err
}

// prepared is a pinned archive extracted and validated for a set apply.
type prepared struct {
	staged   *intake.Staged
	manifest *inventory.Manifest
}

// applySet checks a set apply whole, then journals it and rolls it forward.
// Until the journal is written nothing visible has changed: verified
// archives wait in incoming/, extractions in staging/.
func (t *txn) applySet(ctx context.Context, sc *setApply) error {
	st := t.st
	kept, err := t.keptIndex()
	if err != nil {
		return err
	}
	ready := map[string]*prepared{}
	var fetched []string
	defer func() {
		for _, pr := range ready {
			pr.staged.Remove()
		}
		if st.PendingSet == nil {
			// No journal names them (any more): what was fetched into
			// incoming/ and not kept goes.
			for _, f := range fetched {
				removeIfExists(f)
			}
		}
	}()
	var refusals []string
	for _, pin := range sc.Packs {
		if rec := st.Find(pin.ID); rec != nil && rec.ArchiveSHA256 == pin.SHA256 {
			if rec.Version != pin.Version {
				refusals = append(refusals, fmt.Sprintf("%s is pinned at %s, but its archive (sha256 %s) holds version %s", pin.ID, pin.Version, short(pin.SHA256), rec.Version))
			}
			continue
		}
		if ready[pin.SHA256] != nil {
			continue
		}
		rep, staged, err := t.unpackPin(ctx, kept, pin, sc.source, &fetched)
		if err != nil {
			return err
		}
		if !rep.Valid {
			var msgs []string
			for _, r := range rep.Problems {
				msgs = append(msgs, r.Message)
			}
			refusals = append(refusals, fmt.Sprintf("%s %s is not a valid pack: %s", pin.ID, pin.Version, strings.Join(msgs, "; ")))
			continue
		}
		ready[pin.SHA256] = &prepared{staged: staged, manifest: rep.Manifest}
		if m := rep.Manifest; m.ID != pin.ID || m.Version != pin.Version {
			refusals = append(refusals, fmt.Sprintf("%s %s is pinned to an archive holding %s %s", pin.ID, pin.Version, m.ID, m.Version))
		}
	}
	if len(refusals) == 0 {
		if v := inventory.CheckSet(t.setPacks(sc, ready)); v.Refused() {
			refusals = append(refusals, reasonMessages(v.Reasons))
		}
	}
	if len(refusals) > 0 {
		return fmt.Errorf("apply set: %s: %w", strings.Join(refusals, "; "), errkind.Refused)
	}
	if !t.setChanges(sc) {
		t.sum.Set = newSetResult()
		t.sum.Set.Fingerprint = fingerprint(generationPacks(st))
		if sc.Profile != "" && !store.SameProfile(sc.Profile, st.CurrentProfile()) || sc.record != nil {
			if err := t.leaveProfile(sc); err != nil {
				return err
			}
			t.enterProfile(&sc.PendingSet)
		}
		return nil
	}
	return t.journalAndRoll(ctx, sc, ready)
}

// journalAndRoll journals a checked set apply and rolls it forward. When
// nothing could be placed (a file the game holds, a full disk: every
// pack's old version is whole again) the journal goes, so that no later
// command finishes the change behind the user's back, and the change
// waits as a fault. st.PendingSet says, when it returns, whether a journal
// stays on disk for a later pass to finish.
func (t *txn) journalAndRoll(ctx context.Context, sc *setApply, ready map[string]*prepared) error {
	p, st := t.p, t.st
	if err := t.leaveProfile(sc); err != nil {
		return err
	}
	st.PendingSet = &sc.PendingSet
	if err := p.store.Save(st); err != nil {
		st.PendingSet = nil
		return err
	}
	p.step("journal")
	err := t.rollForward(ctx, st.PendingSet, ready)
	if !errors.As(err, new(errNothingPlaced)) {
		return err
	}
	st.PendingSet = nil
	if serr := p.store.Save(st); serr != nil {
		st.PendingSet = &sc.PendingSet
		return fmt.Errorf("%w; and its journal could not be cleared, so the next pass finishes it: %w", err, serr)
	}
	return p.changeWaits(sc.Cause, err)
}

// findArchive returns the path of pin's archive: kept in the store, left
// in incoming/ by an interrupted apply, or taken there from source
// (fresh). Taking does not hash: the extraction hashes every archive it
// unpacks, in this process, and unpackPin compares that with the pin
// before anything is used, so a third pass over the bytes, after the
// download's and before the extraction's, would check nothing more.
func (t *txn) findArchive(ctx context.Context, kept map[string]string, pin store.GenerationPack, source ArchiveSource) (path string, fresh bool, err error) {
	p := t.p
	if name, ok := kept[store.KeptKey(pin.ID, pin.Version, pin.SHA256)]; ok {
		return p.store.Path(store.ArchivesDir, name), false, nil
	}
	in := p.store.Path(store.IncomingDir, pin.SHA256)
	if _, err := os.Stat(in); err == nil {
		return in, false, nil
	}
	if source == nil {
		return "", false, fmt.Errorf("%s %s (sha256 %s): the store keeps no copy of its archive: %w", pin.ID, pin.Version, short(pin.SHA256), ErrNoArchive)
	}
	src, err := source(ctx, lock.Entry{ID: pin.ID, Version: pin.Version, SHA256: pin.SHA256})
	if err != nil {
		return "", false, fmt.Errorf("%s %s: %w: %w", pin.ID, pin.Version, ErrNoArchive, err)
	}
	if err := takeArchive(src, in); err != nil {
		return "", false, fmt.Errorf("%s %s: %w", pin.ID, pin.Version, err)
	}
	p.step("fetch:" + pin.ID)
	return in, true, nil
}

// unpackPin finds pin's archive (findArchive), unpacks and validates it,
// and checks its bytes against the pin: the extraction's own hash is the
// check of the bytes taken, and bytes that fail to unpack are hashed by
// takenSHA256, so that a damaged copy is called what it is rather than an
// invalid pack. A damaged copy an interrupted apply left in incoming/, or
// a kept archive whose bytes changed on disk, is removed and, when there
// is a source, taken afresh once; a damaged kept archive with no source
// (a rollback) makes the change wait as a fault: the machine's disk, not
// the set, is wrong. Archives taken from the source are added to
// *fetched. A pack whose bytes are the pinned ones but invalid returns its
// report and no staging.
func (t *txn) unpackPin(ctx context.Context, kept map[string]string, pin store.GenerationPack, source ArchiveSource, fetched *[]string) (*verdict.Report, *intake.Staged, error) {
	p := t.p
	for again := false; ; again = true {
		path, fresh, err := t.findArchive(ctx, kept, pin, source)
		if err != nil {
			return nil, nil, err
		}
		if fresh {
			*fetched = append(*fetched, path)
		}
		rep, staged, err := verdict.Archive(ctx, p.opts.Extractor, path, p.store.Path(store.StagingDir), p.opts.Limits, nil)
		if err != nil {
			return nil, nil, fmt.Errorf("apply set: %s %s: %w", pin.ID, pin.Version, err)
		}
		if rep.Valid && staged.SHA256 == pin.SHA256 {
			return rep, staged, nil
		}
		if staged != nil {
			defer staged.Remove() // whatever comes next, these bytes are not used
		}
		got := t.takenSHA256(path, staged)
		if got == "" {
			return nil, nil, fmt.Errorf("apply set: %s %s: could not read %s to check its sha256", pin.ID, pin.Version, path)
		}
		if got == pin.SHA256 {
			return rep, nil, nil // the pinned bytes: an invalid pack, which applySet refuses
		}
		inKept := filepath.Dir(path) == p.store.Path(store.ArchivesDir)
		if inKept || filepath.Dir(path) == p.store.Path(store.IncomingDir) {
			// A copy of ours whose bytes are not the ones it was kept
			// for: useless, and in the way of a good one.
			removeIfExists(path)
			if inKept {
				delete(kept, store.KeptKey(pin.ID, pin.Version, pin.SHA256))
				p.log.Warn("a kept archive is damaged; removed", "pack", pin.ID, "archive", path, "sha256", got, "want", pin.SHA256)
			}
		}
		mismatch := fmt.Errorf("apply set: %s %s: %s: sha256 %s, want %s: %w", pin.ID, pin.Version, path, got, pin.SHA256, errArchiveMismatch)
		switch {
		case !fresh && !again && source != nil:
			p.log.Warn("an archive of the store is damaged; taking it again", "pack", pin.ID, "err", mismatch)
		case inKept:
			return nil, nil, &waitError{err: mismatch, Reason: rejection.Reason{Rule: RuleFault, File: path, Value: mismatch.Error(),
				Message: fmt.Sprintf("the kept archive of %s %s is damaged (its bytes changed on disk: sha256 %s, want %s) and was removed; nothing changed: drop the pack's archive (or sync a set that pins it) to keep it again, then try again",
					pin.ID, pin.Version, short(got), short(pin.SHA256))}}
		default:
			return nil, nil, mismatch
		}
	}
}

// takenSHA256 returns the SHA-256 of the archive at path: the
// extraction's, when it staged the archive, else hashed here; "" when it
// cannot be read.
func (t *txn) takenSHA256(path string, staged *intake.Staged) string {
	if staged != nil {
		return staged.SHA256
	}
	return fileSHA256(path)
}

// takeArchive puts the archive src at dst atomically: a hard link where
// the file system allows one (a download in state/cache/ and the store's
// copy then share their blocks, instead of a set taking its size twice;
// archives are never written in place, so sharing the file is safe, and
// the cache only ever removes its own name), a copy otherwise.
func takeArchive(src, dst string) error {
	tmp := filepath.Join(filepath.Dir(dst), atomicfile.TempPrefix+filepath.Base(dst)+".link")
	os.Remove(tmp)
	if err := os.Link(src, tmp); err == nil {
		if err := os.Rename(tmp, dst); err != nil {
			os.Remove(tmp)
			return err
		}
		return atomicfile.SyncDir(filepath.Dir(dst))
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	return atomicfile.WriteWith(dst, 0o600, func(f *os.File) error {
		_, err := io.Copy(f, in)
		return err
	})
}

// setPacks returns the installed set a set change makes, for the checks.
func (t *txn) setPacks(sc *setApply, ready map[string]*prepared) []inventory.InstalledPack {
	pins := map[string]store.GenerationPack{}
	for _, pin := range sc.Packs {
		pins[pin.ID] = pin
	}
	var out []inventory.InstalledPack
	for _, ip := range t.packs {
		pin, ok := pins[ip.Manifest.ID]
		switch {
		case !ok && sc.Prune:
		case !ok:
			ip.Enabled = false
			out = append(out, ip)
		case ip.ArchiveSHA256 == pin.SHA256:
			ip.Enabled = pin.Enabled
			out = append(out, ip)
		}
	}
	for _, pin := range sc.Packs {
		if pr := ready[pin.SHA256]; pr != nil {
			out = append(out, inventory.InstalledPack{Manifest: pr.manifest, Enabled: pin.Enabled, ArchiveSHA256: pin.SHA256})
		}
	}
	return out
}

// setChanges reports whether applying sc changes the installed state.
func (t *txn) setChanges(sc *setApply) bool {
	pins := map[string]store.GenerationPack{}
	for _, pin := range sc.Packs {
		pins[pin.ID] = pin
		rec := t.st.Find(pin.ID)
		if rec == nil || rec.ArchiveSHA256 != pin.SHA256 || rec.Enabled != pin.Enabled {
			return true
		}
	}
	for _, r := range t.st.Packs {
		if _, ok := pins[r.ID]; !ok && (sc.Prune || r.Enabled) {
			return true
		}
	}
	return false
}

// rollForward applies a journaled set: first every pinned archive is
// placed (placePins; a fault there, a file the game holds, puts every
// pack's old version back and changes nothing), then the placements are
// committed and the archives kept, manifests stored and records changed
// (commitPins), and the journal is cleared; the caller commits the state.
// It is also the recovery of a journaled apply a crash interrupted: every
// step may be repeated.
func (t *txn) rollForward(ctx context.Context, ps *store.PendingSet, ready map[string]*prepared) error {
	kept, err := t.keptIndex()
	if err != nil {
		return err
	}
	placed, err := t.placePins(ctx, ps, ready, kept)
	if err != nil {
		return err
	}
	return t.commitPins(ps, placed, kept)
}

// pinPlaced is a pinned pack whose content is placed, not yet committed:
// its prepared archive and where that archive is (kept under archives/,
// or in incoming/).
type pinPlaced struct {
	pl   *place.Placement
	pr   *prepared
	path string
	kept bool
}

// errNothingPlaced wraps the error of placePins: every pack's old version
// is whole again, so the apply changed nothing visible.
type errNothingPlaced struct{ error }

func (e errNothingPlaced) Unwrap() error { return e.error }

// placePins places the content of every pinned pack the machine does not
// have at its pin, each all or nothing, through the pass's Renamer. When
// one fails (a file held past the pass's one wait, a full disk) the ones
// placed are undone, last first, and the error wraps errNothingPlaced.
// Archives extracted here (finishing an interrupted apply) are staged
// until the transaction ends.
func (t *txn) placePins(ctx context.Context, ps *store.PendingSet, ready map[string]*prepared, kept map[string]string) (_ map[string]*pinPlaced, err error) {
	p := t.p
	placed := map[string]*pinPlaced{}
	var order []*pinPlaced
	defer func() {
		if err == nil {
			return
		}
		for _, pp := range slices.Backward(order) {
			if uerr := pp.pl.Undo(); uerr != nil {
				err = fmt.Errorf("%w; and the old version of a pack could not be put back whole: %w", err, uerr)
			}
		}
		if !errors.As(err, new(errNothingPlaced)) {
			err = errNothingPlaced{err}
		}
	}()
	for _, pin := range ps.Packs {
		rec := t.st.Find(pin.ID)
		if rec != nil && rec.ArchiveSHA256 == pin.SHA256 {
			continue
		}
		pp := &pinPlaced{pr: ready[pin.SHA256]}
		name, isKept := kept[store.KeptKey(pin.ID, pin.Version, pin.SHA256)]
		pp.path, pp.kept = p.store.Path(store.ArchivesDir, name), isKept
		if !isKept {
			pp.path = p.store.Path(store.IncomingDir, pin.SHA256)
		}
		extracted := pp.pr == nil
		if extracted {
			pr, err := t.journaled(ctx, pin, pp.path)
			if err != nil {
				return nil, err
			}
			pp.pr = pr
		}
		// Placed all or nothing, through the pass's Renamer: a file held
		// past the pass's one wait leaves this pack's old version whole.
		var owned []string
		if rec != nil {
			owned = rec.Content
		}
		pl, err := place.Place(t.r, pp.pr.staged.Root, pp.pr.staged.Files, p.opts.Paks, pin.ID, owned, p.step)
		if extracted {
			// What it placed has left staging; the rest goes.
			if rerr := pp.pr.staged.Remove(); rerr != nil {
				p.log.Warn("could not remove staging; tried again at the next pass", "pack", pin.ID, "err", rerr)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("install %s: %w", pin.ID, err)
		}
		pp.pl = pl
		placed[pin.ID] = pp
		order = append(order, pp)
	}
	return placed, nil
}

// journaled extracts the archive a journal names for pin again (the
// extraction the interrupted apply made is gone) and checks it still holds
// the pinned pack.
func (t *txn) journaled(ctx context.Context, pin store.GenerationPack, path string) (*prepared, error) {
	p := t.p
	rep, staged, err := verdict.Archive(ctx, p.opts.Extractor, path, p.store.Path(store.StagingDir), p.opts.Limits, nil)
	if err != nil {
		return nil, fmt.Errorf("apply set: %s %s: %w", pin.ID, pin.Version, err)
	}
	if !rep.Valid || staged.SHA256 != pin.SHA256 || rep.Manifest.ID != pin.ID || rep.Manifest.Version != pin.Version {
		if staged != nil {
			staged.Remove()
		}
		return nil, fmt.Errorf("apply set: %s %s: the journaled archive %s no longer holds the pinned pack: %w", pin.ID, pin.Version, path, errArchiveMismatch)
	}
	return &prepared{staged: staged, manifest: rep.Manifest}, nil
}

// commitPins makes a placed set the installed one: every placement is
// committed, each archive kept, each manifest stored and each record
// changed, the unpinned packs disabled or removed, and the journal
// cleared.
func (t *txn) commitPins(ps *store.PendingSet, placed map[string]*pinPlaced, kept map[string]string) error {
	st := t.st
	for _, pp := range placed {
		if err := pp.pl.Commit(); err != nil {
			// The replaced files are temp files now, removed when the
			// pack is placed again.
			t.p.log.Warn("could not remove the replaced content yet", "err", err)
		}
	}
	res := newSetResult()
	t.packs = slices.Clone(t.packs)
	pinned := map[string]bool{}
	for _, pin := range ps.Packs {
		pinned[pin.ID] = true
		rec := st.Find(pin.ID)
		if rec != nil && rec.ArchiveSHA256 == pin.SHA256 {
			t.pinEnabled(rec, pin.Enabled, res)
			continue
		}
		if err := t.installPin(pin, rec, placed[pin.ID], kept, res); err != nil {
			return err
		}
	}
	t.unpinned(pinned, ps.Prune, res)
	sortPacks(t.packs)
	t.enterProfile(ps)
	st.PendingSet = nil
	t.dirty = true
	t.cause = ps.Cause
	res.Fingerprint = fingerprint(generationPacks(st))
	t.sum.Set = res
	return nil
}

// pinEnabled gives an installed pack the enabled flag the set pins.
func (t *txn) pinEnabled(rec *store.PackRecord, enabled bool, res *SetResult) {
	if rec.Enabled == enabled {
		return
	}
	rec.Enabled = enabled
	t.setEnabled(rec.ID, enabled)
	if enabled {
		res.Enabled = append(res.Enabled, rec.ID)
	} else {
		res.Disabled = append(res.Disabled, rec.ID)
	}
}

// installPin records the pinned pack whose content pp placed: its archive
// is kept (moved from incoming/ when it came from there), its manifest
// stored, and its record put over rec.
func (t *txn) installPin(pin store.GenerationPack, rec *store.PackRecord, pp *pinPlaced, kept map[string]string, res *SetResult) error {
	p := t.p
	key := store.KeptKey(pin.ID, pin.Version, pin.SHA256)
	name := kept[key]
	if !pp.kept {
		name = key + archiveExt("", pp.pr.staged.Format)
		if err := p.opts.Renamer.Replace(pp.path, p.store.Path(store.ArchivesDir, name)); err != nil {
			return fmt.Errorf("keep archive of %s: %w", pin.ID, err)
		}
		kept[key] = name
		p.step("archive:" + pin.ID)
	}
	norm, err := render.Manifest(pp.pr.manifest)
	if err != nil {
		return fmt.Errorf("install %s: %w", pin.ID, err)
	}
	manifest, err := p.store.WriteManifest(pin.ID, norm)
	if err != nil {
		return fmt.Errorf("install %s: %w", pin.ID, err)
	}
	nr := store.PackRecord{ID: pin.ID, Version: pin.Version, Enabled: pin.Enabled, ArchiveSHA256: pin.SHA256,
		Archive: name, InstalledAt: p.opts.Now().UTC(), Content: pp.pl.Paths, Manifest: manifest}
	if rec == nil {
		t.st.Packs = append(t.st.Packs, nr)
		res.Installed = append(res.Installed, SetChange{ID: pin.ID, Version: pin.Version})
	} else {
		ch := SetChange{ID: pin.ID, Version: pin.Version, Previous: rec.Version}
		pv, _ := semver.Parse(rec.Version)
		cv, _ := semver.Parse(pin.Version)
		switch c := semver.Compare(cv, pv); {
		case c > 0:
			res.Upgraded = append(res.Upgraded, ch)
		case c < 0:
			res.Downgraded = append(res.Downgraded, ch)
		default:
			res.Reinstalled = append(res.Reinstalled, ch)
		}
		t.replace(rec, nr)
	}
	t.packs = slices.DeleteFunc(t.packs, func(ip inventory.InstalledPack) bool { return ip.Manifest.ID == pin.ID })
	t.packs = append(t.packs, inventory.InstalledPack{Manifest: pp.pr.manifest, Enabled: pin.Enabled, ArchiveSHA256: pin.SHA256})
	return nil
}

// unpinned removes (prune) or disables the installed packs the set does
// not pin.
func (t *txn) unpinned(pinned map[string]bool, prune bool, res *SetResult) {
	st := t.st
	var keep []store.PackRecord
	for _, r := range st.Packs {
		switch {
		case pinned[r.ID]:
		case prune:
			st.PendingRemovals = append(st.PendingRemovals, r.Content...)
			st.PendingArchives = append(st.PendingArchives, r.Archive)
			st.PendingManifests = append(st.PendingManifests, r.Manifest)
			res.Removed = append(res.Removed, r.ID)
			t.packs = slices.DeleteFunc(t.packs, func(ip inventory.InstalledPack) bool { return ip.Manifest.ID == r.ID })
			continue
		case r.Enabled:
			r.Enabled = false
			t.setEnabled(r.ID, false)
			res.Disabled = append(res.Disabled, r.ID)
		}
		keep = append(keep, r)
	}
	st.Packs = keep
	slices.SortFunc(st.Packs, func(a, b store.PackRecord) int { return strings.Compare(a.ID, b.ID) })
}

// setEnabled sets the enabled flag of pack id in t.packs (a copy the
// caller owns).
func (t *txn) setEnabled(id string, on bool) {
	if i := slices.IndexFunc(t.packs, func(ip inventory.InstalledPack) bool { return ip.Manifest.ID == id }); i >= 0 {
		t.packs[i].Enabled = on
	}
}

// keptIndex maps the key of every kept archive (store.KeptKey) to its
// file name under archives/.
func (t *txn) keptIndex() (map[string]string, error) {
	entries, err := os.ReadDir(t.p.store.Path(store.ArchivesDir))
	if err != nil {
		return nil, fmt.Errorf("read kept archives: %w", err)
	}
	out := make(map[string]string, len(entries))
	for _, e := range entries {
		if e.Type().IsRegular() && !strings.HasPrefix(e.Name(), atomicfile.TempPrefix) {
			if k := store.KeyOfKept(e.Name()); k != "" {
				out[k] = e.Name()
			}
		}
	}
	return out, nil
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}
