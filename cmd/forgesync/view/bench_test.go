package view

import (
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/api"
)

// BenchmarkWriteHistory measures the text of `forgesync history` for 10
// kept generations of 1,000 packs each, each upgrading 10 packs (the
// reading is pipeline's BenchmarkHistory).
// Run: go test -run XXX -bench WriteHistory ./cmd/forgesync/view
func BenchmarkWriteHistory(b *testing.B) {
	h := &api.History{Current: 10, KeptBytes: 1 << 30}
	for n := 10; n >= 1; n-- {
		g := api.HistoryGeneration{Generation: api.Generation{N: n, Time: time.Unix(int64(n), 0), Cause: api.CauseDrop,
			Fingerprint: fmt.Sprintf("sha256:%064x", n), Packs: make([]api.GenerationPack, 1000)}}
		for i := range g.Packs {
			g.Packs[i] = api.GenerationPack{ID: fmt.Sprintf("pack-%05d", i), Version: "1.0.0", SHA256: fmt.Sprintf("%064x", i), Enabled: true}
		}
		for j := range 10 {
			g.Changes = append(g.Changes, api.GenerationChange{Kind: api.ChangeUpdated, ID: fmt.Sprintf("pack-%05d", j), Version: "1.1.0", Previous: "1.0.0"})
		}
		h.Generations = append(h.Generations, g)
	}
	for b.Loop() {
		if err := WriteHistory(io.Discard, h); err != nil {
			b.Fatal(err)
		}
	}
}
