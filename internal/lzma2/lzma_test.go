package lzma2

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mjolnir-forge/forgesync/internal/toolcheck"
	"github.com/ulikunitz/xz/lzma"
)

// lzmaProps are the lc, lp and pb of an LZMA stream.
type lzmaProps struct{ lc, lp, pb int }

func (p lzmaProps) String() string { return fmt.Sprintf("lc%d lp%d pb%d", p.lc, p.lp, p.pb) }

// encodeLZMA compresses data as a raw LZMA stream with ulikunitz's
// Writer, with an end marker or with none (the size then known), and
// returns it and its five property bytes.
func encodeLZMA(t testing.TB, data []byte, p lzmaProps, dictCap int, marker bool) ([]byte, [5]byte) {
	t.Helper()
	var buf bytes.Buffer
	cfg := lzma.WriterConfig{
		Properties: &lzma.Properties{LC: p.lc, LP: p.lp, PB: p.pb}, DictCap: dictCap,
		SizeInHeader: !marker, Size: int64(len(data)), EOSMarker: marker,
	}
	w, err := cfg.NewWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	return b[13:], [5]byte(b[:5])
}

// decodeLZMA1 decodes a raw LZMA stream with this package, reading
// through an odd-sized buffer so reads end everywhere.
func decodeLZMA1(packed []byte, props [5]byte, size uint64) ([]byte, error) {
	r, err := NewLZMAReader(bytes.NewReader(packed), props, size)
	if err != nil {
		return nil, err
	}
	var out []byte
	buf := make([]byte, 7777)
	for {
		n, err := r.Read(buf)
		out = append(out, buf[:n]...)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
	}
}

// refDecodeLZMA decodes a raw LZMA stream with ulikunitz's Reader, with
// the .lzma header made for it.
func refDecodeLZMA(packed []byte, props [5]byte, size uint64) ([]byte, error) {
	h := make([]byte, 13)
	copy(h, props[:])
	binary.LittleEndian.PutUint64(h[5:], size)
	r, err := lzma.NewReader(io.MultiReader(bytes.NewReader(h), bytes.NewReader(packed)))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(r)
}

// lzmaInputs are named inputs for the LZMA reader: empty, tiny, text and
// random bytes, and an input several times the 64 KiB dictionary.
func lzmaInputs() map[string][]byte {
	text := textLike(1<<20, 21)
	rnd := randomBytes(300<<10, 22)
	var mixed []byte
	for i := range 4 {
		mixed = append(mixed, text[i<<17:(i+1)<<17]...)
		mixed = append(mixed, rnd[i<<15:(i+1)<<15]...)
		mixed = append(mixed, text[:40<<10]...) // a repeat from far back
	}
	m := map[string][]byte{
		"empty":     {},
		"one byte":  {'x'},
		"two bytes": {0, 0},
		"text":      text,
		"random":    rnd[:100<<10],
		"mixed":     mixed,
		"zeros":     make([]byte, 1<<20),
		"ab repeat": bytes.Repeat([]byte("ab"), 1<<17),
	}
	if raceEnabled {
		for name, b := range m {
			if len(b) > 1<<17 {
				m[name] = b[:1<<17]
			}
		}
	}
	return m
}

func TestLZMAAgainstUlikunitz(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (the reference comparison over many streams); run without -short")
	}
	const dict = 64 << 10
	variants := []lzmaProps{{0, 0, 0}, {8, 0, 0}, {0, 4, 4}, {1, 3, 1}, {8, 4, 4}, {4, 0, 2}}
	for name, data := range lzmaInputs() {
		ps := []lzmaProps{{3, 0, 2}}
		if name == "mixed" || name == "one byte" || name == "empty" {
			ps = append(ps, variants...)
		}
		for _, p := range ps {
			for _, marker := range []bool{false, true} {
				packed, props := encodeLZMA(t, data, p, dict, marker)
				what := fmt.Sprintf("%s, %v, end marker %v", name, p, marker)
				n := uint64(len(data))
				sizes := []uint64{n}
				if marker {
					sizes = append(sizes, unknownSize)
				}
				for _, size := range sizes {
					got, err := decodeLZMA1(packed, props, size)
					if err != nil || !bytes.Equal(got, data) {
						t.Fatalf("%s: decodeLZMA1(size %d) = %d bytes, %v; want the %d encoded, nil", what, size, len(got), err, len(data))
					}
				}
				// (ulikunitz's Reader fails on an empty stream without an
				// end marker.)
				if ref, err := refDecodeLZMA(packed, props, sizes[len(sizes)-1]); n > 0 && (err != nil || !bytes.Equal(ref, data)) {
					t.Fatalf("%s: the reference decoder disagrees (%v)", what, err)
				}
				// A size other than the stream's is an error, and so is a
				// stream without an end marker whose size is unknown.
				bad := []uint64{n + 1}
				if n > 0 {
					bad = append(bad, n-1)
				}
				if !marker {
					bad = append(bad, unknownSize)
				}
				for _, size := range bad {
					if got, err := decodeLZMA1(packed, props, size); err == nil {
						t.Errorf("%s: decodeLZMA1(size %d) = %d bytes, nil; want an error", what, size, len(got))
					}
				}
			}
		}
	}
}

// TestLZMAXZ decodes .lzma files made by xz, their 13-byte header
// stripped: xz writes no size and an end marker.
func TestLZMAXZ(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (xz streams against the reference); run without -short")
	}
	xz := toolcheck.Need(t, "xz")[0]
	data := append(textLike(640<<10, 23), randomBytes(128<<10, 24)...)
	data = append(data, textLike(256<<10, 25)...)
	for _, opts := range []string{
		"preset=0", "preset=6,dict=64KiB", "preset=1,dict=4KiB", "preset=6,lc=0,lp=4,pb=4",
		"preset=6,lc=4,lp=0,pb=0", "preset=6,lc=1,lp=3,pb=2,nice=273",
	} {
		t.Run(opts, func(t *testing.T) {
			cmd := exec.Command(xz, "--format=lzma", "--lzma1="+opts, "-c")
			cmd.Stdin = bytes.NewReader(data)
			out, err := cmd.Output()
			if err != nil {
				t.Fatal(err)
			}
			props, packed := [5]byte(out[:5]), out[13:]
			if size := binary.LittleEndian.Uint64(out[5:13]); size != unknownSize {
				t.Fatalf("the header declares %d bytes; want the unknown size", size)
			}
			for _, size := range []uint64{unknownSize, uint64(len(data))} {
				got, err := decodeLZMA1(packed, props, size)
				if err != nil || !bytes.Equal(got, data) {
					t.Fatalf("decodeLZMA1(size %d) = %d bytes, %v; want the %d encoded, nil", size, len(got), err, len(data))
				}
			}
		})
	}
	// Its damaged ends, on a smaller stream.
	cmd := exec.Command(xz, "--format=lzma", "-c")
	cmd.Stdin = bytes.NewReader(data[:64<<10])
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	checkDamagedEnd(t, out[13:], [5]byte(out[:5]), data[:64<<10])
}

// checkDamagedEnd cuts the stream at every one of its last 64 bytes and
// flips every bit of its last 16: each is an error.
func checkDamagedEnd(t *testing.T, packed []byte, props [5]byte, data []byte) {
	t.Helper()
	for _, size := range []uint64{uint64(len(data)), unknownSize} {
		for k := 1; k <= 64 && k <= len(packed); k++ {
			if got, err := decodeLZMA1(packed[:len(packed)-k], props, size); err == nil {
				t.Errorf("size %d, cut by %d bytes: decoded %d bytes, nil; want an error", size, k, len(got))
			}
		}
		for k := 1; k <= 16 && k <= len(packed); k++ {
			for bit := range 8 {
				bad := bytes.Clone(packed)
				bad[len(bad)-k] ^= 1 << bit
				if got, err := decodeLZMA1(bad, props, size); err == nil {
					t.Errorf("size %d, byte -%d bit %d flipped: decoded %d bytes (same: %v), nil; want an error", size, k, bit, len(got), bytes.Equal(got, data))
				}
			}
		}
	}
}

func TestLZMADamagedEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (every damage of the end against the reference); run without -short")
	}
	data := textLike(200<<10, 26)
	for _, marker := range []bool{false, true} {
		t.Run(fmt.Sprintf("end marker %v", marker), func(t *testing.T) {
			packed, props := encodeLZMA(t, data, lzmaProps{3, 0, 2}, 1<<16, marker)
			checkDamagedEnd(t, packed, props, data)
			// Bytes after the stream's end, and an end marker before the
			// declared size, are errors too.
			for _, tail := range [][]byte{{0}, {0, 0, 0, 0}, []byte("junk")} {
				if _, err := decodeLZMA1(append(bytes.Clone(packed), tail...), props, uint64(len(data))); !errors.Is(err, errData) {
					t.Errorf("% x appended: %v; want ErrData", tail, err)
				}
			}
			if marker {
				short, props := encodeLZMA(t, data[:1000], lzmaProps{3, 0, 2}, 1<<16, true)
				if _, err := decodeLZMA1(short, props, 1001); !errors.Is(err, errSize) {
					t.Errorf("end marker before the size: %v; want ErrSize", err)
				}
			}
		})
	}
}

func TestLZMAMalformed(t *testing.T) {
	packed, props := encodeLZMA(t, textLike(100<<10, 27), lzmaProps{3, 0, 2}, 1<<16, false)
	if _, err := NewLZMAReader(bytes.NewReader(packed), [5]byte{225}, 1); !errors.Is(err, errData) {
		t.Errorf("properties byte 225: %v; want ErrData", err)
	}
	cases := map[string][]byte{
		"nothing":           nil,
		"four bytes":        {0, 0, 0, 0},
		"range coder start": append([]byte{1}, packed[1:]...),
		"a match first":     {0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff},
	}
	for name, b := range cases {
		if got, err := decodeLZMA1(b, props, 100<<10); err == nil {
			t.Errorf("%s: decoded %d bytes, nil; want an error", name, len(got))
		}
	}
	// Flipped bits anywhere: an error or, at worst, other bytes of the
	// declared size; never a panic or a loop.
	flips := 2048
	if raceEnabled {
		flips = 128
	}
	for i := range flips {
		bad := bytes.Clone(packed)
		bad[i*7%len(bad)] ^= byte(1 << (i % 8))
		if got, err := decodeLZMA1(bad, props, 100<<10); err == nil && len(got) != 100<<10 {
			t.Fatalf("flip %d: decoded %d bytes with no error", i, len(got))
		}
	}
}

// TestLZMAEndReadWithLastByte: a reader held to the declared size (as a
// 7z folder's is) never asks past the last byte, so a damaged end must
// come with the last bytes.
func TestLZMAEndReadWithLastByte(t *testing.T) {
	data := bytes.Repeat([]byte("end of the stream "), 4000)
	for _, marker := range []bool{false, true} {
		packed, props := encodeLZMA(t, data, lzmaProps{3, 0, 2}, 1<<16, marker)
		readHeld := func(p []byte) ([]byte, error) {
			r, err := NewLZMAReader(bytes.NewReader(p), props, uint64(len(data)))
			if err != nil {
				return nil, err
			}
			return io.ReadAll(io.LimitReader(r, int64(len(data))))
		}
		if got, err := readHeld(packed); err != nil || !bytes.Equal(got, data) {
			t.Fatalf("end marker %v, intact: %d bytes, %v; want %d bytes, nil", marker, len(got), err, len(data))
		}
		bad := bytes.Clone(packed)
		bad[len(bad)-1] ^= 0x01
		if _, err := readHeld(bad); err == nil {
			t.Errorf("end marker %v, last byte flipped: read whole; want an error", marker)
		}
		if _, err := readHeld(append(bytes.Clone(packed), 0)); err == nil {
			t.Errorf("end marker %v, a byte appended: read whole; want an error", marker)
		}
	}
}

// sevenZipNumber reads a 7z NUMBER at b[i:], returning it and its width.
func sevenZipNumber(b []byte, i int) (uint64, int) {
	f := b[i]
	var v uint64
	for n := range 8 {
		mask := byte(0x80) >> n
		if f&mask == 0 {
			return v | uint64(f&(mask-1))<<(8*n), n + 1
		}
		v |= uint64(b[i+1+n]) << (8 * n)
	}
	return v, 9
}

// putSevenZipNumber writes v as a 7z NUMBER of width w into b.
func putSevenZipNumber(b []byte, v uint64, w int) bool {
	n := w - 1
	if n < 8 && v>>(8*n) >= 1<<(7-n) {
		return false
	}
	b[0] = byte(0xff << (8 - n))
	if n < 8 {
		b[0] |= byte(v >> (8 * n))
	}
	for k := range n {
		b[1+k] = byte(v >> (8 * k))
	}
	return true
}

// sevenZipArc is a one-file 7z archive with an LZMA coder and what the
// tests need of it.
type sevenZipArc struct {
	b              []byte
	hdr            []byte // the plain header
	packPos        int    // where the packed stream starts, after the 32-byte start header
	sizeAt, sizeW  int    // where in hdr the pack size is, and its width
	packed         []byte
	props          [5]byte
	encodedHeader  bool
	unpackedHeader []byte // the header, when it was packed
}

// plainPackInfo reads the pack position and the first pack size of a
// plain header.
func plainPackInfo(t *testing.T, h []byte) (pos uint64, size uint64, sizeAt, sizeW int) {
	t.Helper()
	if len(h) < 4 || (h[0] != 0x01 && h[0] != 0x17) {
		t.Fatalf("not a 7z header: % x", h[:min(len(h), 8)])
	}
	i := 1
	if h[0] == 0x01 {
		if h[1] != 0x04 {
			t.Fatalf("no main streams info: % x", h[:8])
		}
		i = 2
	}
	if h[i] != 0x06 {
		t.Fatalf("no pack info: % x", h[:8])
	}
	i++
	pos, w := sevenZipNumber(h, i)
	i += w
	_, w = sevenZipNumber(h, i)
	i += w
	if h[i] != 0x09 {
		t.Fatalf("no pack sizes: % x", h[:16])
	}
	i++
	size, w = sevenZipNumber(h, i)
	return pos, size, i, w
}

// lzmaCoderProps finds the LZMA coder's five property bytes in a header
// and the unpack size that follows them when it is a header's own
// folder.
func lzmaCoderProps(t *testing.T, h []byte) ([5]byte, int) {
	t.Helper()
	i := bytes.Index(h, []byte{0x03, 0x01, 0x01, 0x05})
	if i < 0 {
		t.Fatalf("no LZMA coder in the header % x", h)
	}
	return [5]byte(h[i+4 : i+9]), i + 9
}

// readSevenZip parses a one-file 7z archive with an LZMA coder.
func readSevenZip(t *testing.T, b []byte) *sevenZipArc {
	t.Helper()
	off := int(binary.LittleEndian.Uint64(b[12:]))
	size := int(binary.LittleEndian.Uint64(b[20:]))
	a := &sevenZipArc{b: b, hdr: b[32+off : 32+off+size]}
	h := a.hdr
	if h[0] == 0x17 {
		// The header is packed with LZMA too: decode it with the
		// reader under test.
		a.encodedHeader = true
		pos, psize, _, _ := plainPackInfo(t, h)
		props, at := lzmaCoderProps(t, h)
		if h[at] != 0x0c {
			t.Fatalf("no unpack size after the header's coder: % x", h)
		}
		usize, _ := sevenZipNumber(h, at+1)
		var err error
		h, err = decodeLZMA1(b[32+pos:32+pos+psize], props, usize)
		if err != nil {
			t.Fatalf("the packed header: %v", err)
		}
		a.unpackedHeader = h
	}
	pos, psize, at, w := plainPackInfo(t, h)
	a.packPos, a.sizeAt, a.sizeW = int(pos), at, w
	a.packed = b[32+pos : 32+pos+psize]
	a.props, _ = lzmaCoderProps(t, h)
	return a
}

// withPacked is the archive with its packed stream replaced by p, the
// pack size and the checksums of the headers made to match; ok is false
// when the size does not fit the width of the old one.
func (a *sevenZipArc) withPacked(p []byte) ([]byte, bool) {
	hdr := bytes.Clone(a.hdr)
	if !putSevenZipNumber(hdr[a.sizeAt:], uint64(len(p)), a.sizeW) {
		return nil, false
	}
	var out []byte
	out = append(out, a.b[:32]...)
	out = append(out, a.b[32:32+a.packPos]...)
	out = append(out, p...)
	out = append(out, a.b[32+a.packPos+len(a.packed):32+len(a.b[32:])-len(a.hdr)]...)
	binary.LittleEndian.PutUint64(out[12:], uint64(len(out)-32))
	out = append(out, hdr...)
	binary.LittleEndian.PutUint32(out[28:], crc32.ChecksumIEEE(hdr))
	binary.LittleEndian.PutUint32(out[8:], crc32.ChecksumIEEE(out[12:32]))
	return out, true
}

// makeArchive runs argv (OUT the archive) in a folder holding a.txt with
// data, and returns the archive.
func makeArchive(t *testing.T, data []byte, argv ...string) []byte {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "a.7z")
	argv = slices.Clone(argv)
	for i, a := range argv {
		if a == "OUT" {
			argv[i] = out
		}
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %v\n%s", argv, err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sevenZipMakers are the real tools' ways of writing a one-file 7z with
// an LZMA coder.
var sevenZipMakers = []struct {
	name string
	argv []string
}{
	{"7z -m0=LZMA", []string{"7z", "a", "-bd", "-bso0", "-mhc=off", "-m0=LZMA", "OUT", "a.txt"}},
	{"7z -mx1", []string{"7z", "a", "-bd", "-bso0", "-mhc=off", "-mx1", "-m0=LZMA", "OUT", "a.txt"}},
	{"7z lc4 lp0 pb0 d64k", []string{"7z", "a", "-bd", "-bso0", "-mhc=off", "-m0=LZMA:d=64k:lc=4:lp=0:pb=0", "OUT", "a.txt"}},
	{"7z lc8 lp4 pb4", []string{"7z", "a", "-bd", "-bso0", "-mhc=off", "-m0=LZMA:lc=8:lp=4:pb=4", "OUT", "a.txt"}},
	{"7z eos", []string{"7z", "a", "-bd", "-bso0", "-mhc=off", "-m0=LZMA:eos", "OUT", "a.txt"}},
	{"7z header packed", []string{"7z", "a", "-bd", "-bso0", "-m0=LZMA", "OUT", "a.txt"}},
	{"bsdtar", []string{"bsdtar", "--format", "7zip", "-cf", "OUT", "a.txt"}},
	{"bsdtar level 9", []string{"bsdtar", "--format", "7zip", "--options", "7zip:compression-level=9", "-cf", "OUT", "a.txt"}},
}

// Test7zLZMA decodes the LZMA packed stream of 7z archives made by 7z and
// by bsdtar, with the properties and size the archive declares.
func Test7zLZMA(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (7z archives against the reference); run without -short")
	}
	toolcheck.Need(t, "7z", "bsdtar")
	data := append(textLike(1<<20, 28), randomBytes(1<<18, 29)...)
	for _, m := range sevenZipMakers {
		t.Run(m.name, func(t *testing.T) {
			a := readSevenZip(t, makeArchive(t, data, m.argv...))
			got, err := decodeLZMA1(a.packed, a.props, uint64(len(data)))
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("decodeLZMA1 = %d bytes, %v; want the %d archived, nil", len(got), err, len(data))
			}
			_, err = decodeLZMA1(a.packed, a.props, unknownSize)
			t.Logf("props % x, header packed %v, end marker %v", a.props, a.encodedHeader, err == nil)
		})
	}
}

// sevenZipTest reports whether `7z t` accepts the archive b. It runs in
// goroutines of its own: a failure to write b is an Error.
func sevenZipTest(t *testing.T, dir string, b []byte) bool {
	f, err := os.CreateTemp(dir, "*.7z")
	if err != nil {
		t.Error(err)
		return false
	}
	defer os.Remove(f.Name())
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Error(err)
		return false
	}
	return exec.Command("7z", "t", "-bd", "-bso0", "-bse0", "-bsp0", f.Name()).Run() == nil
}

// Test7zLZMADamagedEnd cuts the packed stream of real 7z archives at each
// of its last 64 bytes and flips each bit of its last 16, and compares
// the reader's verdict with `7z t`'s: the reader accepts exactly what 7z
// accepts (decodes without error to the archived bytes).
func Test7zLZMADamagedEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (every damage of the end against 7z and bsdtar); run without -short")
	}
	toolcheck.Need(t, "7z", "bsdtar")
	data := append(textLike(40<<10, 30), randomBytes(8<<10, 31)...)
	dir := t.TempDir()
	for _, m := range sevenZipMakers {
		if strings.Contains(m.name, "lc") || strings.Contains(m.name, "mx1") || strings.Contains(m.name, "level") {
			continue // the same ends as the others
		}
		t.Run(m.name, func(t *testing.T) {
			a := readSevenZip(t, makeArchive(t, data, m.argv...))
			if !sevenZipTest(t, dir, a.b) {
				t.Fatal("7z t refuses the intact archive")
			}
			type damage struct {
				how    string
				packed []byte
			}
			var cases []damage
			if !a.encodedHeader {
				for k := 1; k <= 64; k++ {
					cases = append(cases, damage{fmt.Sprintf("cut by %d", k), a.packed[:len(a.packed)-k]})
				}
				cases = append(cases, damage{"a zero appended", append(bytes.Clone(a.packed), 0)})
			}
			for k := 1; k <= 16; k++ {
				for bit := range 8 {
					p := bytes.Clone(a.packed)
					p[len(p)-k] ^= 1 << bit
					cases = append(cases, damage{fmt.Sprintf("byte -%d bit %d flipped", k, bit), p})
				}
			}
			var wg sync.WaitGroup
			sem := make(chan struct{}, 2)
			for _, c := range cases {
				arc := bytes.Clone(a.b)
				if len(c.packed) == len(a.packed) {
					copy(arc[32+a.packPos:], c.packed)
				} else {
					var ok bool
					if arc, ok = a.withPacked(c.packed); !ok {
						continue
					}
				}
				wg.Add(1)
				sem <- struct{}{}
				go func() {
					defer func() { <-sem; wg.Done() }()
					ref := sevenZipTest(t, dir, arc)
					got, err := decodeLZMA1(c.packed, a.props, uint64(len(data)))
					ours := err == nil && bytes.Equal(got, data)
					if ours != ref {
						t.Errorf("%s: 7z t accepts it: %v; the reader: %d bytes (archived ones: %v), %v", c.how, ref, len(got), bytes.Equal(got, data), err)
					}
				}()
			}
			wg.Wait()
		})
	}
}
