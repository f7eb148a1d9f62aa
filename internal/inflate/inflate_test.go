package inflate

import (
	"bytes"
	stdflate "compress/flate"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"
	"testing/iotest"

	kflate "github.com/klauspost/compress/flate"
)

// corpus returns inputs that exercise every kind of block: text with long
// and short matches, incompressible bytes (stored blocks), runs (distance
// 1), short periods (distances under 8), and sizes around the buffers'.
func corpus() map[string][]byte {
	rng := rand.New(rand.NewPCG(1, 2))
	random := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return b
	}
	// -short (the race detector's run) keeps the sizes just past the
	// buffers'.
	size := 3 << 20
	if testing.Short() {
		size = windowSize + chunkSize + 4<<10
	}
	var text bytes.Buffer
	for text.Len() < size {
		fmt.Fprintf(&text, "row %d lift door panel %06d gravity %.4f\n", rng.IntN(1e6), text.Len()%999983, rng.Float64())
	}
	period := func(p, n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('a' + i%p)
		}
		return b
	}
	mixed := append(append(random(100<<10), text.Bytes()[:150<<10]...), random(70<<10)...)
	return map[string][]byte{
		"empty":         nil,
		"one byte":      {42},
		"text":          text.Bytes(),
		"random":        random(size/3 + 17),
		"run":           bytes.Repeat([]byte{7}, size/4),
		"period 3":      period(3, 300<<10),
		"period 7":      period(7, 300<<10),
		"period 9":      period(9, 300<<10),
		"mixed":         mixed,
		"window edge":   text.Bytes()[:windowSize+chunkSize+maxMatch+1],
		"chunk minus 1": text.Bytes()[:chunkSize-1],
	}
}

// compressors are the writers whose streams are decoded: levels of the
// standard library's and of klauspost's (fewer with -short), Huffman
// only, and stored.
func compressors() map[string]func(io.Writer) io.WriteCloser {
	m := map[string]func(io.Writer) io.WriteCloser{}
	std, kp := []int{stdflate.NoCompression, stdflate.HuffmanOnly, 1, 5, 9}, []int{kflate.ConstantCompression, 1, 4, 6, 9}
	if testing.Short() {
		std, kp = []int{stdflate.NoCompression, stdflate.HuffmanOnly, 5}, []int{1, 6}
	}
	for _, l := range std {
		m[fmt.Sprintf("std level %d", l)] = func(w io.Writer) io.WriteCloser { fw, _ := stdflate.NewWriter(w, l); return fw }
	}
	for _, l := range kp {
		m[fmt.Sprintf("klauspost level %d", l)] = func(w io.Writer) io.WriteCloser { fw, _ := kflate.NewWriter(w, l); return fw }
	}
	return m
}

func compress(t testing.TB, c func(io.Writer) io.WriteCloser, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w := c(&b)
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestRoundTrips(t *testing.T) {
	data := corpus()
	for cname, c := range compressors() {
		for dname, d := range data {
			comp := compress(t, c, d)
			got, err := io.ReadAll(NewReader(bytes.NewReader(comp)))
			if err != nil || !bytes.Equal(got, d) {
				t.Errorf("%s of %s (%d bytes): got %d bytes, %v; want the %d bytes back", cname, dname, len(comp), len(got), err, len(d))
			}
		}
	}
}

// TestSmallReads reads input one byte at a time and output a few bytes
// at a time: every refill and every resumption path.
func TestSmallReads(t *testing.T) {
	d := corpus()["mixed"]
	for cname, c := range compressors() {
		comp := compress(t, c, d)
		z := NewReader(iotest.OneByteReader(bytes.NewReader(comp)))
		var got []byte
		buf := make([]byte, 13)
		for {
			n, err := z.Read(buf)
			got = append(got, buf[:n]...)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v after %d bytes", cname, err, len(got))
			}
		}
		if !bytes.Equal(got, d) {
			t.Errorf("%s: read in small pieces, %d bytes differ from the %d written", cname, len(got), len(d))
		}
	}
}

// TestTruncated: every proper prefix of a stream fails, as in
// compress/flate, never returning io.EOF as if it were whole.
func TestTruncated(t *testing.T) {
	d := corpus()["text"][:40<<10]
	for cname, c := range compressors() {
		comp := compress(t, c, d)
		step := max(1, len(comp)/200)
		if testing.Short() {
			step = max(1, len(comp)/40)
		}
		for n := 0; n < len(comp); n += step {
			_, err := io.ReadAll(NewReader(bytes.NewReader(comp[:n])))
			_, stdErr := io.ReadAll(stdflate.NewReader(bytes.NewReader(comp[:n])))
			if (err == nil) != (stdErr == nil) {
				t.Fatalf("%s cut at %d of %d bytes: %v; compress/flate: %v", cname, n, len(comp), err, stdErr)
			}
		}
	}
}

// TestCorrupt: streams that are not DEFLATE fail with an error naming the
// byte and the fault.
func TestCorrupt(t *testing.T) {
	for _, tt := range []struct {
		name string
		in   []byte
		want string
	}{
		{"block type 3", []byte{0x07}, "block type 3"},
		{"stored length", []byte{0x01, 0x05, 0x00, 0x00, 0x00}, "complement"},
		{"distance too far", []byte{0x03, 0x02, 0x00, 0x00}, "before the start"},
	} {
		_, err := io.ReadAll(NewReader(bytes.NewReader(tt.in)))
		var ce *corruptError
		if !errors.As(err, &ce) || !bytes.Contains([]byte(err.Error()), []byte(tt.want)) {
			t.Errorf("%s: %v; want a CorruptError saying %q", tt.name, err, tt.want)
		}
		if _, stdErr := io.ReadAll(stdflate.NewReader(bytes.NewReader(tt.in))); stdErr == nil {
			t.Errorf("%s: compress/flate accepts it", tt.name)
		}
	}
}

// FuzzDifferential holds the decoder to compress/flate: the same bytes
// where it decodes, an error where it fails.
func FuzzDifferential(f *testing.F) {
	for _, c := range []func(io.Writer) io.WriteCloser{compressors()["std level 5"], compressors()["klauspost level 1"], compressors()["std level 0"]} {
		f.Add(compress(f, c, []byte("lift door panel lift door panel gravity gravity 0.5")))
		f.Add(compress(f, c, corpus()["period 7"][:3000]))
	}
	f.Add([]byte{0x07})
	f.Add([]byte{0x03, 0x02, 0x00, 0x00})
	f.Fuzz(func(t *testing.T, in []byte) {
		want, stdErr := io.ReadAll(io.LimitReader(stdflate.NewReader(bytes.NewReader(in)), 1<<20))
		got, err := io.ReadAll(io.LimitReader(NewReader(bytes.NewReader(in)), 1<<20))
		switch {
		case stdErr == nil && err == nil:
			if !bytes.Equal(got, want) {
				t.Fatalf("decoded %d bytes, compress/flate %d, and they differ", len(got), len(want))
			}
		case stdErr == nil:
			t.Fatalf("failed: %v; compress/flate decodes %d bytes", err, len(want))
		case err == nil:
			t.Fatalf("decoded %d bytes; compress/flate fails: %v", len(got), stdErr)
		}
	})
}

// benchDecoders are the inflaters the benchmarks put side by side.
var benchDecoders = []struct {
	name string
	open func(io.Reader) io.ReadCloser
}{
	{"forgesync", func(r io.Reader) io.ReadCloser { return NewReader(r) }},
	{"klauspost", func(r io.Reader) io.ReadCloser { return kflate.NewReader(r) }},
	{"stdlib", func(r io.Reader) io.ReadCloser { return stdflate.NewReader(r) }},
}

// BenchmarkDecode inflates 3 MiB of text and 1 MiB of random bytes beside
// klauspost/compress's and the standard library's inflaters.
func BenchmarkDecode(b *testing.B) {
	data := corpus()
	for _, dname := range []string{"text", "random"} {
		comp := compress(b, compressors()["klauspost level 6"], data[dname])
		for _, dec := range benchDecoders {
			b.Run(dname+"/"+dec.name, func(b *testing.B) {
				b.SetBytes(int64(len(data[dname])))
				buf := make([]byte, 256<<10)
				for b.Loop() {
					if _, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{dec.open(bytes.NewReader(comp))}, buf); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// bitWriter writes a DEFLATE bit stream: values least significant bit
// first, Huffman codes most significant bit first.
type bitWriter struct {
	out   []byte
	nbits uint
}

func (w *bitWriter) bits(v uint32, n uint) {
	for i := range n {
		if w.nbits%8 == 0 {
			w.out = append(w.out, 0)
		}
		w.out[len(w.out)-1] |= byte(v>>i&1) << (w.nbits % 8)
		w.nbits++
	}
}

func (w *bitWriter) code(c uint32, n uint) { w.bits(reverse(c, n), n) }

// dynamicBlock is a final dynamic block with 257 literal/length codes and
// one distance code of one bit: literal 0 with a code of one bit and the
// end of the block with one of eobLen bits (1: a complete code; 2: an
// incomplete one, which compress/flate refuses), then the end of the
// block. The code length code gives symbol 1 one bit, 2 and 18 two.
func dynamicBlock(eobLen uint32) []byte {
	var w bitWriter
	w.bits(1, 1) // final
	w.bits(2, 2) // dynamic
	w.bits(0, 5) // 257 literal/length codes
	w.bits(0, 5) // 1 distance code
	w.bits(14, 4)
	for _, sym := range codeOrder[:18] {
		l := map[uint8]uint32{1: 1, 2: 2, 18: 2}[sym]
		w.bits(l, 3)
	}
	sym := map[uint32]func(){1: func() { w.code(0, 1) }, 2: func() { w.code(2, 2) }}
	sym[1]()                                                    // literal 0: 1 bit
	w.code(3, 2)                                                // 18: 11-138 zeros
	w.bits(138-11, 7)                                           // literals 1-138
	w.code(3, 2)                                                // 18
	w.bits(117-11, 7)                                           // literals 139-255
	sym[eobLen]()                                               // the end of the block: 1 or 2 bits
	sym[1]()                                                    // distance 0: 1 bit
	w.code(map[uint32]uint32{1: 1, 2: 2}[eobLen], uint(eobLen)) // the end of the block
	return w.out
}

// TestPrefixCodes: a complete code decodes; an incomplete one (not the
// single code of one bit DEFLATE allows) is refused, as compress/flate
// refuses it.
func TestPrefixCodes(t *testing.T) {
	if got, err := io.ReadAll(NewReader(bytes.NewReader(dynamicBlock(1)))); err != nil || len(got) != 0 {
		t.Errorf("a complete code: %d bytes, %v; want an empty stream", len(got), err)
	}
	if _, err := io.ReadAll(stdflate.NewReader(bytes.NewReader(dynamicBlock(1)))); err != nil {
		t.Errorf("compress/flate refuses the complete code: %v", err)
	}
	_, err := io.ReadAll(NewReader(bytes.NewReader(dynamicBlock(2))))
	var ce *corruptError
	if !errors.As(err, &ce) || !bytes.Contains([]byte(err.Error()), []byte("not a valid prefix code")) {
		t.Errorf("an incomplete code: %v; want a CorruptError saying it is not a valid prefix code", err)
	}
	if _, err := io.ReadAll(stdflate.NewReader(bytes.NewReader(dynamicBlock(2)))); err == nil {
		t.Errorf("compress/flate accepts the incomplete code")
	}
}

// TestReuse: Readers closed and made again decode each stream whole, from
// buffers an earlier stream filled, and a closed Reader reads nothing.
func TestReuse(t *testing.T) {
	data := corpus()
	c := compressors()["klauspost level 6"]
	for round := range 3 {
		for _, name := range []string{"mixed", "one byte", "period 3", "empty", "text"} {
			z := NewReader(bytes.NewReader(compress(t, c, data[name])))
			got, err := io.ReadAll(z)
			if err != nil || !bytes.Equal(got, data[name]) {
				t.Fatalf("round %d, %s: %d bytes, %v; want the %d bytes back", round, name, len(got), err, len(data[name]))
			}
			z.Close()
			if n, err := z.Read(make([]byte, 10)); n != 0 || err == nil {
				t.Fatalf("Read after Close = %d, %v; want an error", n, err)
			}
		}
	}
}

// stalled returns no bytes and no error, forever.
type stalled struct{}

func (stalled) Read([]byte) (int, error) { return 0, nil }

// TestStalledInput: a reader that never makes progress ends the stream
// with io.ErrNoProgress instead of a hang.
func TestStalledInput(t *testing.T) {
	if _, err := NewReader(stalled{}).Read(make([]byte, 10)); !errors.Is(err, io.ErrNoProgress) {
		t.Errorf("Read = %v; want io.ErrNoProgress", err)
	}
}

// canonical returns the codes RFC 1951 3.2.2 gives the code lengths lens.
func canonical(lens []uint8) []uint32 {
	var count, next [16]uint32
	for _, n := range lens {
		count[n]++
	}
	count[0] = 0
	for n := 1; n < 16; n++ {
		next[n] = (next[n-1] + count[n-1]) << 1
	}
	codes := make([]uint32, len(lens))
	for s, n := range lens {
		if n > 0 {
			codes[s] = next[n]
			next[n]++
		}
	}
	return codes
}

// TestLongestMatchAfterLiteral: a literal of a 10-bit code, then a match
// of a 15-bit length code with 5 extra bits and a 15-bit distance code
// with 13 extra bits (48 bits), at every alignment of the bit buffer. The
// decoder must refill between them when fewer than 48 bits are left.
func TestLongestMatchAfterLiteral(t *testing.T) {
	const x, h = 'x', 'a' + 7 // h: the literal of 10 bits
	lit := make([]uint8, 285) // symbols 0-284
	lit[x], lit[256] = 1, 2
	for i := range 12 {
		lit['a'+i] = uint8(3 + i) // 3 to 14 bits
	}
	lit['Z'], lit[284] = 15, 15
	dist := make([]uint8, 30)
	for i := range 14 {
		dist[i] = uint8(1 + i)
	}
	dist[28], dist[29] = 15, 15
	litCodes, distCodes := canonical(lit), canonical(dist)

	var w bitWriter
	w.bits(1, 1)
	w.bits(2, 2)
	w.bits(uint32(len(lit)-257), 5)
	w.bits(uint32(len(dist)-1), 5)
	w.bits(19-4, 4)
	for _, sym := range codeOrder {
		if sym <= 15 {
			w.bits(4, 3) // code length symbols 0-15: 4 bits each, code = symbol
		} else {
			w.bits(0, 3)
		}
	}
	for _, n := range append(append([]uint8(nil), lit...), dist...) {
		w.code(uint32(n), 4)
	}
	sym := func(s int) { w.code(litCodes[s], uint(lit[s])) }
	for range 30000 {
		sym(x)
	}
	for k := range 64 {
		for range k % 8 {
			sym(x)
		}
		sym(h)
		sym(284) // length 227 + 5 extra bits
		w.bits(uint32(k%32), 5)
		w.code(distCodes[29], 15) // distance 24577 + 13 extra bits
		w.bits(uint32(k), 13)
	}
	sym(256)

	want, err := io.ReadAll(stdflate.NewReader(bytes.NewReader(w.out)))
	if err != nil {
		t.Fatalf("compress/flate refuses the test stream: %v", err)
	}
	got, err := io.ReadAll(NewReader(bytes.NewReader(w.out)))
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("decoded %d bytes, %v; compress/flate %d bytes (equal: %v)", len(got), err, len(want), bytes.Equal(got, want))
	}
}

// TestUnread: what follows a stream in its reader (a gzip trailer, the
// next member) is Unread's bytes and then the reader's rest, whatever the
// stream's last block and however the input arrives; before the end,
// Unread is nil.
func TestUnread(t *testing.T) {
	after := []byte("TRAILER!and the next member's bytes, all of them")
	for dname, d := range map[string][]byte{"mixed": corpus()["mixed"], "short": []byte("a few bytes, a few bytes"), "empty": nil} {
		for cname, c := range compressors() {
			for _, small := range []bool{false, true} {
				var in io.Reader = bytes.NewReader(append(compress(t, c, d), after...))
				if small {
					in = iotest.OneByteReader(in)
				}
				z := NewReader(in)
				if z.Unread() != nil {
					t.Fatalf("Unread before any read = %q; want nil", z.Unread())
				}
				got, err := io.ReadAll(z)
				if err != nil || !bytes.Equal(got, d) {
					t.Fatalf("%s of %s: %d bytes, %v", cname, dname, len(got), err)
				}
				rest, _ := io.ReadAll(in)
				if follow := append(bytes.Clone(z.Unread()), rest...); !bytes.Equal(follow, after) {
					t.Errorf("%s of %s (one byte at a time: %v): Unread then the reader give %q; want %q", cname, dname, small, follow, after)
				}
				z.Close()
			}
		}
	}
}

// TestBuildSingleCodeAfterFull: a table is reused from block to block and
// a complete code overwrites every entry, so only an incomplete one (the
// single code of one bit compress/flate accepts) clears the table first:
// built after a full code, the half without a code must hold no entry,
// not the last block's symbols.
func TestBuildSingleCodeAfterFull(t *testing.T) {
	tb := table{entries: make([]uint32, distTableSize)}
	full := make([]uint8, 30)
	for i := range full {
		full[i] = 5 // 30 of the 32 five-bit codes...
	}
	full[28], full[29] = 4, 4 // ...made complete: 28/32 + 2/16 = 1
	if !tb.build(full, distBits, kindDist) {
		t.Fatal("the complete distance code was refused")
	}
	single := make([]uint8, 30)
	single[3] = 1
	if !tb.build(single, distBits, kindDist) {
		t.Fatal("the single one-bit code was refused")
	}
	for i, e := range tb.entries {
		want := uint32(0)
		if i&1 == 0 {
			want = symbolEntry(kindDist, 3, 1)
		}
		if e != want {
			t.Fatalf("entry %d = %#x after the single code; want %#x", i, e, want)
		}
	}
}

// BenchmarkDecodeSmall inflates 256 files of about 1.4 KiB of text, each
// deflated on its own, as a pack of many small files holds them: the cost
// of a stream's start and of its blocks' tables more than of decoding.
func BenchmarkDecodeSmall(b *testing.B) {
	text := corpus()["text"]
	var comp [][]byte
	total := 0
	for i := range 256 {
		piece := text[i*1400 : i*1400+1400]
		comp = append(comp, compress(b, compressors()["klauspost level 6"], piece))
		total += len(piece)
	}
	for _, dec := range benchDecoders {
		b.Run(dec.name, func(b *testing.B) {
			b.SetBytes(int64(total))
			buf := make([]byte, 32<<10)
			for b.Loop() {
				for _, c := range comp {
					z := dec.open(bytes.NewReader(c))
					if _, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{z}, buf); err != nil {
						b.Fatal(err)
					}
					z.Close()
				}
			}
		})
	}
}
