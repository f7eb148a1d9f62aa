package zstd

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"testing/iotest"

	kzstd "github.com/klauspost/compress/zstd"
)

// testWindow is the window limit of the tests: --long's 128 MiB.
const testWindow = 1 << 27

// needCLI skips the test when the zstd CLI is missing, except under CI,
// where it fails.
func needCLI(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("zstd"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("zstd CLI missing under CI: %v", err)
		}
		t.Skipf("zstd CLI missing: %v", err)
	}
}

// cli runs zstd with args on in and returns its output.
func cli(t testing.TB, in []byte, args ...string) []byte {
	t.Helper()
	cmd := exec.Command("zstd", append([]string{"-q", "-c"}, args...)...)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("zstd %v: %v: %s", args, err, stderr.Bytes())
	}
	return out
}

// textLike returns n bytes of word-like text from seed.
func textLike(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	words := make([][]byte, 2000)
	for i := range words {
		w := make([]byte, 2+r.IntN(9))
		for j := range w {
			w[j] = byte('a' + r.IntN(26))
		}
		words[i] = w
	}
	var b bytes.Buffer
	for b.Len() < n {
		b.Write(words[int(r.ExpFloat64()*200)%len(words)])
		if r.IntN(12) == 0 {
			b.WriteString(".\n")
		} else {
			b.WriteByte(' ')
		}
	}
	return b.Bytes()[:n]
}

// randomBytes returns n bytes of noise.
func randomBytes(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 2))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// pakLike returns n bytes mixing text, noise, runs and repeats, as a game
// archive does: tables, compressed textures, padding, copies.
func pakLike(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 3))
	var b bytes.Buffer
	for b.Len() < n {
		k := 512 + r.IntN(64<<10)
		switch r.IntN(5) {
		case 0:
			b.Write(textLike(k, r.Uint64()))
		case 1:
			b.Write(randomBytes(k, r.Uint64()))
		case 2:
			b.Write(bytes.Repeat([]byte{byte(r.IntN(3))}, k))
		case 3:
			for i := 0; i < k/8; i++ {
				var v [8]byte
				v[0], v[1], v[4] = byte(i), byte(i>>8), byte(r.IntN(4))
				b.Write(v[:])
			}
		default:
			if b.Len() > k {
				s := r.IntN(b.Len() - k)
				b.Write(bytes.Clone(b.Bytes()[s : s+k]))
			}
		}
	}
	return b.Bytes()[:n]
}

// decodeBoth decodes z with DecodeAll and with a Reader and fails unless
// both give want.
func decodeBoth(t *testing.T, name string, z, want []byte) {
	t.Helper()
	got, err := DecodeAll(nil, z, testWindow, 1<<32)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("%s: DecodeAll = %d bytes, %v; want %d bytes (equal %v)", name, len(got), err, len(want), bytes.Equal(got, want))
	}
	for how, r := range readers(z) {
		if len(z) > 256<<10 && how != "plain" && how != "in memory" {
			continue // the slow sources on the small inputs only
		}
		got, err = io.ReadAll(NewReader(r, testWindow))
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s: Reader (%s) = %d bytes, %v; want %d bytes", name, how, len(got), err, len(want))
		}
	}
}

// readers gives z as each kind of source a Reader reads differently: in
// memory; a plain reader (a file), which it reads through its own buffer
// and decodes each block in place there; a buffer of the caller's too
// small for a block, from which blocks are copied; and one byte at a time.
func readers(z []byte) map[string]io.Reader {
	return map[string]io.Reader{
		"in memory":      bytes.NewReader(z),
		"plain":          plainReader{bytes.NewReader(z)},
		"small buffer":   bufio.NewReaderSize(plainReader{bytes.NewReader(z)}, 16),
		"byte at a time": iotest.OneByteReader(bytes.NewReader(z)),
	}
}

func corpora(short bool) map[string][]byte {
	n := 3 << 20
	if short {
		n = 300 << 10
	}
	return map[string][]byte{
		"empty":  {},
		"one":    {'x'},
		"text":   textLike(n, 1),
		"random": randomBytes(n/4, 2),
		"pak":    pakLike(n, 3),
		"zeros":  make([]byte, n),
	}
}

func TestCLILevels(t *testing.T) {
	needCLI(t)
	levels := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19}
	if testing.Short() {
		levels = []int{1, 3, 9, 19}
	}
	for name, data := range corpora(testing.Short()) {
		for _, l := range levels {
			for _, check := range []string{"--check", "--no-check"} {
				z := cli(t, data, "-"+strconv.Itoa(l), check)
				decodeBoth(t, name+" -"+strconv.Itoa(l)+" "+check, z, data)
			}
		}
	}
}

func TestCLIModes(t *testing.T) {
	needCLI(t)
	if testing.Short() {
		t.Skip("long: the zstd CLI on megabytes")
	}
	data := pakLike(12<<20, 7)
	for _, args := range [][]string{
		{"--long=27", "-3"}, {"--long=24", "-19"}, {"--rsyncable", "-3"}, {"--rsyncable", "-19"},
		{"-T2", "-3", "--rsyncable"}, {"-T2", "-12"}, {"--ultra", "-22"}, {"--fast=5"},
	} {
		decodeBoth(t, "zstd "+strconv.Quote(args[0]+" "+args[len(args)-1]), cli(t, data, args...), data)
	}
}

func TestMultiFrame(t *testing.T) {
	needCLI(t)
	a, b := textLike(100<<10, 4), pakLike(200<<10, 5)
	skip := []byte{0x5a, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 1, 2, 3}
	z := slicesConcat(cli(t, a, "-5"), skip, cli(t, nil), cli(t, b, "--no-check", "-1"), cli(t, a[:10], "-19"))
	decodeBoth(t, "multi", z, slicesConcat(a, b, a[:10]))
}

func slicesConcat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func TestKlauspost(t *testing.T) {
	for name, data := range corpora(testing.Short()) {
		for _, l := range []kzstd.EncoderLevel{kzstd.SpeedFastest, kzstd.SpeedDefault, kzstd.SpeedBetterCompression, kzstd.SpeedBestCompression} {
			e, _ := kzstd.NewWriter(nil, kzstd.WithEncoderLevel(l), kzstd.WithEncoderCRC(l != kzstd.SpeedDefault))
			decodeBoth(t, name+" "+l.String(), e.EncodeAll(data, nil), data)
		}
	}
}

func TestLimits(t *testing.T) {
	needCLI(t)
	data := textLike(1<<20, 9)
	z := cli(t, data, "--long=24", "-3")
	_, err := DecodeAll(nil, z, 1<<20, 1<<30)
	if !errors.Is(err, ErrWindow) {
		t.Fatalf("DecodeAll with a 1 MiB window = %v; want ErrWindow", err)
	}
	_, err = io.ReadAll(NewReader(bytes.NewReader(z), 1<<20))
	if !errors.Is(err, ErrWindow) {
		t.Fatalf("Reader with a 1 MiB window = %v; want ErrWindow", err)
	}
	_, err = DecodeAll(nil, z, 1<<30, 1000)
	if !errors.Is(err, ErrSize) {
		t.Fatalf("DecodeAll with a 1000-byte limit = %v; want ErrSize", err)
	}
	dict := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x21, 0x07, 0, 1, 0, 0}
	if _, err = DecodeAll(nil, dict, 1<<30, 1<<30); !errors.Is(err, ErrDictionary) {
		t.Fatalf("DecodeAll of a frame naming dictionary 7 = %v; want ErrDictionary", err)
	}
}
