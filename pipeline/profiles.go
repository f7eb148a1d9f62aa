package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mjolnir-forge/forgesync/installer/store"
	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
	"github.com/mjolnir-forge/forgesync/internal/errkind"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// The sources of a profile (SPEC §12).
const (
	SourceOwn      store.ProfileSource = "own"      // the packs dropped or installed by hand
	SourceSaved    store.ProfileSource = "saved"    // `profile save`: the installed set under a name
	SourceStaged   store.ProfileSource = "staged"   // a set staged for a server
	SourceFollowed store.ProfileSource = "followed" // a set applied by `sync --set` or followed
)

// defaultKeepProfiles is how many profiles besides own the state keeps
// when Options.KeepProfiles is zero.
const defaultKeepProfiles = 5

// Errors of the profiles.
var (
	// errNoProfile is returned (wrapped, naming it) for a profile the
	// state does not keep; its kind is [errkind.NotFound].
	errNoProfile = errkind.New(errkind.NotFound, "no such profile")
	// errProfileInUse is returned (wrapped) when a profile that must stay
	// (own, the current one) is to be removed; its kind is
	// [errkind.Conflict].
	errProfileInUse = errkind.New(errkind.Conflict, "profile in use")
)

// ProfileSpec is a set to record as a profile: its name, source and
// packs (the fingerprint is that of the enabled ones).
type ProfileSpec struct {
	Name   string
	Source store.ProfileSource
	Packs  []store.GenerationPack
}

// ProfileSwitch is what a switch changed: the profile current before and
// after, and the generation it recorded (0 when the installed set was the
// profile's already).
type ProfileSwitch struct {
	From       string
	To         string
	Generation int
}

// SwitchProfile makes the installed set equal to profile name in one
// transaction, from kept archives only (no network), and records a
// generation with cause profile. A profile whose archives are not all kept
// is refused, naming each missing one, and nothing changes.
func (p *Pipeline) SwitchProfile(ctx context.Context, name string) (*Summary, error) {
	st, err := p.state()
	if err != nil {
		return nil, err
	}
	target, err := profileOf(st, name)
	if err != nil {
		return nil, err
	}
	return p.switchTo(ctx, st, target)
}

// SwitchFingerprint switches to the profile whose set has fingerprint fp
// (SPEC §10.1), as SwitchProfile does: the current one when it has it,
// else the one used last.
func (p *Pipeline) SwitchFingerprint(ctx context.Context, fp string) (*Summary, error) {
	st, err := p.state()
	if err != nil {
		return nil, err
	}
	target := findFingerprint(st, fp)
	if target == nil {
		return nil, sentence{fmt.Sprintf("no profile has the set of fingerprint %s (see `forgesync profile list`; stage the set first)", fp), errNoProfile}
	}
	return p.switchTo(ctx, st, target)
}

// FindProfile returns the profile whose set has fingerprint fp: the
// current one when it has it, else the one used last; nil when none has.
func (p *Pipeline) FindProfile(fp string) (*store.Profile, error) {
	st, err := p.state()
	if err != nil {
		return nil, err
	}
	return findFingerprint(st, fp), nil
}

// findFingerprint returns a copy of the profile of st with fingerprint fp
// (see FindProfile), or nil.
func findFingerprint(st *store.State, fp string) *store.Profile {
	var best *store.Profile
	for _, pr := range allProfiles(st) {
		if pr.Fingerprint != fp {
			continue
		}
		if store.SameProfile(pr.Name, st.CurrentProfile()) {
			return &pr
		}
		if best == nil || pr.LastUsed.After(best.LastUsed) {
			best = &pr
		}
	}
	return best
}

// switchTo switches to target (a copy of one of st's profiles).
func (p *Pipeline) switchTo(ctx context.Context, st *store.State, target *store.Profile) (*Summary, error) {
	missing, err := p.missingArchives(target.Packs)
	if err != nil {
		return nil, err
	}
	if len(missing) > 0 {
		return nil, sentence{fmt.Sprintf("profile %s cannot be switched to: %s; nothing changed: stage its set again (or drop those packs) and try again",
			target.Name, missingText(missing)), ErrNoArchive}
	}
	from := st.CurrentProfile()
	sc := &setApply{PendingSet: store.PendingSet{Cause: CauseProfile, Prune: true, Packs: slices.Clone(target.Packs), Profile: target.Name}}
	sum, err := p.transact(ctx, txnOptions{cause: CauseProfile, change: &change{kind: changeSet, set: sc}})
	if sum != nil {
		sum.Switched = &ProfileSwitch{From: from, To: target.Name, Generation: sum.Generation}
		p.obs.ProfileSwitched(*sum.Switched)
	}
	return sum, err
}

// missingText says which archives are not kept, for a refusal.
func missingText(missing []store.GenerationPack) string {
	var parts []string
	for _, m := range missing {
		parts = append(parts, fmt.Sprintf("%s %s (sha256 %s)", m.ID, m.Version, short(m.SHA256)))
	}
	noun := "the archive of "
	if len(parts) > 1 {
		noun = "the archives of "
	}
	return noun + strings.Join(parts, ", ") + " not kept on this machine"
}

// ProfileMissing returns the packs of profile name whose archives are not
// kept on the machine (none: a switch to it needs no network).
func (p *Pipeline) ProfileMissing(name string) ([]store.GenerationPack, error) {
	st, err := p.state()
	if err != nil {
		return nil, err
	}
	pr, err := profileOf(st, name)
	if err != nil {
		return nil, err
	}
	return p.missingArchives(pr.Packs)
}

// missingArchives returns the packs whose archives are neither kept nor
// waiting in incoming/ (a profile recorded just before a crash).
func (p *Pipeline) missingArchives(packs []store.GenerationPack) ([]store.GenerationPack, error) {
	kept, err := keptFiles(p.store.Dir)
	if err != nil {
		return nil, err
	}
	var out []store.GenerationPack
	for _, gp := range packs {
		if _, ok := kept[store.KeptKey(gp.ID, gp.Version, gp.SHA256)]; ok {
			continue
		}
		if _, err := os.Stat(p.store.Path(store.IncomingDir, gp.SHA256)); err == nil {
			continue
		}
		out = append(out, gp)
	}
	return out, nil
}

// profileOf returns a copy of st's profile called name; own always
// exists (the installed set when it is current or was never recorded).
func profileOf(st *store.State, name string) (*store.Profile, error) {
	for _, pr := range allProfiles(st) {
		if store.SameProfile(pr.Name, name) {
			return &pr, nil
		}
	}
	if err := store.CheckProfileName(name); err != nil {
		return nil, fmt.Errorf("pipeline: %w: %w", err, errkind.Invalid)
	}
	return nil, sentence{fmt.Sprintf("there is no profile %q (see `forgesync profile list`)", name), errNoProfile}
}

// allProfiles returns st's profiles with own first, own's packs those
// installed when own is current.
func allProfiles(st *store.State) []store.Profile {
	own := store.Profile{Name: store.OwnProfile, Source: SourceOwn}
	if pr := st.FindProfile(store.OwnProfile); pr != nil {
		own = *pr
	}
	if st.CurrentProfile() == store.OwnProfile {
		own.Packs = generationPacks(st)
		own.Fingerprint = fingerprint(own.Packs)
	}
	out := []store.Profile{own}
	for _, pr := range st.Profiles {
		if !store.SameProfile(pr.Name, store.OwnProfile) {
			out = append(out, pr)
		}
	}
	return out
}

// upsertProfile puts pr in st's profiles, replacing the one of its name,
// in a new slice (snapshots share the old one).
func upsertProfile(st *store.State, pr store.Profile) {
	out := make([]store.Profile, 0, len(st.Profiles)+1)
	for _, o := range st.Profiles {
		if !store.SameProfile(o.Name, pr.Name) {
			out = append(out, o)
		}
	}
	st.Profiles = append(out, pr)
	slices.SortFunc(st.Profiles, func(a, b store.Profile) int { return strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)) })
}

// installedProfile returns the installed set as profile name: own's
// also names the stored manifest of each pack (see store.Profile).
func installedProfile(st *store.State, name string, source store.ProfileSource, now time.Time) store.Profile {
	packs := generationPacks(st)
	pr := store.Profile{Name: name, Source: source, Fingerprint: fingerprint(packs), Packs: packs, LastUsed: now}
	if store.SameProfile(name, store.OwnProfile) {
		pr.Manifests = make(map[string]string, len(st.Packs))
		for _, r := range st.Packs {
			pr.Manifests[r.ID] = r.Manifest
		}
	}
	return pr
}

// replaceProfile puts pr in the state in place of the profile of its name;
// the archives and stored manifests only the one replaced needed are
// queued for deletion after the state is written (left behind, a recovery
// would take an archive nothing names for a dropped one).
func (t *txn) replaceProfile(pr store.Profile) error {
	var old []store.Profile
	if o := t.st.FindProfile(pr.Name); o != nil {
		old = append(old, *o)
		for id, m := range o.Manifests {
			if pr.Manifests[id] != m {
				t.st.PendingManifests = append(t.st.PendingManifests, m) // removeManifest keeps one still named
			}
		}
	}
	upsertProfile(t.st, pr)
	return t.dropArchivesOf(old)
}

// syncOwn records own as the installed set when own is current and a set
// is about to leave it: while own is current the state keeps no record of
// it (own is what is installed), so that a player who never uses profiles
// has the state file of before.
func syncOwn(st *store.State, now time.Time) {
	if st.CurrentProfile() != store.OwnProfile {
		return
	}
	upsertProfile(st, installedProfile(st, store.OwnProfile, SourceOwn, now))
}

// leaveProfile prepares the state a journal of sc writes: own's packs as
// installed (when own is current, the set leaves it), the profile sc
// records, and the time the profile left was last used.
func (t *txn) leaveProfile(sc *setApply) error {
	if sc.Profile == "" {
		return nil
	}
	now := t.p.opts.Now().UTC()
	st := t.st
	syncOwn(st, now)
	if sc.record != nil {
		if err := t.replaceProfile(*sc.record); err != nil {
			return err
		}
	}
	if pr := st.FindProfile(st.CurrentProfile()); pr != nil && !store.SameProfile(pr.Name, sc.Profile) {
		cp := *pr
		cp.LastUsed = now
		upsertProfile(st, cp)
	}
	return nil
}

// enterProfile makes the profile a rolled-forward journal names current.
func (t *txn) enterProfile(ps *store.PendingSet) {
	if ps.Profile == "" {
		return
	}
	st := t.st
	name := ps.Profile
	if store.SameProfile(name, store.OwnProfile) {
		// Own is installed now: its record is what is installed.
		name = ""
		st.Profiles = slices.DeleteFunc(slices.Clone(st.Profiles), func(o store.Profile) bool { return store.SameProfile(o.Name, store.OwnProfile) })
	} else if pr := st.FindProfile(name); pr != nil {
		cp := *pr
		cp.LastUsed = t.p.opts.Now().UTC()
		upsertProfile(st, cp)
		name = cp.Name
	}
	if st.Profile != name {
		st.Profile = name
	}
	t.dirty = true
}

// setProfile returns the profile a set apply records: named by opts,
// followed unless opts say otherwise.
func (p *Pipeline) setProfile(pins []lock.Entry, packs []store.GenerationPack, opts SetOptions) (*store.Profile, error) {
	name, source := opts.Profile, opts.ProfileSource
	if source == "" {
		source = SourceFollowed
	}
	if err := store.CheckProfileName(name); err != nil {
		return nil, fmt.Errorf("apply set: %w: %w", err, errkind.Invalid)
	}
	if store.SameProfile(name, store.OwnProfile) {
		return nil, fmt.Errorf("apply set: profile %q is the player's own; name the set's profile otherwise: %w", name, errkind.Invalid)
	}
	return &store.Profile{Name: name, Source: source, Fingerprint: lock.Fingerprint(pins), Packs: packs, LastUsed: p.opts.Now().UTC()}, nil
}

// pruneProfiles drops the least recently used profiles beyond the ones
// kept (never own, never the current one); the archives only they needed
// are queued in PendingArchives, deleted after the state that drops them
// is written.
func (t *txn) pruneProfiles() error {
	st := t.st
	keep := t.p.opts.KeepProfiles
	if keep <= 0 {
		keep = defaultKeepProfiles
	}
	var others []store.Profile
	for _, pr := range st.Profiles {
		if !store.SameProfile(pr.Name, store.OwnProfile) && !store.SameProfile(pr.Name, st.CurrentProfile()) &&
			(st.PendingSet == nil || !store.SameProfile(pr.Name, st.PendingSet.Profile)) {
			others = append(others, pr)
		}
	}
	// The current profile counts toward the bound when it is not own.
	if st.CurrentProfile() != store.OwnProfile {
		keep--
	}
	if len(others) <= keep {
		return nil
	}
	slices.SortStableFunc(others, func(a, b store.Profile) int { return b.LastUsed.Compare(a.LastUsed) })
	dropped := others[keep:]
	out := make([]store.Profile, 0, len(st.Profiles))
	for _, pr := range st.Profiles {
		if !slices.ContainsFunc(dropped, func(d store.Profile) bool { return d.Name == pr.Name }) {
			out = append(out, pr)
		}
	}
	st.Profiles = out
	kept, err := t.keptIndex()
	if err != nil {
		return err
	}
	needed := neededKeys(st)
	for _, d := range dropped {
		t.p.log.Info("profile pruned: more profiles than keep_profiles", "profile", d.Name, "last_used", d.LastUsed)
		for _, gp := range d.Packs {
			key := store.KeptKey(gp.ID, gp.Version, gp.SHA256)
			if name, ok := kept[key]; ok && !needed[key] && !slices.Contains(st.PendingArchives, name) {
				st.PendingArchives = append(st.PendingArchives, name)
			}
		}
	}
	return nil
}

// keptFile is a kept archive: its name under archives/ and its size.
type keptFile struct {
	name string
	size int64
}

// keptFiles maps the key of every kept archive under the state folder
// state (store.KeptKey) to its file.
func keptFiles(state string) (map[string]keptFile, error) {
	entries, err := os.ReadDir(filepath.Join(state, store.ArchivesDir))
	if err != nil {
		return nil, fmt.Errorf("read kept archives: %w", err)
	}
	out := make(map[string]keptFile, len(entries))
	for _, e := range entries {
		if !e.Type().IsRegular() || strings.HasPrefix(e.Name(), atomicfile.TempPrefix) {
			continue
		}
		if k := store.KeyOfKept(e.Name()); k != "" {
			kf := keptFile{name: e.Name()}
			if info, err := e.Info(); err == nil {
				kf.size = info.Size()
			}
			out[k] = kf
		}
	}
	return out, nil
}
