package zstd

import (
	"bytes"
	"math/rand/v2"
	"os/exec"
	"testing"
)

// TestDamagedLikeCLI damages frames of the zstd CLI (a byte XORed, a
// stretch cut out, the end cut off) and judges each as `zstd -d` (which
// judges as `zstd -t` does, and gives the bytes) judges it: where the CLI
// refuses, ours refuses; where both accept, both give the same bytes.
// With a checksum, ours accepts exactly what the CLI accepts. Without
// one, ours may refuse more: it requires every Huffman stream and the
// sequences stream to be used up exactly (RFC 8878 sections 4.2.2 and
// 3.1.1.3.2.1), where libzstd lets the last symbol of its two-symbol
// Huffman decoder or the sequences stream run past the end, decoding
// bytes no checksum vouches for.
func TestDamagedLikeCLI(t *testing.T) {
	needCLI(t)
	n := 400
	if testing.Short() {
		n = 40
	}
	r := rand.New(rand.NewPCG(41, 41))
	sources := [][]byte{textLike(40<<10, 21), pakLike(200<<10, 22), randomBytes(3000, 23)}
	var frames [][]byte
	var checked []bool
	for _, src := range sources {
		for _, args := range [][]string{{"-3"}, {"-19", "--no-check"}, {"-1", "--no-check"}, {"-12"}} {
			frames = append(frames, cli(t, src, args...))
			checked = append(checked, len(args) == 1)
		}
	}
	var agreeBad, agreeGood, stricter int
	for i := range n {
		z := damage(frames[i%len(frames)], r)
		want, cerr := cliDecode(z)
		got, err := DecodeAll(nil, z, testWindow, 1<<30)
		switch {
		case cerr != nil && err == nil:
			t.Errorf("damage %d: DecodeAll = %d bytes, no error; zstd -d refuses it: %v", i, len(got), cerr)
		case cerr == nil && err != nil && !checked[i%len(frames)]:
			stricter++
		case cerr == nil && err != nil:
			t.Errorf("damage %d: DecodeAll = %v; zstd -d accepts it (%d bytes)", i, err, len(want))
		case cerr == nil && !bytes.Equal(got, want):
			t.Errorf("damage %d: DecodeAll = %d bytes; zstd -d gives %d other bytes", i, len(got), len(want))
		case cerr == nil:
			agreeGood++
		default:
			agreeBad++
		}
	}
	t.Logf("%d damaged frames: both refused %d, both accepted %d, only ours refused (no checksum) %d", n, agreeBad, agreeGood, stricter)
}

// damage returns a copy of z with one byte XORed, a stretch cut out or
// its end cut off.
func damage(z []byte, r *rand.Rand) []byte {
	z = bytes.Clone(z)
	p := r.IntN(len(z))
	switch r.IntN(4) {
	case 0:
		return z[:p]
	case 1:
		return append(z[:p], z[min(len(z), p+1+r.IntN(16)):]...)
	}
	z[p] ^= byte(1 + r.IntN(255))
	return z
}

// cliDecode decodes z with `zstd -d`.
func cliDecode(z []byte) ([]byte, error) {
	cmd := exec.Command("zstd", "-q", "-d", "-c", "--memory=128MB")
	cmd.Stdin = bytes.NewReader(z)
	return cmd.Output()
}
