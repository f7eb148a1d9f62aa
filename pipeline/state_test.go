package pipeline

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/installer/store"
)

// TestDamagedStateSafeStep walks the case of issue 11: after an upgrade,
// packs.json is truncated; the refusal names the safe step, putting back an
// older copy deletes and requeues nothing (and stays refused, start after
// start), and the named step brings the newer pack back.
func TestDamagedStateSafeStep(t *testing.T) {
	e := newEnv(t)
	e.keep = 1 // no older generation keeps 1.0.0's archive
	statePath := filepath.Join(e.state, "packs.json")
	p := e.open(t)
	e.dropPack(t, "v1.zip", spec{id: "abc-pack", version: "1.0.0", doors: 1})
	mustSync(t, p, map[string]Result{"v1.zip": ResultInstalled})
	backup, err := os.ReadFile(statePath)
	if err != nil {
		t.Fatal(err)
	}
	oldManifests := listFiles(t, filepath.Join(e.state, store.ManifestsDir))
	e.dropPack(t, "v2.zip", spec{id: "abc-pack", version: "1.1.0", doors: 2})
	mustSync(t, p, map[string]Result{"v2.zip": ResultUpgraded})
	p.Close()

	// The upgrade's transaction removed the manifest and archive of 1.0.0.
	manifests := listFiles(t, filepath.Join(e.state, store.ManifestsDir))
	archives := listFiles(t, filepath.Join(e.state, store.ArchivesDir))
	if len(manifests) != 1 || slices.Equal(manifests, oldManifests) || len(archives) != 1 || !strings.HasPrefix(archives[0], "abc-pack-1.1.0-") {
		t.Fatalf("after the upgrade: manifests %v (1.0.0's were %v), archives %v; want only 1.1.0's", manifests, oldManifests, archives)
	}
	unchanged := func(when string) {
		t.Helper()
		if got := listFiles(t, filepath.Join(e.state, store.ManifestsDir)); !slices.Equal(got, manifests) {
			t.Fatalf("%s: manifests %v; want %v untouched", when, got, manifests)
		}
		if got := listFiles(t, filepath.Join(e.state, store.ArchivesDir)); !slices.Equal(got, archives) {
			t.Fatalf("%s: kept archives %v; want %v untouched", when, got, archives)
		}
		if got := listFiles(t, filepath.Join(e.state, store.ProcessingDir)); len(got) != 0 {
			t.Fatalf("%s: processing holds %v; want nothing requeued", when, got)
		}
	}
	step := "rename " + statePath + " to packs.json.damaged and start forgesync again: it installs again the packs of the last generation from " +
		filepath.Join(e.state, store.ArchivesDir) + ", each enabled or disabled as it was"

	// Truncated.
	good, err := os.ReadFile(statePath)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(statePath, good[:len(good)/2], 0o600); err != nil {
		t.Fatal(err)
	}
	_, _, err = Open(t.Context(), e.options())
	if !errors.Is(err, store.ErrStateRefused) || !strings.Contains(err.Error(), "the file is damaged") || !strings.Contains(err.Error(), step) {
		t.Fatalf("Open with a truncated state = %v; want a refusal naming the step %q", err, step)
	}
	unchanged("truncated state")

	// The older copy put back: refused, twice, with nothing deleted or
	// requeued.
	if err := os.WriteFile(statePath, backup, 0o600); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		_, _, err = Open(t.Context(), e.options())
		if !errors.Is(err, store.ErrStateRefused) || !strings.Contains(err.Error(), "abc-pack 1.0.0") ||
			!strings.Contains(err.Error(), "older than the state folder") || !strings.Contains(err.Error(), step) {
			t.Fatalf("Open %d with an older copy of the state = %v; want a refusal naming it and the step", i+1, err)
		}
		unchanged("older copy")
	}

	// The step.
	if err := os.Rename(statePath, statePath+".damaged"); err != nil {
		t.Fatal(err)
	}
	p, sum, err := Open(t.Context(), e.options())
	if err != nil {
		t.Fatalf("Open after the step = %v", err)
	}
	defer p.Close()
	if sum.Set == nil || len(sum.Set.Installed) != 1 || sum.Set.Installed[0].ID != "abc-pack" || len(sum.Outcomes) != 0 {
		t.Fatalf("recovery = %+v, set %+v; want abc-pack installed again from its kept archive", sum.Outcomes, sum.Set)
	}
	packs, err := p.Packs()
	if err != nil || len(packs) != 1 || packs[0].Manifest.Version != "1.1.0" || !packs[0].Enabled {
		t.Fatalf("Packs after the step = %+v, %v; want abc-pack 1.1.0 enabled", packs, err)
	}
	if !strings.Contains(e.inv("doors.txt"), `mjolnir\forge\abc-pack\door_1`) {
		t.Fatalf("doors.txt after the step lacks 1.1.0's second door:\n%s", e.inv("doors.txt"))
	}
}

// TestSafeStepWithKeptGenerations follows the safe step for a damaged state
// when older versions are still kept for generations: the newest version of
// each pack comes back, enabled, however the archive names sort (1.10.0
// sorts before 1.9.0 by name), and the older kept archives are not turned
// into rejections the player never dropped.
func TestSafeStepWithKeptGenerations(t *testing.T) {
	e := newEnv(t)
	statePath := filepath.Join(e.state, "packs.json")
	p := e.open(t)
	e.dropPack(t, "v19.zip", spec{id: "abc-pack", version: "1.9.0", doors: 1})
	mustSync(t, p, map[string]Result{"v19.zip": ResultInstalled})
	e.dropPack(t, "v110.zip", spec{id: "abc-pack", version: "1.10.0", doors: 2})
	mustSync(t, p, map[string]Result{"v110.zip": ResultUpgraded})
	p.Close()
	if kept := listFiles(t, filepath.Join(e.state, store.ArchivesDir)); len(kept) != 2 {
		t.Fatalf("kept archives %v; want 1.9.0's (a kept generation needs it) and 1.10.0's", kept)
	}
	if err := os.Rename(statePath, statePath+".damaged"); err != nil {
		t.Fatal(err)
	}
	p, sum, err := Open(t.Context(), e.options())
	if err != nil {
		t.Fatalf("Open after the step = %v", err)
	}
	defer p.Close()
	packs, err := p.Packs()
	if err != nil || len(packs) != 1 || packs[0].Manifest.Version != "1.10.0" || !packs[0].Enabled {
		t.Fatalf("Packs after the step = %+v, %v (recovery %+v); want abc-pack 1.10.0 enabled", packs, err, sum.Outcomes)
	}
	if rejected := listFiles(t, filepath.Join(e.drop, "rejected")); len(rejected) != 0 {
		t.Fatalf("drop/rejected after the step holds %v; want none: the player dropped nothing bad", rejected)
	}
}

// TestSafeStepRestoresLastGeneration follows the safe step for a damaged
// state after a pack was removed and another disabled: the archives kept
// for rollback do not bring the removed pack back, and the others come
// back as they were (issue 37). The removed pack's archive stays kept, and
// history still lists the generations.
func TestSafeStepRestoresLastGeneration(t *testing.T) {
	e := newEnv(t)
	statePath := filepath.Join(e.state, "packs.json")
	p := e.open(t)
	e.dropPack(t, "a.zip", spec{id: "alpha-pack", version: "1.0.0", doors: 1})
	e.dropPack(t, "b.zip", spec{id: "beta-pack", version: "1.0.0", doors: 1})
	e.dropPack(t, "c.zip", spec{id: "gamma-pack", version: "1.0.0", doors: 1})
	mustSync(t, p, map[string]Result{"a.zip": ResultInstalled, "b.zip": ResultInstalled, "c.zip": ResultInstalled})
	if _, err := p.Remove(t.Context(), "beta-pack"); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Disable(t.Context(), "gamma-pack"); err != nil {
		t.Fatal(err)
	}
	history, err := p.History()
	if err != nil {
		t.Fatal(err)
	}
	p.Close()
	kept := listFiles(t, filepath.Join(e.state, store.ArchivesDir))
	if len(kept) != 3 {
		t.Fatalf("kept archives %v; want all three (a generation still needs beta-pack's)", kept)
	}
	good, err := os.ReadFile(statePath)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(statePath, good[:len(good)/3], 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Open(t.Context(), e.options()); !errors.Is(err, store.ErrStateRefused) {
		t.Fatalf("Open with a damaged state = %v; want it refused", err)
	}
	if err := os.Rename(statePath, statePath+".damaged"); err != nil {
		t.Fatal(err)
	}
	p, sum, err := Open(t.Context(), e.options())
	if err != nil {
		t.Fatalf("Open after the step = %v", err)
	}
	defer p.Close()
	packs, err := p.Packs()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, ip := range packs {
		got[ip.Manifest.ID] = ip.Enabled
	}
	if len(got) != 2 || !got["alpha-pack"] || got["gamma-pack"] || func() bool { _, ok := got["beta-pack"]; return ok }() {
		t.Fatalf("packs after the step = %v (recovery %+v, warnings %v); want alpha-pack enabled, gamma-pack disabled, beta-pack still removed", got, sum.Outcomes, sum.Warnings)
	}
	if doors := e.inv("doors.txt"); strings.Contains(doors, "beta-pack") || strings.Contains(doors, "gamma-pack") || !strings.Contains(doors, "alpha-pack") {
		t.Fatalf("doors.txt after the step:\n%s\nwant alpha-pack's door only", doors)
	}
	if after := listFiles(t, filepath.Join(e.state, store.ArchivesDir)); !slices.Equal(after, kept) {
		t.Fatalf("kept archives after the step %v; want %v (beta-pack's kept for rollback)", after, kept)
	}
	if rejected := listFiles(t, filepath.Join(e.drop, "rejected")); len(rejected) != 0 {
		t.Fatalf("drop/rejected after the step holds %v; want none", rejected)
	}
	restored, err := p.History()
	if err != nil {
		t.Fatal(err)
	}
	if restored.Current != history.Current || len(restored.Generations) != len(history.Generations) {
		t.Fatalf("history after the step: current %d, %d generations; want %d, %d as before", restored.Current, len(restored.Generations), history.Current, len(history.Generations))
	}
}

// TestSafeStepWithDamagedGenerationsCopy: when the copy of the generations
// is damaged too, the safe step still starts: every kept archive comes
// back, enabled, as before the copy existed.
func TestSafeStepWithDamagedGenerationsCopy(t *testing.T) {
	e := newEnv(t)
	p := e.open(t)
	e.dropPack(t, "a.zip", spec{id: "alpha-pack", version: "1.0.0", doors: 1})
	e.dropPack(t, "b.zip", spec{id: "beta-pack", version: "1.0.0", doors: 1})
	mustSync(t, p, map[string]Result{"a.zip": ResultInstalled, "b.zip": ResultInstalled})
	if _, err := p.Remove(t.Context(), "beta-pack"); err != nil {
		t.Fatal(err)
	}
	p.Close()
	if err := os.WriteFile(filepath.Join(e.state, store.GenerationsFile), []byte("{garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	statePath := filepath.Join(e.state, store.StateFileName)
	if err := os.Rename(statePath, statePath+".damaged"); err != nil {
		t.Fatal(err)
	}
	p, _, err := Open(t.Context(), e.options())
	if err != nil {
		t.Fatalf("Open after the step with a damaged copy = %v; want a start", err)
	}
	defer p.Close()
	packs, err := p.Packs()
	if err != nil || len(packs) != 2 || !packs[0].Enabled || !packs[1].Enabled {
		t.Fatalf("Packs = %+v, %v; want both kept archives installed, enabled", packs, err)
	}
}
