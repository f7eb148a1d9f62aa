package inflate

import (
	"bytes"
	stdflate "compress/flate"
	"io"
	"math/rand/v2"
	"testing"
)

// TestMutationsMatchStdlib damages valid streams of every compressor
// (flipped bits, random bytes, a random head, a cut) and holds the
// decoder to compress/flate on each: an error where it fails, the same
// bytes where it decodes. 150,000 of them matched when it was written;
// the suite runs a few thousand, FuzzDifferential explores further.
func TestMutationsMatchStdlib(t *testing.T) {
	n := 4000
	if testing.Short() {
		n = 500
	}
	data := corpus()
	var seeds [][]byte
	for _, c := range compressors() {
		for _, name := range []string{"text", "mixed", "period 7", "one byte", "empty", "run"} {
			d := data[name]
			if len(d) > 64<<10 {
				d = d[:64<<10]
			}
			seeds = append(seeds, compress(t, c, d))
		}
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range n {
		s := append([]byte(nil), seeds[rng.IntN(len(seeds))]...)
		switch rng.IntN(4) {
		case 0:
			for k := rng.IntN(3); k >= 0; k-- {
				s[rng.IntN(len(s))] ^= byte(1 << rng.IntN(8))
			}
		case 1:
			s = s[:rng.IntN(len(s)+1)]
		case 2:
			for k := rng.IntN(8); k >= 0; k-- {
				s[rng.IntN(len(s))] = byte(rng.Uint32())
			}
		case 3:
			p := rng.IntN(min(len(s), 40) + 1)
			for k := 0; k < p; k++ {
				s[k] = byte(rng.Uint32())
			}
		}
		want, stdErr := io.ReadAll(io.LimitReader(stdflate.NewReader(bytes.NewReader(s)), 8<<20))
		got, err := io.ReadAll(io.LimitReader(NewReader(bytes.NewReader(s)), 8<<20))
		if (err == nil) != (stdErr == nil) || (err == nil && !bytes.Equal(got, want)) {
			t.Fatalf("damaged stream %d (%x…, %d bytes): decoded %d bytes, %v; compress/flate %d bytes, %v",
				i, s[:min(len(s), 16)], len(s), len(got), err, len(want), stdErr)
		}
	}
}
