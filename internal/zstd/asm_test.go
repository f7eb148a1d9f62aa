package zstd

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	kzstd "github.com/klauspost/compress/zstd"
)

// decodeGo decodes z as DecodeAll does with the pure-Go sequences loop
// only.
func decodeGo(z []byte, maxWindow, maxSize uint64) ([]byte, error) {
	was := useAsm
	useAsm = false
	defer func() { useAsm = was }()
	return DecodeAll(nil, z, maxWindow, maxSize)
}

// TestAsmLikeGo holds the assembly sequences loop (where the processor
// runs it) to the pure-Go one: on frames of the zstd CLI at levels 1 to
// 19 and with --long, of klauspost's encoder (which uses the second
// repeat offset more), and on damaged copies of them, both give the same
// bytes and the same error, where, and what. Under the purego tag or off
// amd64 both runs take the Go loop.
func TestAsmLikeGo(t *testing.T) {
	needCLI(t)
	if !useAsm {
		t.Log("no assembly in this build or on this processor: the Go loop against itself")
	}
	n := 512 << 10
	if testing.Short() {
		n = 256 << 10
	}
	data := map[string][]byte{"text": textLike(n, 31), "pak": pakLike(n, 32)}
	r := rand.New(rand.NewPCG(43, 43))
	for name, d := range data {
		var frames [][]byte
		for _, args := range [][]string{{"-1"}, {"-3"}, {"-9"}, {"-19"}, {"--long=24", "-5"}, {"--fast=3"}} {
			frames = append(frames, cli(t, d, args...))
		}
		for _, l := range []kzstd.EncoderLevel{kzstd.SpeedDefault, kzstd.SpeedBestCompression} {
			e, _ := kzstd.NewWriter(nil, kzstd.WithEncoderLevel(l))
			frames = append(frames, e.EncodeAll(d, nil))
		}
		for k, z := range frames {
			for i := range 30 {
				zd := z
				if i > 0 {
					zd = damage(z, r)
				}
				want, werr := decodeGo(zd, testWindow, 1<<30)
				got, err := DecodeAll(nil, zd, testWindow, 1<<30)
				if !bytes.Equal(got, want) || fmt.Sprint(err) != fmt.Sprint(werr) {
					t.Fatalf("%s frame %d damage %d: assembly = %d bytes, %v; Go = %d bytes, %v", name, k, i, len(got), err, len(want), werr)
				}
			}
		}
	}
}
