package pipeline

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/installer/store"
	"github.com/mjolnir-forge/forgesync/internal/errkind"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// profileSets makes two sets of four packs that share two (alpha and
// beta), in one folder of archives, and returns their packs.
func profileSets(t *testing.T) (*archiveSet, []store.GenerationPack, []store.GenerationPack) {
	t.Helper()
	a := newArchiveSet(t)
	pack := func(s spec) store.GenerationPack {
		e := a.add(t, s)
		return store.GenerationPack{ID: e.ID, Version: e.Version, SHA256: e.SHA256, Enabled: true}
	}
	shared1 := pack(spec{id: "shared-deck", version: "1.0.0", content: map[string]string{"s.pak": "shared deck"}})
	shared2 := pack(spec{id: "shared-gates", version: "2.0.0", doors: 2, content: map[string]string{"g.pak": "shared gates"}})
	alpha := []store.GenerationPack{shared1, shared2,
		pack(spec{id: "alpha-lifts", version: "1.0.0", lifts: 2, content: map[string]string{"l.pak": "alpha lifts"}}),
		pack(spec{id: "common-walls", version: "1.0.0", content: map[string]string{"w.pak": "walls 1.0.0", "old.pak": "only in 1.0.0"}})}
	beta := []store.GenerationPack{shared1, shared2,
		pack(spec{id: "beta-doors", version: "3.1.0", doors: 3, content: map[string]string{"d.pak": "beta doors"}}),
		pack(spec{id: "common-walls", version: "1.2.0", content: map[string]string{"w.pak": "walls 1.2.0", "new.pak": "only in 1.2.0"}})}
	return a, alpha, beta
}

// directMachine is the machine of a fresh install that applied packs
// directly, as `sync --set` does.
func directMachine(t *testing.T, a *archiveSet, packs []store.GenerationPack) map[string]string {
	t.Helper()
	e := newEnv(t)
	p := e.open(t)
	var pins []lock.Entry
	for _, gp := range packs {
		pins = append(pins, lock.Entry{ID: gp.ID, Version: gp.Version, SHA256: gp.SHA256})
	}
	if _, err := p.ApplySet(t.Context(), pins, SetOptions{Prune: true, Source: a.source}); err != nil {
		t.Fatalf("ApplySet = %v", err)
	}
	return e.machine(t)
}

// TestProfileSwitchEqualsDirectInstall records two sets as profiles (the
// archives taken from a folder, as a stage does), then takes the source
// away and switches own → alpha → beta → own → alpha: each time the paks
// and the inventory equal a machine that installed that set directly (own:
// the machine before the first switch), each switch is a generation with
// cause profile, and the current profile is the one switched to.
func TestProfileSwitchEqualsDirectInstall(t *testing.T) {
	skipUnderRace(t)
	a, alpha, beta := profileSets(t)
	want := map[string]map[string]string{"alpha": directMachine(t, a, alpha), "beta": directMachine(t, a, beta)}
	e := newEnv(t)
	p := e.open(t)
	e.dropPack(t, "mine.zip", spec{id: "my-own", version: "0.1.0", lifts: 1, content: map[string]string{"m.pak": "mine"}})
	mustSync(t, p, map[string]Result{"mine.zip": ResultInstalled})
	want["own"] = e.machine(t)
	for name, packs := range map[string][]store.GenerationPack{"alpha": alpha, "beta": beta} {
		if _, err := p.RecordProfile(t.Context(), ProfileSpec{Name: name, Source: SourceStaged, Packs: packs}, a.source); err != nil {
			t.Fatalf("RecordProfile(%s) = %v", name, err)
		}
	}
	if d := diffMachines(e.machine(t), want["own"]); d != "" {
		t.Fatalf("recording profiles changed the machine:\n%s", d)
	}
	if err := os.RemoveAll(a.dir); err != nil { // the network is gone
		t.Fatal(err)
	}
	from := "own"
	for _, name := range []string{"alpha", "beta", "own", "alpha"} {
		sum, err := p.SwitchProfile(t.Context(), name)
		if err != nil {
			t.Fatalf("SwitchProfile(%s) = %v", name, err)
		}
		if d := diffMachines(e.machine(t), want[name]); d != "" {
			t.Fatalf("after SwitchProfile(%s) the machine differs from a direct install:\n%s", name, d)
		}
		h, _ := p.History()
		if g := h.Generations[0]; g.Cause != CauseProfile || sum.Generation != g.N {
			t.Errorf("SwitchProfile(%s) recorded %+v (summary generation %d); want a generation with cause profile", name, g.Generation, sum.Generation)
		}
		if sw := sum.Switched; sw == nil || sw.From != from || sw.To != name || sw.Generation != sum.Generation {
			t.Errorf("SwitchProfile(%s).Switched = %+v; want from %s to %s", name, sum.Switched, from, name)
		}
		list, err := ReadProfiles(e.state)
		if err != nil || list.Current != name {
			t.Fatalf("ReadProfiles = %+v, %v; want current %s", list, err, name)
		}
		from = name
	}
}

// TestProfileSwitchMissingArchiveRefused removes a kept archive of a
// profile: the switch is refused naming the pack, and nothing changes.
func TestProfileSwitchMissingArchiveRefused(t *testing.T) {
	a, alpha, _ := profileSets(t)
	e := newEnv(t)
	p := e.open(t)
	if _, err := p.RecordProfile(t.Context(), ProfileSpec{Name: "alpha", Packs: alpha}, a.source); err != nil {
		t.Fatal(err)
	}
	lost := alpha[2]
	kept, err := keptFiles(e.state)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(e.state, store.ArchivesDir, kept[store.KeptKey(lost.ID, lost.Version, lost.SHA256)].name)); err != nil {
		t.Fatal(err)
	}
	before, stateBefore := e.machine(t), readFile(t, filepath.Join(e.state, store.StateFileName))
	missing, err := p.ProfileMissing("alpha")
	if err != nil || len(missing) != 1 || missing[0] != lost {
		t.Fatalf("ProfileMissing(alpha) = %v, %v; want %s", missing, err, lost.ID)
	}
	_, err = p.SwitchProfile(t.Context(), "alpha")
	if !errors.Is(err, ErrNoArchive) || errkind.Of(err) != errkind.Conflict || !strings.Contains(err.Error(), lost.ID+" "+lost.Version) {
		t.Fatalf("SwitchProfile(alpha) = %v; want refused naming %s %s", err, lost.ID, lost.Version)
	}
	if d := diffMachines(e.machine(t), before); d != "" {
		t.Fatalf("a refused switch changed the machine:\n%s", d)
	}
	if got := readFile(t, filepath.Join(e.state, store.StateFileName)); got != stateBefore {
		t.Fatalf("a refused switch changed the state")
	}
	if _, err := p.SwitchProfile(t.Context(), "nowhere"); !errors.Is(err, errNoProfile) {
		t.Fatalf("SwitchProfile(nowhere) = %v; want errNoProfile", err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestFindProfileByFingerprint finds a recorded set by its fingerprint,
// as an apply by fingerprint does, and switches to it.
func TestFindProfileByFingerprint(t *testing.T) {
	skipUnderRace(t)
	a, alpha, beta := profileSets(t)
	e := newEnv(t)
	p := e.open(t)
	for name, packs := range map[string][]store.GenerationPack{"alpha": alpha, "beta": beta} {
		if _, err := p.RecordProfile(t.Context(), ProfileSpec{Name: name, Packs: packs}, a.source); err != nil {
			t.Fatal(err)
		}
	}
	fp := fingerprint(beta)
	pr, err := p.FindProfile(fp)
	if err != nil || pr == nil || pr.Name != "beta" || pr.Source != SourceStaged {
		t.Fatalf("FindProfile(beta's) = %+v, %v; want beta, staged", pr, err)
	}
	if pr, err := p.FindProfile("sha256:none"); pr != nil || err != nil {
		t.Fatalf("FindProfile(none) = %+v, %v; want nil", pr, err)
	}
	sum, err := p.SwitchFingerprint(t.Context(), fp)
	if err != nil || sum.Switched.To != "beta" {
		t.Fatalf("SwitchFingerprint = %+v, %v; want beta", sum, err)
	}
	if _, err := p.SwitchFingerprint(t.Context(), "sha256:none"); !errors.Is(err, errNoProfile) {
		t.Fatalf("SwitchFingerprint(none) = %v; want errNoProfile", err)
	}
	list, _ := p.Profiles()
	if i := slices.IndexFunc(list.Profiles, func(pi ProfileInfo) bool { return pi.Name == "beta" }); i < 0 || !list.Profiles[i].Current {
		t.Fatalf("Profiles = %+v; want beta current", list)
	}
}

// TestCrashAtEveryStepOfProfileSwitch switches from own (three packs
// installed by hand) to a recorded profile that upgrades one, keeps one
// and adds one, dying at every step: each recovery leaves own or the
// profile whole, with the current profile the one the machine holds and
// every archive of both profiles kept.
func TestCrashAtEveryStepOfProfileSwitch(t *testing.T) {
	skipUnderRace(t)
	if testing.Short() {
		t.Skip("spawns one child process per step")
	}
	base := t.TempDir()
	e := envAt(base)
	e.dropPack(t, "gates.zip", spec{id: "lockout-gates", version: "0.4.0", doors: 2, content: map[string]string{"g.pak": "gates 0.4", "new.pak": "only in 0.4"}})
	e.dropPack(t, "glass.zip", spec{id: "glass-works", version: "1.0.0", lifts: 1, content: map[string]string{"glass.pak": "glass"}})
	e.dropPack(t, "keep.zip", spec{id: "keep-pack", version: "1.0.0", lifts: 1})
	p := e.open(t)
	mustSync(t, p, map[string]Result{"gates.zip": ResultInstalled, "glass.zip": ResultInstalled, "keep.zip": ResultInstalled})
	a := newArchiveSet(t)
	var packs []store.GenerationPack
	for _, s := range []spec{{id: "lockout-gates", version: "0.5.0", doors: 2, content: map[string]string{"g.pak": "gates 0.5"}},
		{id: "foundry-wide", version: "1.4.0", lifts: 2, content: map[string]string{"w1.pak": "wide", "w2.pak": "wider"}}} {
		pin := a.add(t, s)
		packs = append(packs, store.GenerationPack{ID: pin.ID, Version: pin.Version, SHA256: pin.SHA256, Enabled: true})
	}
	for _, gp := range generationPacks(p.st) {
		if gp.ID == "keep-pack" {
			packs = append(packs, gp)
		}
	}
	if _, err := p.RecordProfile(t.Context(), ProfileSpec{Name: "server", Packs: packs}, a.source); err != nil {
		t.Fatal(err)
	}
	p.Close()
	crashWalkCheck(t, base, "profile:server", 0, "journal", func(t *testing.T, e *env, isNew bool) {
		list, err := ReadProfiles(e.state)
		if err != nil {
			t.Fatal(err)
		}
		want := "own"
		if isNew {
			want = "server"
		}
		if list.Current != want {
			t.Errorf("the machine holds profile %s's set, but the current profile is %s", want, list.Current)
		}
		for _, pi := range list.Profiles {
			if len(pi.Missing) > 0 || len(pi.Packs) != 3 {
				t.Errorf("profile %s after recovery: %d packs, missing %v; want 3, none", pi.Name, len(pi.Packs), pi.Missing)
			}
		}
	})
}

// TestDropWhileServerProfileJoinsOwn drops packs while a server's profile
// is current: a valid one joins own (kept, not installed: the machine
// stays the server's), a downgrade of own's pack is rejected as always,
// and switching to own installs own with the dropped pack, equal to a
// machine that installed own's packs directly.
func TestDropWhileServerProfileJoinsOwn(t *testing.T) {
	skipUnderRace(t)
	a, alpha, _ := profileSets(t)
	e := newEnv(t)
	p := e.open(t)
	e.dropPack(t, "mine.zip", spec{id: "my-own", version: "0.2.0", lifts: 1, content: map[string]string{"m.pak": "mine"}})
	mustSync(t, p, map[string]Result{"mine.zip": ResultInstalled})
	if _, err := p.RecordProfile(t.Context(), ProfileSpec{Name: "alpha", Packs: alpha}, a.source); err != nil {
		t.Fatal(err)
	}
	if _, err := p.SwitchProfile(t.Context(), "alpha"); err != nil {
		t.Fatal(err)
	}
	onAlpha := e.machine(t)

	extra := spec{id: "extra-doors", version: "1.0.0", doors: 1, content: map[string]string{"x.pak": "extra"}}
	e.dropPack(t, "extra.zip", extra)
	e.dropPack(t, "old-mine.zip", spec{id: "my-own", version: "0.1.0", lifts: 1, content: map[string]string{"m.pak": "older"}})
	sum := mustSync(t, p, map[string]Result{"extra.zip": ResultKept, "old-mine.zip": ResultRejected})
	if sum.Generation != 0 {
		t.Errorf("a pack kept for own recorded generation %d; want none", sum.Generation)
	}
	if d := diffMachines(e.machine(t), onAlpha); d != "" {
		t.Fatalf("a pack kept for own changed the installed set:\n%s", d)
	}
	if left := listFiles(t, e.drop); !slices.Equal(left, []string{"rejected/old-mine.zip", "rejected/old-mine.zip.txt"}) {
		t.Errorf("the drop folder holds %v; want only the rejection", left)
	}
	list, _ := p.Profiles()
	own := list.Profiles[0]
	if own.Name != "own" || len(own.Packs) != 2 || own.Packs[0].ID != "extra-doors" || len(own.Missing) != 0 {
		t.Fatalf("own = %+v; want my-own and extra-doors, all kept", own)
	}

	if _, err := p.SwitchProfile(t.Context(), "own"); err != nil {
		t.Fatalf("SwitchProfile(own) = %v", err)
	}
	direct := newArchiveSet(t)
	mine := direct.add(t, spec{id: "my-own", version: "0.2.0", lifts: 1, content: map[string]string{"m.pak": "mine"}})
	ex := direct.add(t, extra)
	want := directMachine(t, direct, []store.GenerationPack{{ID: mine.ID, Version: mine.Version, SHA256: mine.SHA256, Enabled: true},
		{ID: ex.ID, Version: ex.Version, SHA256: ex.SHA256, Enabled: true}})
	if d := diffMachines(e.machine(t), want); d != "" {
		t.Fatalf("own after the switch differs from a direct install of its packs:\n%s", d)
	}
}

// TestKeepProfilesPrunesLeastRecentlyUsed keeps 2 profiles besides own
// and records four while one is current: the least recently used go,
// never own and never the current one, and the archives only they held go
// with them, after the state that drops them is written.
func TestKeepProfilesPrunesLeastRecentlyUsed(t *testing.T) {
	e := newEnv(t)
	opts := e.options()
	opts.KeepProfiles = 2
	tick := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	opts.Now = func() time.Time { tick = tick.Add(time.Minute); return tick }
	p, _, err := Open(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	e.dropPack(t, "mine.zip", spec{id: "my-own", version: "0.1.0", lifts: 1, content: map[string]string{"m.pak": "mine"}})
	mustSync(t, p, map[string]Result{"mine.zip": ResultInstalled})
	a := newArchiveSet(t)
	profile := func(name string) store.GenerationPack {
		pin := a.add(t, spec{id: "only-" + name, version: "1.0.0", content: map[string]string{"o.pak": name}})
		gp := store.GenerationPack{ID: pin.ID, Version: pin.Version, SHA256: pin.SHA256, Enabled: true}
		if _, err := p.RecordProfile(t.Context(), ProfileSpec{Name: name, Packs: []store.GenerationPack{gp}}, a.source); err != nil {
			t.Fatalf("RecordProfile(%s) = %v", name, err)
		}
		return gp
	}
	first := profile("first")
	if _, err := p.SwitchProfile(t.Context(), "first"); err != nil {
		t.Fatal(err)
	}
	second, third := profile("second"), profile("third")
	profile("fourth")
	list, err := ReadProfiles(e.state)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, pi := range list.Profiles {
		names = append(names, pi.Name)
	}
	if want := []string{"own", "fourth", "first"}; !slices.Equal(names, want) || list.Current != "first" {
		t.Fatalf("profiles = %v (current %s); want %v, first current", names, list.Current, want)
	}
	kept, err := keptFiles(e.state)
	if err != nil {
		t.Fatal(err)
	}
	for _, gp := range []store.GenerationPack{second, third} {
		if _, ok := kept[store.KeptKey(gp.ID, gp.Version, gp.SHA256)]; ok {
			t.Errorf("the archive of %s, only a pruned profile's, is still kept", gp.ID)
		}
	}
	if _, ok := kept[store.KeptKey(first.ID, first.Version, first.SHA256)]; !ok {
		t.Errorf("the current profile's archive is gone")
	}
	if missing, err := p.ProfileMissing("own"); err != nil || len(missing) != 0 {
		t.Errorf("own is missing %v, %v; want every archive kept", missing, err)
	}
	if err := p.RemoveProfile(t.Context(), "first"); !errors.Is(err, errProfileInUse) {
		t.Errorf("RemoveProfile(current) = %v; want refused", err)
	}
	if err := p.RemoveProfile(t.Context(), "own"); !errors.Is(err, errProfileInUse) {
		t.Errorf("RemoveProfile(own) = %v; want refused", err)
	}
	if err := p.RemoveProfile(t.Context(), "fourth"); err != nil {
		t.Errorf("RemoveProfile(fourth) = %v", err)
	}
}

// TestRecordProfileCrashBeforeKeep: a profile is written before its
// archives move from incoming/ to archives/; a crash between the two
// leaves them in incoming/, where a restart keeps them (the profile names
// them) and a switch takes them, with no source at all.
func TestRecordProfileCrashBeforeKeep(t *testing.T) {
	skipUnderRace(t)
	a, alpha, _ := profileSets(t)
	want := directMachine(t, a, alpha)
	e := newEnv(t)
	p := e.open(t)
	if _, err := p.RecordProfile(t.Context(), ProfileSpec{Name: "alpha", Packs: alpha}, a.source); err != nil {
		t.Fatal(err)
	}
	p.Close()
	kept, err := keptFiles(e.state)
	if err != nil {
		t.Fatal(err)
	}
	for _, gp := range alpha { // as the crash left them
		name := kept[store.KeptKey(gp.ID, gp.Version, gp.SHA256)].name
		if err := os.Rename(filepath.Join(e.state, store.ArchivesDir, name), filepath.Join(e.state, store.IncomingDir, gp.SHA256)); err != nil {
			t.Fatal(err)
		}
	}
	p = e.open(t)
	if missing, err := p.ProfileMissing("alpha"); err != nil || len(missing) != 0 {
		t.Fatalf("after the restart ProfileMissing(alpha) = %v, %v; want none (in incoming/)", missing, err)
	}
	if _, err := p.SwitchProfile(t.Context(), "alpha"); err != nil {
		t.Fatalf("SwitchProfile(alpha) = %v", err)
	}
	if d := diffMachines(e.machine(t), want); d != "" {
		t.Fatalf("alpha from incoming/ differs from a direct install:\n%s", d)
	}
	if left := listFiles(t, filepath.Join(e.state, store.IncomingDir)); len(left) != 0 {
		t.Errorf("incoming/ still holds %v; want every archive kept", left)
	}
}

// TestCrashAtEveryStepOfProfilePruning switches to a profile with
// keep_profiles = 1, which prunes the other one, dying at every step: the
// pruned profile's archive is deleted only after the state without it is
// written, so each recovery has either both profiles with every archive,
// or the new one alone and no archive nothing needs.
func TestCrashAtEveryStepOfProfilePruning(t *testing.T) {
	skipUnderRace(t)
	if testing.Short() {
		t.Skip("spawns one child process per step")
	}
	base := t.TempDir()
	e := envAt(base)
	e.dropPack(t, "mine.zip", spec{id: "my-own", version: "1.0.0", lifts: 1, content: map[string]string{"m.pak": "mine"}})
	p := e.open(t)
	mustSync(t, p, map[string]Result{"mine.zip": ResultInstalled})
	a := newArchiveSet(t)
	for _, pr := range []struct{ name, id string }{{"older", "only-older"}, {"server", "only-server"}} {
		pin := a.add(t, spec{id: pr.id, version: "1.0.0", content: map[string]string{"o.pak": pr.name}})
		gp := store.GenerationPack{ID: pin.ID, Version: pin.Version, SHA256: pin.SHA256, Enabled: true}
		if _, err := p.RecordProfile(t.Context(), ProfileSpec{Name: pr.name, Packs: []store.GenerationPack{gp}}, a.source); err != nil {
			t.Fatal(err)
		}
	}
	p.Close()
	t.Setenv(envKeepProfiles, "1")
	crashWalkCheck(t, base, "profile:server", 0, "journal", func(t *testing.T, e *env, isNew bool) {
		list, err := ReadProfiles(e.state)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, pi := range list.Profiles {
			names = append(names, pi.Name)
		}
		want := []string{"own", "older", "server"}
		if isNew {
			want = []string{"own", "server"}
		}
		slices.Sort(names[1:])
		if !slices.Equal(names, want) {
			t.Errorf("profiles after recovery = %v; want %v", names, want)
		}
	})
}

// TestApplySetAsProfileKeepsOwn applies a set as a profile: the set is
// recorded (followed) and current, own keeps what the player had, and a
// switch to own brings the machine back as it was.
func TestApplySetAsProfileKeepsOwn(t *testing.T) {
	skipUnderRace(t)
	a, alpha, _ := profileSets(t)
	e := newEnv(t)
	p := e.open(t)
	e.dropPack(t, "mine.zip", spec{id: "my-own", version: "0.1.0", lifts: 1, content: map[string]string{"m.pak": "mine"}})
	mustSync(t, p, map[string]Result{"mine.zip": ResultInstalled})
	before := e.machine(t)
	var pins []lock.Entry
	for _, gp := range alpha {
		pins = append(pins, lock.Entry{ID: gp.ID, Version: gp.Version, SHA256: gp.SHA256})
	}
	if _, err := p.ApplySet(t.Context(), pins, SetOptions{Source: a.source, Profile: "srv"}); err != nil {
		t.Fatal(err)
	}
	list, err := p.Profiles()
	if err != nil || list.Current != "srv" || len(list.Profiles) != 2 || list.Profiles[1].Source != SourceFollowed ||
		list.Profiles[1].Fingerprint != lock.Fingerprint(pins) || len(list.Profiles[0].Packs) != 1 {
		t.Fatalf("Profiles = %+v, %v; want own (my-own) and srv (followed, the set's fingerprint) current", list, err)
	}
	if _, err := p.ApplySet(t.Context(), pins, SetOptions{Profile: "own"}); !errors.Is(err, errkind.Invalid) {
		t.Errorf("ApplySet as profile own = %v; want refused as invalid", err)
	}
	if _, err := p.SwitchProfile(t.Context(), "own"); err != nil {
		t.Fatal(err)
	}
	if d := diffMachines(e.machine(t), before); d != "" {
		t.Fatalf("own after the set differs from the machine before it:\n%s", d)
	}
}

// TestSaveOwnAwayForgetsWhatOwnHad saves the installed server set as own
// while the server's profile is current: the packs own had (one installed
// before, one dropped meanwhile) are no longer needed, and their archives
// and stored manifests go once the state without them is written.
func TestSaveOwnAwayForgetsWhatOwnHad(t *testing.T) {
	skipUnderRace(t)
	a, alpha, _ := profileSets(t)
	e := newEnv(t)
	p := e.open(t)
	e.dropPack(t, "mine.zip", spec{id: "my-own", version: "0.1.0", lifts: 1, content: map[string]string{"m.pak": "mine"}})
	mustSync(t, p, map[string]Result{"mine.zip": ResultInstalled})
	if _, err := p.RecordProfile(t.Context(), ProfileSpec{Name: "alpha", Packs: alpha}, a.source); err != nil {
		t.Fatal(err)
	}
	if _, err := p.SwitchProfile(t.Context(), "alpha"); err != nil {
		t.Fatal(err)
	}
	e.dropPack(t, "extra.zip", spec{id: "extra-doors", version: "1.0.0", doors: 1})
	mustSync(t, p, map[string]Result{"extra.zip": ResultKept})
	if _, err := p.SaveProfile(t.Context(), "own"); err != nil {
		t.Fatal(err)
	}
	// my-own's archive stays for the generations that installed it;
	// manifests are kept for records and own only.
	e.storedManifestsNamed(t)
	for _, f := range listFiles(t, filepath.Join(e.state, store.ArchivesDir)) {
		if strings.HasPrefix(f, "extra-doors-") {
			t.Errorf("the archive %s, only own's before the save, is still kept", f)
		}
	}
}
