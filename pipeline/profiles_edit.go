package pipeline

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/mjolnir-forge/forgesync/installer/store"
	"github.com/mjolnir-forge/forgesync/internal/errkind"
)

// SaveProfile records the installed set (every pack with its enabled
// flag) as profile name, replacing the one of that name; the current
// profile stays current. Saving own makes own the installed set.
func (p *Pipeline) SaveProfile(ctx context.Context, name string) (*store.Profile, error) {
	if err := store.CheckProfileName(name); err != nil {
		return nil, fmt.Errorf("pipeline: save profile: %w: %w", err, errkind.Invalid)
	}
	var saved store.Profile
	_, err := p.transact(ctx, txnOptions{cause: CauseProfile, change: &change{kind: changeProfile, edit: func(_ context.Context, t *txn) error {
		st := t.st
		now := p.opts.Now().UTC()
		switch {
		case store.SameProfile(name, store.OwnProfile):
			saved = installedProfile(st, store.OwnProfile, SourceOwn, now)
			if st.CurrentProfile() == store.OwnProfile {
				return nil // own is what is installed
			}
		case st.FindProfile(name) != nil:
			saved = installedProfile(st, st.FindProfile(name).Name, SourceSaved, now) // the name as first recorded
		default:
			saved = installedProfile(st, name, SourceSaved, now)
		}
		t.dirty = true
		return t.replaceProfile(saved)
	}}})
	if err != nil {
		return nil, err
	}
	return &saved, nil
}

// RemoveProfile forgets profile name; the archives only it needed are
// deleted once the state without it is written. Own and the current
// profile cannot be removed.
func (p *Pipeline) RemoveProfile(ctx context.Context, name string) error {
	_, err := p.transact(ctx, txnOptions{cause: CauseProfile, change: &change{kind: changeProfile, edit: func(_ context.Context, t *txn) error {
		st := t.st
		if _, err := profileOf(st, name); err != nil {
			return err
		}
		switch {
		case store.SameProfile(name, store.OwnProfile):
			return sentence{"profile own is the player's own packs and always stays (switch to it, or remove its packs one by one)", errProfileInUse}
		case store.SameProfile(name, st.CurrentProfile()):
			return sentence{fmt.Sprintf("profile %s is the current one: switch to another (`forgesync profile switch own`) before removing it", name), errProfileInUse}
		}
		pr := *st.FindProfile(name)
		st.Profiles = slices.DeleteFunc(slices.Clone(st.Profiles), func(o store.Profile) bool { return o.Name == pr.Name })
		if err := t.dropArchivesOf([]store.Profile{pr}); err != nil {
			return err
		}
		p.log.Info("profile removed", "profile", pr.Name)
		t.dirty = true
		return nil
	}}})
	return err
}

// dropArchivesOf queues in PendingArchives the kept archives of the
// profiles gone that nothing else needs any more.
func (t *txn) dropArchivesOf(gone []store.Profile) error {
	packs := make([][]store.GenerationPack, len(gone))
	for i, d := range gone {
		packs[i] = d.Packs
	}
	return t.dropUnneeded(packs...)
}

// dropUnneeded queues in PendingArchives the kept archives of the packs
// (of profiles or generations gone) that nothing in the state needs any
// more.
func (t *txn) dropUnneeded(packs ...[]store.GenerationPack) error {
	st := t.st
	kept, err := t.keptIndex()
	if err != nil {
		return err
	}
	needed := neededKeys(st)
	for _, list := range packs {
		for _, gp := range list {
			key := store.KeptKey(gp.ID, gp.Version, gp.SHA256)
			if name, ok := kept[key]; ok && !needed[key] && !slices.Contains(st.PendingArchives, name) {
				st.PendingArchives = append(st.PendingArchives, name)
			}
		}
	}
	return nil
}

// RecordProfile records spec as a profile (a staged set) without changing
// the installed set: every archive the store does not keep comes from
// source and is checked as a set apply checks it (its SHA-256, a valid
// pack, the pinned id and version) before the profile is written; a
// refusal names every pack and changes nothing. The archives are kept
// once the state naming the profile is written, so a switch to it needs
// no network. The set's global limits are checked when it is switched to.
func (p *Pipeline) RecordProfile(ctx context.Context, spec ProfileSpec, source ArchiveSource) (*store.Profile, error) {
	if err := store.CheckProfileName(spec.Name); err != nil {
		return nil, fmt.Errorf("pipeline: record profile: %w: %w", err, errkind.Invalid)
	}
	if store.SameProfile(spec.Name, store.OwnProfile) {
		return nil, fmt.Errorf("pipeline: record profile: %q is the player's own profile; record the set under another name: %w", spec.Name, errkind.Invalid)
	}
	packs := slices.Clone(spec.Packs)
	slices.SortFunc(packs, func(a, b store.GenerationPack) int { return strings.Compare(a.ID, b.ID) })
	for i := 1; i < len(packs); i++ {
		if packs[i].ID == packs[i-1].ID {
			return nil, fmt.Errorf("pipeline: record profile %s: pack %s is listed twice: %w", spec.Name, packs[i].ID, errkind.Invalid)
		}
	}
	pr := store.Profile{Name: spec.Name, Source: spec.Source, Fingerprint: fingerprint(packs), Packs: packs, LastUsed: p.opts.Now().UTC()}
	if pr.Source == "" {
		pr.Source = SourceStaged
	}
	_, err := p.transact(ctx, txnOptions{cause: CauseProfile, change: &change{kind: changeProfile, edit: func(ctx context.Context, t *txn) error {
		if old := t.st.FindProfile(pr.Name); old != nil {
			pr.Name = old.Name
		}
		return t.recordProfile(ctx, pr, source)
	}}})
	if err != nil {
		return nil, err
	}
	return &pr, nil
}

// recordProfile checks the archives of pr that the store does not keep
// and records pr; the archives taken into incoming/ move to archives/
// after the commit (see RecordProfile).
func (t *txn) recordProfile(ctx context.Context, pr store.Profile, source ArchiveSource) (err error) {
	p := t.p
	kept, err := t.keptIndex()
	if err != nil {
		return err
	}
	var fetched []string
	defer func() {
		if err != nil {
			for _, f := range fetched {
				removeIfExists(f)
			}
		}
	}()
	var refusals []string
	for _, pin := range pr.Packs {
		if _, ok := kept[store.KeptKey(pin.ID, pin.Version, pin.SHA256)]; ok {
			continue
		}
		rep, staged, err := t.unpackPin(ctx, kept, pin, source, &fetched)
		if err != nil {
			return err
		}
		if staged != nil {
			defer staged.Remove()
		}
		switch m := rep.Manifest; {
		case !rep.Valid:
			refusals = append(refusals, fmt.Sprintf("%s %s is not a valid pack: %s", pin.ID, pin.Version, reasonMessages(rep.Problems)))
			continue
		case m.ID != pin.ID || m.Version != pin.Version:
			refusals = append(refusals, fmt.Sprintf("%s %s is pinned to an archive holding %s %s", pin.ID, pin.Version, m.ID, m.Version))
			continue
		}
		from := p.store.Path(store.IncomingDir, pin.SHA256)
		to := p.store.Path(store.ArchivesDir, store.KeptKey(pin.ID, pin.Version, pin.SHA256)+archiveExt("", staged.Format))
		t.dispose = append(t.dispose, func() error { return p.opts.Renamer.Replace(from, to) })
	}
	if len(refusals) > 0 {
		return fmt.Errorf("record profile %s: %s: %w", pr.Name, strings.Join(refusals, "; "), errkind.Refused)
	}
	t.dirty = true
	return t.replaceProfile(pr)
}
