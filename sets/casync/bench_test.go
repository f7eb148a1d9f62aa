package casync

import (
	"crypto/sha256"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkAssembleDelta rebuilds a 64 MiB pack's v2 (v1 with 0.5% inserted,
// 1% overwritten, 0.25% appended: at 200 MiB the 1 MiB, 2 MiB and
// 512 KiB) from the seed v1 and a store of the chunks v1 lacks, beside a
// SHA-256 of the same v2 file with crypto/sha256 (SHA-NI where the
// processor has it). Compare the sub-benchmarks' ns/op and cpu-s/op
// within one run; scripts/bench-delta-assemble.sh does the same at 200 MiB
// in separate processes, with sha256sum and peak RSS:
//
//	go test -run XXX -bench BenchmarkAssembleDelta -benchtime 5x -count 3 ./casync
func BenchmarkAssembleDelta(b *testing.B) {
	f := newDeltaFixture(b, 64<<20)
	v2 := filepath.Join(f.dir, "v2")
	if err := os.WriteFile(v2, f.v2, 0o644); err != nil {
		b.Fatal(err)
	}
	out := filepath.Join(f.dir, "out")
	b.Run("sha256", func(b *testing.B) {
		b.SetBytes(int64(len(f.v2)))
		cpu := startCPU()
		for b.Loop() {
			r, err := os.Open(v2)
			if err != nil {
				b.Fatal(err)
			}
			h := sha256.New()
			if _, err := io.Copy(h, r); err != nil {
				b.Fatal(err)
			}
			r.Close()
		}
		cpu.report(b)
	})
	want := sha256.Sum256(f.v2)
	for _, par := range []int{1, 2, 4} {
		for _, whole := range []bool{false, true} {
			// assemble-N checks each seed chunk; assemble-N-sha256 checks
			// the file's SHA-256 instead, as fetch does.
			name := "assemble-" + string(rune('0'+par))
			opt := AssembleOptions{Parallel: par}
			if whole {
				name, opt.SHA256 = name+"-sha256", &want
			}
			b.Run(name, func(b *testing.B) {
				b.SetBytes(int64(len(f.v2)))
				cpu := startCPU()
				for b.Loop() {
					os.Remove(out)
					w, err := os.Create(out)
					if err != nil {
						b.Fatal(err)
					}
					if st, err := Assemble(b.Context(), w, f.ix, []Seed{f.seed}, f.store, opt); err != nil || st.Rechecked {
						b.Fatalf("Assemble = %+v, %v", st, err)
					}
					w.Close()
				}
				cpu.report(b)
			})
		}
	}
}
