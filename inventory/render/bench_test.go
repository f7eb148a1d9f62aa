package render

import (
	"fmt"
	"testing"

	"github.com/mjolnir-forge/forgesync/inventory/render/rendertest"
)

var benchSizes = []int{100, 1000, 10000}

// BenchmarkFiles renders all four files for n installed packs of 10 pieces
// (doors up to the 256 limit). ns/pack should stay flat as n grows: the cost
// is linear (sorting adds a log factor too small to see at these sizes).
// Run: go test -run XXX -bench Files -benchmem ./inventory/render
func BenchmarkFiles(b *testing.B) {
	for _, n := range benchSizes {
		packs := rendertest.Packs(n)
		b.Run(fmt.Sprintf("packs=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			size, iters := 0, 0
			start, _ := rendertest.CPUTime()
			for b.Loop() {
				iters++
				files, err := Files(packs)
				if err != nil {
					b.Fatal(err)
				}
				size = 0
				for _, f := range files {
					size += len(f.Data)
				}
			}
			rendertest.ReportCPU(b, start, iters, n)
			b.SetBytes(int64(size))
		})
	}
}
