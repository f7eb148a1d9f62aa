package publish

import (
	"fmt"
	"slices"
	"testing"

	"github.com/mjolnir-forge/forgesync/inventory/render"
	"github.com/mjolnir-forge/forgesync/inventory/render/rendertest"
)

func files(b *testing.B, rf []render.File, err error) []File {
	if err != nil {
		b.Fatal(err)
	}
	out := make([]File, len(rf))
	for i, f := range rf {
		out[i] = File(f)
	}
	return out
}

// BenchmarkRenderPublish renders and publishes the four inventory files
// for n installed packs of 10 pieces (doors up to the 256 limit) into a
// folder under the test's temp dir, fsyncs included.
//
//   - changed: each run flips one pack's enabled flag, so all four files
//     are rewritten (prepare, fsync, rename, folder fsync);
//   - unchanged: the same set again, so each file is only read and compared,
//     what a sync with an empty drop folder costs.
//
// Run: go test -run XXX -bench RenderPublish -benchmem ./inventory/publish
func BenchmarkRenderPublish(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		a := rendertest.Packs(n)
		c := slices.Clone(a)
		c[0].Enabled = false
		b.Run(fmt.Sprintf("changed/packs=%d", n), func(b *testing.B) {
			dir := b.TempDir()
			i := 0
			start, _ := rendertest.CPUTime()
			for b.Loop() {
				set := a
				if i%2 == 1 {
					set = c
				}
				i++
				rf, err := render.Files(set)
				res, err := Publish(dir, files(b, rf, err), Options{})
				if err != nil || len(res.Written) != 4 {
					b.Fatalf("Publish = %+v, %v; want 4 written", res, err)
				}
			}
			rendertest.ReportCPU(b, start, i, n)
		})
		b.Run(fmt.Sprintf("unchanged/packs=%d", n), func(b *testing.B) {
			dir := b.TempDir()
			rf, err := render.Files(a)
			if _, err := Publish(dir, files(b, rf, err), Options{}); err != nil {
				b.Fatal(err)
			}
			iters := 0
			start, _ := rendertest.CPUTime()
			for b.Loop() {
				iters++
				rf, err := render.Files(a)
				res, err := Publish(dir, files(b, rf, err), Options{})
				if err != nil || len(res.Unchanged) != 4 {
					b.Fatalf("Publish = %+v, %v; want 4 unchanged", res, err)
				}
			}
			rendertest.ReportCPU(b, start, iters, n)
		})
	}
}
