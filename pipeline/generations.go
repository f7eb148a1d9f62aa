package pipeline

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mjolnir-forge/forgesync/installer/store"
	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// The causes of a generation (SPEC §11).
const (
	CauseDrop     store.Cause = "drop" // a pass over the drop folder
	CauseInstall  store.Cause = "install"
	CauseEnable   store.Cause = "enable"
	CauseDisable  store.Cause = "disable"
	CauseRemove   store.Cause = "remove"
	CauseSet      store.Cause = "set" // a set apply
	CauseRollback store.Cause = "rollback"
	CauseProfile  store.Cause = "profile" // a profile switch (SPEC §12)
)

// defaultKeepGenerations is how many generations the state keeps when
// Options.KeepGenerations is zero.
const defaultKeepGenerations = 10

// generationPacks returns the installed packs of st as a generation lists
// them, sorted by id.
func generationPacks(st *store.State) []store.GenerationPack {
	out := make([]store.GenerationPack, len(st.Packs))
	for i, r := range st.Packs {
		out[i] = store.GenerationPack{ID: r.ID, Version: r.Version, SHA256: r.ArchiveSHA256, Enabled: r.Enabled}
	}
	slices.SortFunc(out, func(a, b store.GenerationPack) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// fingerprint is the set fingerprint (SPEC §10.1) of the enabled packs.
func fingerprint(packs []store.GenerationPack) string {
	var es []lock.Entry
	for _, g := range packs {
		if g.Enabled {
			es = append(es, lock.Entry{ID: g.ID, Version: g.Version, SHA256: g.SHA256})
		}
	}
	return lock.Fingerprint(es)
}

// recordGeneration adds a generation when the committed state differs from
// the last one, and drops the generations beyond the ones kept; archives
// only the dropped ones needed are queued in PendingArchives, deleted
// after the state that drops them is written.
func (t *txn) recordGeneration() error {
	st := t.st
	packs := generationPacks(st)
	n := 1
	if k := len(st.Generations); k > 0 {
		last := st.Generations[k-1]
		if slices.Equal(last.Packs, packs) {
			return nil
		}
		n = last.N + 1
	}
	g := store.Generation{N: n, Time: t.p.opts.Now().UTC(), Cause: t.cause, Fingerprint: fingerprint(packs), Packs: packs}
	// A new backing array: snapshots share the old one.
	gens := append(slices.Clip(st.Generations), g)
	keep := t.p.opts.KeepGenerations
	if keep <= 0 {
		keep = defaultKeepGenerations
	}
	if len(gens) > keep {
		dropped := gens[:len(gens)-keep]
		gens = slices.Clone(gens[len(gens)-keep:])
		st.Generations = gens
		gone := make([][]store.GenerationPack, len(dropped))
		for i, d := range dropped {
			gone[i] = d.Packs
		}
		if err := t.dropUnneeded(gone...); err != nil {
			return err
		}
	}
	st.Generations = gens
	t.sum.Generation = n
	if t.sum.Set != nil {
		t.sum.Set.Generation = n
	}
	return nil
}

// neededKeys returns the keys (store.KeptKey) of every archive the
// installed packs, the kept generations, a journaled set and the profiles
// need.
func neededKeys(st *store.State) map[string]bool {
	out := map[string]bool{}
	for _, r := range st.Packs {
		out[store.KeptKey(r.ID, r.Version, r.ArchiveSHA256)] = true
	}
	for _, g := range st.Generations {
		for _, gp := range g.Packs {
			out[store.KeptKey(gp.ID, gp.Version, gp.SHA256)] = true
		}
	}
	if ps := st.PendingSet; ps != nil {
		for _, gp := range ps.Packs {
			out[store.KeptKey(gp.ID, gp.Version, gp.SHA256)] = true
		}
	}
	for _, pr := range st.Profiles {
		for _, gp := range pr.Packs {
			out[store.KeptKey(gp.ID, gp.Version, gp.SHA256)] = true
		}
	}
	return out
}

// History is the kept generations, newest first, each with what changed
// from the one before, the newest generation's number (0 when none) and
// the disk the kept archives take. GET /v1/history and `forgesync
// history` show it.
type History struct {
	Current     int
	KeptBytes   int64
	Generations []HistoryGeneration
}

// HistoryGeneration is a generation and what changed from the one before.
type HistoryGeneration struct {
	store.Generation
	Changes []GenerationChange
}

// ChangeKind says how a pack changed from one generation to the next.
type ChangeKind string

// The kinds of GenerationChange.
const (
	ChangeAdded    ChangeKind = "added"
	ChangeUpdated  ChangeKind = "updated" // another version, or the same from other bytes
	ChangeRemoved  ChangeKind = "removed"
	ChangeEnabled  ChangeKind = "enabled"
	ChangeDisabled ChangeKind = "disabled"
)

// GenerationChange is one difference between a generation and the one
// before it: the pack, its version (for an added, updated or removed
// pack) and, for an updated one, the version before.
type GenerationChange struct {
	Kind     ChangeKind
	ID       string
	Version  string
	Previous string
}

// generationChanges returns what changed from prev (nil: nothing installed)
// to g, sorted by id.
func generationChanges(prev, g []store.GenerationPack) []GenerationChange {
	out := []GenerationChange{}
	old := make(map[string]store.GenerationPack, len(prev))
	for _, p := range prev {
		old[p.ID] = p
	}
	seen := make(map[string]bool, len(g))
	for _, p := range g {
		seen[p.ID] = true
		o, ok := old[p.ID]
		switch {
		case !ok:
			out = append(out, GenerationChange{Kind: ChangeAdded, ID: p.ID, Version: p.Version})
			if !p.Enabled {
				out = append(out, GenerationChange{Kind: ChangeDisabled, ID: p.ID})
			}
			continue
		case o.SHA256 != p.SHA256 || o.Version != p.Version:
			out = append(out, GenerationChange{Kind: ChangeUpdated, ID: p.ID, Version: p.Version, Previous: o.Version})
		}
		if o.Enabled != p.Enabled {
			kind := ChangeDisabled
			if p.Enabled {
				kind = ChangeEnabled
			}
			out = append(out, GenerationChange{Kind: kind, ID: p.ID})
		}
	}
	for _, p := range prev {
		if !seen[p.ID] {
			out = append(out, GenerationChange{Kind: ChangeRemoved, ID: p.ID, Version: p.Version})
		}
	}
	slices.SortStableFunc(out, func(a, b GenerationChange) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// HistoryOf returns the history of generations (oldest first, as the state
// keeps them), newest first.
func HistoryOf(gens []store.Generation, keptBytes int64) *History {
	h := &History{KeptBytes: keptBytes, Generations: make([]HistoryGeneration, 0, len(gens))}
	for i := len(gens) - 1; i >= 0; i-- {
		var prev []store.GenerationPack
		if i > 0 {
			prev = gens[i-1].Packs
		}
		h.Generations = append(h.Generations, HistoryGeneration{Generation: gens[i], Changes: generationChanges(prev, gens[i].Packs)})
	}
	if len(gens) > 0 {
		h.Current = gens[len(gens)-1].N
	}
	return h
}

// History returns the kept generations, newest first, and the size of the
// kept archives.
func (p *Pipeline) History() (*History, error) {
	st, err := p.state()
	if err != nil {
		return nil, err
	}
	size, err := keptBytes(p.store.Dir)
	if err != nil {
		return nil, err
	}
	return HistoryOf(st.Generations, size), nil
}

// keptBytes returns the bytes of every archive kept under the state folder
// state: the installed packs' and the kept generations'.
func keptBytes(state string) (int64, error) {
	entries, err := os.ReadDir(filepath.Join(state, store.ArchivesDir))
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read kept archives: %w", err)
	}
	var n int64
	for _, e := range entries {
		if info, err := e.Info(); err == nil && info.Mode().IsRegular() {
			n += info.Size()
		}
	}
	return n, nil
}

// stateHistory is the part of the state file History needs.
type stateHistory struct {
	Generations store.Generations `json:"generations"`
}

// ReadHistory reads the history from the state folder without taking the
// state lock (the state file is replaced atomically, so a read sees one
// committed state): `forgesync history` works beside a running daemon.
func ReadHistory(state string) (*History, error) {
	data, err := atomicfile.ReadFile(filepath.Join(state, store.StateFileName), store.MaxStateBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return HistoryOf(nil, 0), nil
	}
	if err != nil {
		return nil, fmt.Errorf("read history: %w", err)
	}
	var sh stateHistory
	if err := json.Unmarshal(data, &sh); err != nil {
		return nil, fmt.Errorf("read history %s: %w", filepath.Join(state, store.StateFileName), err)
	}
	size, err := keptBytes(state)
	if err != nil {
		return nil, err
	}
	return HistoryOf(sh.Generations, size), nil
}

// lastGeneration returns the number of st's last generation, 0 when none.
func lastGeneration(st *store.State) int {
	if len(st.Generations) == 0 {
		return 0
	}
	return st.Generations[len(st.Generations)-1].N
}

// copyGenerations writes the copy of st's generations beside packs.json
// (store.GenerationsFile), which recovery reads when packs.json was set
// aside. It is advisory and not flushed: a copy lost or stale only makes
// that recovery take every kept archive, so a failure is a warning.
func (p *Pipeline) copyGenerations(st *store.State) {
	data, err := store.EncodeGenerations(st.Generations)
	if err == nil {
		err = p.writeState(store.GenerationsFile, data, atomicfile.FlushNone)
	}
	if err != nil {
		p.log.Warn("could not write the copy of the generations; a damaged packs.json would then bring back every kept archive", "err", err)
	}
}

// restoreLastGeneration prepares the recovery of a state folder whose
// packs.json was set aside (the safe step of a damaged one): when the copy
// of the generations says which set the machine had, the generations come
// back and the last one's set is journaled in st, to be rolled forward
// from the kept archives like an interrupted rollback, each pack enabled
// or disabled as it was. Archives kept only for older generations stay
// kept, for rollback, and are not installed. Without a usable copy
// nothing is journaled, and every kept archive is installed again.
func (p *Pipeline) restoreLastGeneration(st *store.State) error {
	if len(st.Packs) > 0 || len(st.Generations) > 0 || st.PendingSet != nil {
		return nil
	}
	if _, err := os.Lstat(p.store.Path(store.StateFileName)); !errors.Is(err, fs.ErrNotExist) {
		return nil // a state that says it holds nothing
	}
	gens, err := p.store.LoadGenerations()
	if err != nil {
		p.log.Warn("the copy of the generations cannot be read; every kept archive is installed again", "err", err)
		return nil
	}
	if len(gens) == 0 {
		return nil
	}
	kept, err := (&txn{p: p}).keptIndex()
	if err != nil {
		return err
	}
	last := gens[len(gens)-1]
	pins := make([]store.GenerationPack, 0, len(last.Packs))
	for _, gp := range last.Packs {
		if _, ok := kept[store.KeptKey(gp.ID, gp.Version, gp.SHA256)]; !ok {
			p.log.Warn("a pack of the last generation has no kept archive; not installed again", "pack", gp.ID, "version", gp.Version, "generation", last.N)
			continue
		}
		pins = append(pins, gp)
	}
	p.log.Info("packs.json is missing: installing again the set of the last generation", "generation", last.N, "packs", len(pins), "file", p.store.Path(store.GenerationsFile))
	st.Generations = gens
	st.PendingSet = &store.PendingSet{Cause: CauseRollback, Prune: true, Packs: pins}
	return nil
}
