package pipeline

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mjolnir-forge/forgesync/installer/intake"
	"github.com/mjolnir-forge/forgesync/installer/store"
	"github.com/mjolnir-forge/forgesync/inventory"
	"github.com/mjolnir-forge/forgesync/inventory/render"
)

// keepForOwn judges a valid pack that arrived while another profile than
// own is current against own's packs, as an install into own would be
// judged: a refusal is a rejection, as always. A pack own takes has its
// archive kept and its manifest stored, and joins own's set (replacing the
// version own had), to be installed when own is current again; the
// installed set does not change.
func (t *txn) keepForOwn(name string, out Outcome, staged *intake.Staged, m *inventory.Manifest, force bool, from origin) error {
	p, st := t.p, t.st
	own, err := profileOf(st, store.OwnProfile)
	if err != nil {
		return err
	}
	packs, err := t.ownPacks(own)
	if err != nil {
		return err
	}
	cand := inventory.InstalledPack{Manifest: m, Enabled: true, ArchiveSHA256: staged.SHA256}
	i := slices.IndexFunc(own.Packs, func(gp store.GenerationPack) bool { return gp.ID == m.ID })
	if i >= 0 {
		cand.Enabled = own.Packs[i].Enabled
		out.Previous = own.Packs[i].Version
	}
	if v := inventory.CheckInstall(packs, cand, force); v.Refused() {
		t.reject(name, out, v.Reasons, from)
		return nil
	}
	path := p.store.Path(store.ProcessingDir, name)
	key := store.KeptKey(m.ID, m.Version, staged.SHA256)
	index, err := t.keptIndex()
	if err != nil {
		return err
	}
	if _, twin := index[key]; twin {
		t.dispose = append(t.dispose, func() error { return removeIfExists(path) })
	} else if err := p.opts.Renamer.Replace(path, p.store.Path(store.ArchivesDir, key+archiveExt(name, staged.Format))); err != nil {
		if isFault(err) {
			t.fault(name, out, err, from)
			return nil
		}
		return fmt.Errorf("keep archive of %s for profile own: %w", m.ID, err)
	}
	norm, err := render.Manifest(m)
	if err != nil {
		return err
	}
	manifest, err := p.store.WriteManifest(m.ID, norm)
	if err != nil {
		return err
	}
	gp := store.GenerationPack{ID: m.ID, Version: m.Version, SHA256: staged.SHA256, Enabled: cand.Enabled}
	if i >= 0 {
		if old := own.Packs[i]; old != gp {
			if kept, ok := index[store.KeptKey(old.ID, old.Version, old.SHA256)]; ok {
				st.PendingArchives = append(st.PendingArchives, kept) // deleted unless still needed
			}
		}
		if om := own.Manifests[m.ID]; om != "" && om != manifest {
			st.PendingManifests = append(st.PendingManifests, om)
		}
		own.Packs = slices.Clone(own.Packs)
		own.Packs[i] = gp
	} else {
		own.Packs = append(slices.Clone(own.Packs), gp)
		slices.SortFunc(own.Packs, func(a, b store.GenerationPack) int { return strings.Compare(a.ID, b.ID) })
	}
	own.Manifests = maps.Clone(own.Manifests)
	if own.Manifests == nil {
		own.Manifests = map[string]string{}
	}
	own.Manifests[m.ID] = manifest
	own.Fingerprint = fingerprint(own.Packs)
	upsertProfile(st, *own)
	t.dirty = true
	p.log.Info("pack kept for profile own", "archive", name, "pack", m.ID, "version", m.Version, "current_profile", st.CurrentProfile())
	out.Result = ResultKept
	t.sum.Outcomes = append(t.sum.Outcomes, out)
	return nil
}

// ownPacks decodes own's packs for the rules: each from the stored
// manifest an installed record of the same bytes names, else the one own
// keeps. A pack whose manifest is not stored is left out of the judgment
// (its set is checked whole when own is switched to).
func (t *txn) ownPacks(own *store.Profile) ([]inventory.InstalledPack, error) {
	var out []inventory.InstalledPack
	for _, gp := range own.Packs {
		name := own.Manifests[gp.ID]
		if r := t.st.Find(gp.ID); r != nil && r.ArchiveSHA256 == gp.SHA256 {
			name = r.Manifest
		}
		if name == "" {
			t.p.log.Warn("a pack of profile own has no stored manifest; left out of the judgment of a drop", "pack", gp.ID)
			continue
		}
		data, err := t.p.store.ReadManifest(name)
		if err != nil {
			return nil, fmt.Errorf("profile own: pack %s: %w", gp.ID, err)
		}
		m, err := inventory.Decode("stored manifest of "+gp.ID, data)
		if err != nil {
			return nil, t.p.store.ManifestRefused(name, gp.ID, err.Error())
		}
		out = append(out, inventory.InstalledPack{Manifest: m, Enabled: gp.Enabled, ArchiveSHA256: gp.SHA256})
	}
	return out, nil
}
