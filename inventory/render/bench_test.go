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
			size := 0
			for b.Loop() {
				files, err := Files(packs)
				if err != nil {
					b.Fatal(err)
				}
				size = 0
				for _, f := range files {
					size += len(f.Data)
				}
			}
			b.SetBytes(int64(size))
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/pack")
		})
	}
}

// BenchmarkParseInstalled reads installed.json back, every manifest
// validated again. Run: go test -run XXX -bench ParseInstalled ./inventory/render
func BenchmarkParseInstalled(b *testing.B) {
	for _, n := range benchSizes {
		data, err := InstalledJSON(rendertest.Packs(n))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("packs=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := ParseInstalled(data); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/pack")
		})
	}
}
