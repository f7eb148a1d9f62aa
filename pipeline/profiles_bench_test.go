package pipeline

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/installer/store"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// switchSets writes two sets of 10 packs of 20 MiB each (200 MiB a set)
// that share 5 packs, as stored zips of random bytes, and returns them.
func switchSets(b *testing.B) (*archiveSet, []store.GenerationPack, []store.GenerationPack) {
	a := newArchiveSet(b)
	rng := rand.New(rand.NewPCG(3, 4))
	data := make([]byte, 20<<20)
	pack := func(i int, version string) store.GenerationPack {
		for j := range data {
			data[j] = byte(rng.Uint32())
		}
		s := spec{id: fmt.Sprintf("big-%02d", i), version: version, lifts: 1}
		path := filepath.Join(a.dir, fmt.Sprintf("%s-%s.zip", s.id, version))
		storedZip(b, path, s, "content/big.pak", data)
		sha := fileSHA(b, path)
		a.bySHA[sha] = path
		return store.GenerationPack{ID: s.id, Version: version, SHA256: sha, Enabled: true}
	}
	var one, two []store.GenerationPack
	for i := range 10 {
		p := pack(i, "1.0.0")
		one = append(one, p)
		if i >= 5 {
			p = pack(i, "2.0.0") // the 5 that differ
		}
		two = append(two, p)
	}
	return a, one, two
}

// timed runs step once per iteration and reports, beside the mean, the
// median wall time and the CPU time per switch.
func timed(b *testing.B, step func(i int)) {
	var walls []time.Duration
	cpu := cpuTime()
	i := 0
	for b.Loop() {
		start := time.Now()
		step(i)
		walls = append(walls, time.Since(start))
		i++
	}
	reportCPU(b, cpu)
	slices.Sort(walls)
	b.ReportMetric(float64(walls[len(walls)/2].Microseconds())/1000, "median-ms")
}

// BenchmarkProfileSwitch switches between two profiles of 10 packs (200
// MiB each, 5 packs differ) with no archive source at all, and, on the
// same sets, rolls back between the two generations that apply them: the
// same change by rollback. Goal (issue 38): the switch under 2 s wall and
// at most 1.0× the rollback.
// Run: go test -run XXX -bench ProfileSwitch -benchtime 10x ./pipeline
func BenchmarkProfileSwitch(b *testing.B) {
	a, one, two := switchSets(b)
	b.Run("switch", func(b *testing.B) {
		e := newEnv(b)
		p := e.open(b)
		for name, packs := range map[string][]store.GenerationPack{"one": one, "two": two} {
			if _, err := p.RecordProfile(b.Context(), ProfileSpec{Name: name, Packs: packs}, a.source); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := p.SwitchProfile(b.Context(), "one"); err != nil {
			b.Fatal(err)
		}
		timed(b, func(i int) {
			to := []string{"two", "one"}[i%2]
			sum, err := p.SwitchProfile(b.Context(), to)
			if err != nil || len(sum.Set.Upgraded)+len(sum.Set.Downgraded) != 5 {
				b.Fatalf("SwitchProfile(%s) = %+v, %v; want 5 packs changed", to, sum, err)
			}
		})
	})
	b.Run("rollback", func(b *testing.B) {
		e := newEnv(b)
		p := e.open(b)
		for _, packs := range [][]store.GenerationPack{one, two} {
			var pins []lock.Entry
			for _, gp := range packs {
				pins = append(pins, lock.Entry{ID: gp.ID, Version: gp.Version, SHA256: gp.SHA256})
			}
			if _, err := p.ApplySet(b.Context(), pins, SetOptions{Prune: true, Source: a.source}); err != nil {
				b.Fatal(err)
			}
		}
		timed(b, func(int) {
			sum, err := p.Rollback(b.Context(), 0)
			if err != nil || len(sum.Set.Upgraded)+len(sum.Set.Downgraded) != 5 {
				b.Fatalf("Rollback = %+v, %v; want 5 packs changed", sum, err)
			}
		})
	})
}
