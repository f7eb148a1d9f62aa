package pipeline

import (
	"archive/zip"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/installer/store"
	"github.com/mjolnir-forge/forgesync/internal/errkind"
)

// TestRollbackToEveryGeneration walks install → upgrade → disable → drop of
// a new pack, keeping what each generation published, then rolls back to
// each earlier generation in turn: every time the inventory files and the
// paks tree equal, byte for byte, those of that generation.
func TestRollbackToEveryGeneration(t *testing.T) {
	skipUnderRace(t)
	e := newEnv(t)
	p := e.open(t)
	published := map[int]map[string]string{}
	record := func(sum *Summary, cause store.Cause) {
		t.Helper()
		h, err := p.History()
		if err != nil {
			t.Fatal(err)
		}
		g := h.Generations[0]
		if sum.Generation != g.N || g.Cause != cause || h.Current != g.N {
			t.Fatalf("generation %d (summary %d), cause %s; want cause %s", g.N, sum.Generation, g.Cause, cause)
		}
		published[g.N] = e.machine(t)
	}

	e.dropPack(t, "gates-1.0.zip", spec{id: "lockout-gates", version: "0.3.1", doors: 2, content: map[string]string{"g.pak": "gates 0.3.1", "old.pak": "only in 0.3.1"}})
	record(mustSync(t, p, map[string]Result{"gates-1.0.zip": ResultInstalled}), CauseDrop)
	e.dropPack(t, "gates-1.1.zip", spec{id: "lockout-gates", version: "0.4.0", doors: 3, content: map[string]string{"g.pak": "gates 0.4.0", "new.pak": "only in 0.4.0"}})
	record(mustSync(t, p, map[string]Result{"gates-1.1.zip": ResultUpgraded}), CauseDrop)
	sum, err := p.Disable(t.Context(), "lockout-gates")
	if err != nil {
		t.Fatal(err)
	}
	record(sum, CauseDisable)
	e.dropPack(t, "wide.zip", spec{id: "foundry-wide", version: "1.4.0", lifts: 2, content: map[string]string{"w.pak": "wide"}})
	record(mustSync(t, p, map[string]Result{"wide.zip": ResultInstalled}), CauseDrop)

	h, err := p.History()
	if err != nil {
		t.Fatal(err)
	}
	var changes []GenerationChange
	for _, g := range h.Generations {
		changes = append(changes, g.Changes...)
	}
	want := []GenerationChange{{Kind: ChangeAdded, ID: "foundry-wide", Version: "1.4.0"}, {Kind: ChangeDisabled, ID: "lockout-gates"},
		{Kind: ChangeUpdated, ID: "lockout-gates", Version: "0.4.0", Previous: "0.3.1"}, {Kind: ChangeAdded, ID: "lockout-gates", Version: "0.3.1"}}
	if !slices.Equal(changes, want) {
		t.Errorf("history changes = %+v; want %+v", changes, want)
	}

	for _, n := range []int{3, 2, 1, 4} {
		sum, err := p.Rollback(t.Context(), n)
		if err != nil {
			t.Fatalf("Rollback(%d) = %v", n, err)
		}
		if d := diffMachines(e.machine(t), published[n]); d != "" {
			t.Fatalf("after Rollback(%d) the machine differs from generation %d:\n%s", n, n, d)
		}
		h, _ := p.History()
		if g := h.Generations[0]; g.Cause != CauseRollback || sum.Generation != g.N || sum.Set == nil {
			t.Fatalf("Rollback(%d) recorded %+v (summary %+v); want a rollback generation", n, g.Generation, sum)
		}
	}
	// A rollback with nothing to do publishes nothing and records nothing.
	sum, err = p.Rollback(t.Context(), 4)
	if err != nil || sum.Generation != 0 || len(sum.Published) != 0 {
		t.Fatalf("Rollback to the current set = %+v, %v; want nothing done", sum, err)
	}
	// The default is the generation before the current one.
	if _, err := p.Rollback(t.Context(), 0); err != nil {
		t.Fatal(err)
	}
	if d := diffMachines(e.machine(t), published[1]); d != "" {
		t.Fatalf("after Rollback(0) the machine is not the generation before (1):\n%s", d)
	}
	if _, err := p.Rollback(t.Context(), 99); !strings.Contains(err.Error(), "generation 99 is not kept") {
		t.Fatalf("Rollback(99) = %v; want not kept", err)
	}
}

// TestKeepGenerationsBoundsArchives upgrades a 10 MiB pack 20 times with
// keep_generations = 3: the archive store holds exactly the archives of
// the last 3 generations, and History reports their size.
func TestKeepGenerationsBoundsArchives(t *testing.T) {
	skipUnderRace(t)
	if testing.Short() {
		t.Skip("writes 200 MiB of archives")
	}
	e := newEnv(t)
	e.keep = 3
	p := e.open(t)
	rng := rand.New(rand.NewPCG(1, 2))
	big := make([]byte, 10<<20)
	for j := range big {
		big[j] = byte(rng.Uint32())
	}
	for i := range 20 {
		big[0], big[1] = byte(i), byte(i>>8) // another archive each time
		storedZip(t, filepath.Join(e.drop, "big.zip"), spec{id: "big-pack", version: fmt.Sprintf("1.%d.0", i)}, "content/big.pak", big)
		if _, err := p.SyncDrop(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	h, err := p.History()
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Generations) != 3 || h.Current != 20 {
		t.Fatalf("kept generations %d, current %d; want 3, 20", len(h.Generations), h.Current)
	}
	var wantKeys []string
	for _, g := range h.Generations {
		for _, gp := range g.Packs {
			wantKeys = append(wantKeys, store.KeptKey(gp.ID, gp.Version, gp.SHA256))
		}
	}
	slices.Sort(wantKeys)
	var gotKeys []string
	var size int64
	for _, f := range listFiles(t, filepath.Join(e.state, store.ArchivesDir)) {
		gotKeys = append(gotKeys, store.KeyOfKept(f))
		info, err := os.Stat(filepath.Join(e.state, store.ArchivesDir, f))
		if err != nil {
			t.Fatal(err)
		}
		size += info.Size()
	}
	if !slices.Equal(gotKeys, wantKeys) {
		t.Fatalf("kept archives %v; want exactly the last 3 generations' %v", gotKeys, wantKeys)
	}
	if h.KeptBytes != size || size < 30<<20 {
		t.Fatalf("History.KeptBytes = %d; want %d (3 archives of 10 MiB)", h.KeptBytes, size)
	}
	if rh, err := ReadHistory(e.state); err != nil || rh.KeptBytes != size || rh.Current != 20 || len(rh.Generations) != 3 {
		t.Fatalf("ReadHistory = %+v, %v; want the same history", rh, err)
	}
	// The daemon's status reports the same size.
	p.Close()
	if st := startRunner(t, e.options(), RunnerOptions{}).Status(); st.KeptArchiveBytes != size || st.Generation != 20 {
		t.Fatalf("status: generation %d, kept archives %d bytes; want 20, %d", st.Generation, st.KeptArchiveBytes, size)
	}
}

// storedZip writes a pack archive whose big file is stored, not deflated:
// the test measures the store, not the compressor.
func storedZip(t testing.TB, path string, s spec, name string, data []byte) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for _, entry := range []struct {
		name string
		data []byte
	}{{"forgepack.json", []byte(s.manifest())}, {name, data}} {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: entry.name, Method: zip.Store})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(entry.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestRollbackOverLimitsRefused rolls back to a generation whose set would
// pass the door limit (the state was edited by hand): it is refused as a
// whole, naming the packs, and nothing changes.
func TestRollbackOverLimitsRefused(t *testing.T) {
	e := newEnv(t)
	p := e.open(t)
	e.dropPack(t, "a.zip", spec{id: "doors-a", version: "1.0.0", doors: 200})
	mustSync(t, p, map[string]Result{"a.zip": ResultInstalled})
	if _, err := p.Disable(t.Context(), "doors-a"); err != nil {
		t.Fatal(err)
	}
	e.dropPack(t, "b.zip", spec{id: "doors-b", version: "1.0.0", doors: 100})
	mustSync(t, p, map[string]Result{"b.zip": ResultInstalled})
	p.Close()

	ps, err := store.Open(t.Context(), e.state)
	if err != nil {
		t.Fatal(err)
	}
	st, err := ps.Load()
	if err != nil {
		t.Fatal(err)
	}
	g := &st.Generations[len(st.Generations)-1]
	for i := range g.Packs {
		g.Packs[i].Enabled = true // 300 doors
	}
	if err := ps.Save(st); err != nil {
		t.Fatal(err)
	}
	ps.Close()
	p = e.open(t)
	before := e.machine(t)
	_, err = p.Rollback(t.Context(), g.N)
	if !errors.Is(err, errkind.Refused) || !strings.Contains(err.Error(), "doors-a (200), doors-b (100)") {
		t.Fatalf("Rollback over the door limit = %v; want refused naming doors-a and doors-b", err)
	}
	if d := diffMachines(e.machine(t), before); d != "" {
		t.Fatalf("a refused rollback changed the machine:\n%s", d)
	}
}
