package pipeline

import (
	"fmt"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/installer/store"
)

// BenchmarkHistory measures `forgesync history` on a state of 1,000 packs
// with 10 kept generations of 1,000 packs each (each generation upgrades
// 10 packs): read the state file and build the history with what changed
// in each generation (the daemon's conversion and the CLI's text are
// measured apart: BenchmarkWriteHistory in cmd/forgesync/view). Target
// (issue 14): under 20 ms.
// Run: go test -run XXX -bench History -benchtime 50x ./pipeline
func BenchmarkHistory(b *testing.B) {
	e := newEnv(b)
	ps, err := store.Open(b.Context(), e.state)
	if err != nil {
		b.Fatal(err)
	}
	st := &store.State{}
	packs := make([]store.GenerationPack, 1000)
	for i := range packs {
		packs[i] = store.GenerationPack{ID: fmt.Sprintf("pack-%05d", i), Version: "1.0.0", SHA256: fmt.Sprintf("%064x", i), Enabled: true}
	}
	for n := 1; n <= 10; n++ {
		next := make([]store.GenerationPack, len(packs))
		copy(next, packs)
		for j := range 10 {
			k := (n*97 + j*13) % len(next)
			next[k].Version = fmt.Sprintf("1.%d.0", n)
			next[k].SHA256 = fmt.Sprintf("%064x", n*100000+k)
		}
		packs = next
		st.Generations = append(st.Generations, store.Generation{N: n, Cause: CauseDrop, Fingerprint: fingerprint(packs), Packs: packs})
	}
	for _, gp := range packs {
		st.Packs = append(st.Packs, store.PackRecord{ID: gp.ID, Version: gp.Version, Enabled: true, ArchiveSHA256: gp.SHA256,
			Archive: store.KeptKey(gp.ID, gp.Version, gp.SHA256) + ".zip", Manifest: gp.ID + ".json"})
	}
	if err := ps.Save(st); err != nil {
		b.Fatal(err)
	}
	ps.Close()
	cpu := cpuTime()
	for b.Loop() {
		h, err := ReadHistory(e.state)
		if err != nil || len(h.Generations) != 10 {
			b.Fatalf("ReadHistory = %d generations, %v", len(h.Generations), err)
		}
	}
	reportCPU(b, cpu)
}

// reportCPU reports the CPU time per iteration since start, beside the
// wall time: on a shared machine the wall time also measures the others.
func reportCPU(b *testing.B, start time.Duration) {
	if used := cpuTime() - start; used > 0 {
		b.ReportMetric(float64(used.Microseconds())/1000/float64(b.N), "cpu-ms/op")
	}
}

// BenchmarkRollback10of1000 measures a rollback of a 1,000-pack set where
// 10 packs differ (each iteration rolls back and forth between two
// generations), side by side with installing 10 packs (upgrades) from
// drop over the same 1,000-pack state. Target (issue 14): the rollback
// under 2× the drop.
// Run: go test -run XXX -bench Rollback10of1000 -benchtime 10x ./pipeline
func BenchmarkRollback10of1000(b *testing.B) {
	ten := func(version string, salt int) []spec {
		var out []spec
		for i := range 10 {
			out = append(out, spec{id: fmt.Sprintf("bench-%02d", i), version: version, lifts: 2,
				content: map[string]string{"c.pak": fmt.Sprintf("%s %d %0*d", version, salt, 64<<10, i)}})
		}
		return out
	}
	drop := func(b *testing.B, e *env, specs []spec) {
		for _, s := range specs {
			e.dropPack(b, s.id+".zip", s)
		}
	}
	b.Run("rollback", func(b *testing.B) {
		e := installedEnv(b, 990)
		p, _, err := Open(b.Context(), e.options())
		if err != nil {
			b.Fatal(err)
		}
		defer p.Close()
		drop(b, e, ten("2.0.0", 0))
		mustSyncB(b, p)
		drop(b, e, ten("2.1.0", 1))
		mustSyncB(b, p)
		cpu := cpuTime()
		for b.Loop() {
			// The generation before the current one: back and forth
			// between the two sets.
			sum, err := p.Rollback(b.Context(), 0)
			if err != nil || len(sum.Set.Upgraded)+len(sum.Set.Downgraded) != 10 {
				b.Fatalf("Rollback = %+v, %v; want 10 packs changed", sum, err)
			}
		}
		reportCPU(b, cpu)
	})
	b.Run("drop", func(b *testing.B) {
		e := installedEnv(b, 990)
		p, _, err := Open(b.Context(), e.options())
		if err != nil {
			b.Fatal(err)
		}
		defer p.Close()
		drop(b, e, ten("2.0.0", 0))
		mustSyncB(b, p)
		i := 0
		var prep time.Duration
		cpu := cpuTime()
		for b.Loop() {
			b.StopTimer()
			c := cpuTime()
			drop(b, e, ten(fmt.Sprintf("3.%d.0", i), i))
			prep += cpuTime() - c
			i++
			b.StartTimer()
			if sum := mustSyncB(b, p); len(sum.Outcomes) != 10 || sum.Rejected() {
				b.Fatalf("Sync = %+v; want 10 upgrades", sum.Outcomes)
			}
		}
		reportCPU(b, cpu+prep) // writing the archives is not the install's
	})
}

func mustSyncB(b *testing.B, p *Pipeline) *Summary {
	b.Helper()
	sum, err := p.SyncDrop(b.Context())
	if err != nil {
		b.Fatal(err)
	}
	return sum
}
