package pipeline

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/mjolnir-forge/forgesync/installer/store"
	"github.com/mjolnir-forge/forgesync/internal/toolcheck"
	"github.com/mjolnir-forge/forgesync/inventory"
	"github.com/mjolnir-forge/forgesync/inventory/render"
)

// installedEnv returns an env whose state holds n installed packs of 10
// pieces each (doors kept under the 256 limit), published once.
func installedEnv(b *testing.B, n int) *env {
	b.Helper()
	e := newEnv(b)
	ps, err := store.Open(b.Context(), e.state)
	if err != nil {
		b.Fatal(err)
	}
	st := &store.State{}
	doors := 0
	for i := range n {
		s := spec{id: fmt.Sprintf("pack-%05d", i), version: "1.0.0"}
		if doors+2 <= inventory.MaxDoorsInstalled {
			s.doors = 2
			doors += 2
		}
		s.lifts = 10 - s.doors
		m, err := inventory.Decode("bench", []byte(s.manifest()))
		if err != nil {
			b.Fatal(err)
		}
		norm, _ := render.Manifest(m)
		name, err := ps.WriteManifest(m.ID, norm)
		if err != nil {
			b.Fatal(err)
		}
		st.Packs = append(st.Packs, store.PackRecord{ID: m.ID, Version: m.Version, Enabled: true,
			ArchiveSHA256: fmt.Sprintf("%064x", i), Archive: m.ID + ".zip", Manifest: name})
		os.WriteFile(filepath.Join(e.state, store.ArchivesDir, m.ID+".zip"), nil, 0o644)
	}
	if err := ps.Save(st); err != nil {
		b.Fatal(err)
	}
	ps.Close()
	p, _, err := Open(b.Context(), e.options())
	if err != nil {
		b.Fatal(err)
	}
	p.Close()
	return e
}

// BenchmarkSyncIdle measures `sync` with an empty drop folder and 1,000
// packs installed (open with recovery, scan, republish check), side by side
// with `cp` of the same four inventory files as the floor.
// Run: go test -run XXX -bench SyncIdle -benchtime 20x ./pipeline
func BenchmarkSyncIdle(b *testing.B) {
	e := installedEnv(b, 1000)
	b.Run("sync", func(b *testing.B) {
		for b.Loop() {
			p, _, err := Open(b.Context(), e.options())
			if err != nil {
				b.Fatal(err)
			}
			if _, err := p.SyncDrop(b.Context()); err != nil {
				b.Fatal(err)
			}
			p.Close()
		}
	})
	b.Run("cp-floor", func(b *testing.B) {
		cp := toolcheck.Need(b, "cp")[0]
		dst := b.TempDir()
		var srcs []string
		for _, f := range inventoryNames {
			srcs = append(srcs, filepath.Join(InventoryDir(e.mods), f))
		}
		for b.Loop() {
			if out, err := exec.Command(cp, append(srcs, dst)...).CombinedOutput(); err != nil {
				b.Fatalf("cp: %v %s", err, out)
			}
		}
	})
}

// BenchmarkSyncInstall measures one archive's install end to end
// (claim, extract, validate, place, state, publish) with 100 packs installed.
func BenchmarkSyncInstall(b *testing.B) {
	e := installedEnv(b, 100)
	p, _, err := Open(b.Context(), e.options())
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	i := 0
	for b.Loop() {
		b.StopTimer()
		e.dropPack(b, "new.zip", spec{id: "bench-new", version: fmt.Sprintf("1.0.%d", i), lifts: 3})
		i++
		b.StartTimer()
		if _, err := p.SyncDrop(b.Context()); err != nil {
			b.Fatal(err)
		}
	}
}
