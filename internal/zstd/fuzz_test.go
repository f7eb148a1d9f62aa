package zstd

import (
	"bytes"
	"fmt"
	"io"
	"testing"

	kzstd "github.com/klauspost/compress/zstd"
)

// Limits of the fuzz targets: small, so that a frame claiming more is
// refused quickly.
const fuzzWindow, fuzzSize = 1 << 20, 4 << 20

// FuzzDecode feeds any bytes to DecodeAll and to a Reader: neither may
// panic or decode more than the limit, and both agree on the bytes and
// on whether the stream is valid; a Reader gives the same bytes and error
// from every kind of source (see readers); DecodeAll gives the same bytes and
// error with the assembly sequences loop as without.
//
// Seeds: the corpus of testdata/fuzz/FuzzDecode (frames of the zstd CLI
// at several levels, with and without checksum, skippable and empty
// frames).
func FuzzDecode(f *testing.F) {
	f.Add([]byte{0x28, 0xb5, 0x2f, 0xfd, 0x20, 0x00, 0x01, 0x00, 0x00})
	f.Fuzz(func(t *testing.T, in []byte) {
		all, err := DecodeAll(nil, in, fuzzWindow, fuzzSize)
		if len(all) > fuzzSize+maxBlock {
			t.Fatalf("DecodeAll = %d bytes, over the limit of %d and a block", len(all), fuzzSize)
		}
		if g, gerr := decodeGo(in, fuzzWindow, fuzzSize); !bytes.Equal(g, all) || fmt.Sprint(gerr) != fmt.Sprint(err) {
			t.Fatalf("DecodeAll = %d bytes, %v; with the Go sequences loop only %d bytes, %v", len(all), err, len(g), gerr)
		}
		r, rerr := io.ReadAll(io.LimitReader(NewReader(bytes.NewReader(in), fuzzWindow), fuzzSize+1))
		if err == nil && len(all) <= fuzzSize && (rerr != nil || !bytes.Equal(r, all)) {
			t.Fatalf("Reader = %d bytes, %v; DecodeAll = %d bytes, no error", len(r), rerr, len(all))
		}
		if err != nil && rerr == nil && len(r) <= fuzzSize {
			t.Fatalf("Reader = %d bytes, no error; DecodeAll = %v", len(r), err)
		}
		for how, src := range readers(in) {
			o, oerr := io.ReadAll(io.LimitReader(NewReader(src, fuzzWindow), fuzzSize+1))
			if !bytes.Equal(o, r) || fmt.Sprint(oerr) != fmt.Sprint(rerr) {
				t.Fatalf("Reader (%s) = %d bytes, %v; from memory %d bytes, %v", how, len(o), oerr, len(r), rerr)
			}
		}
	})
}

// FuzzAgainstKlauspost holds the decoder to klauspost's on frames its
// encoder made from random, text-like or .pak-like data at one of its
// four levels, then mutated: every three bytes of mutations are a
// position (two bytes, modulo the frame's length) and an operation (zero
// cuts the frame there, another value is XORed into the byte).
// Unmutated, ours decodes the data exactly; mutated, where ours accepts a
// frame klauspost accepts it too and both decode the same bytes (ours
// may refuse more).
func FuzzAgainstKlauspost(f *testing.F) {
	f.Add(uint64(1), uint16(3000), byte(0), byte(1), []byte{})
	f.Add(uint64(2), uint16(20000), byte(1), byte(2), []byte{10, 0, 0x01})
	f.Add(uint64(3), uint16(60000), byte(2), byte(3), []byte{0, 0, 0x80, 9, 0, 0xff})
	f.Fuzz(func(t *testing.T, seed uint64, n uint16, kind, level byte, mutations []byte) {
		data := [3]func(int, uint64) []byte{randomBytes, textLike, pakLike}[kind%3](int(n), seed)
		e, err := kzstd.NewWriter(nil, kzstd.WithEncoderLevel(kzstd.EncoderLevel(level%4+1)), kzstd.WithEncoderCRC(level&4 == 0))
		if err != nil {
			t.Fatal(err)
		}
		frame := e.EncodeAll(data, nil)
		frame = mutate(frame, mutations)
		got, err := DecodeAll(nil, frame, fuzzWindow, fuzzSize)
		if len(mutations) < 3 {
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("DecodeAll(klauspost's frame of %d bytes) = %d bytes, %v", len(data), len(got), err)
			}
			return
		}
		d, _ := kzstd.NewReader(nil, kzstd.WithDecoderConcurrency(1), kzstd.WithDecoderMaxWindow(fuzzWindow), kzstd.WithDecoderMaxMemory(fuzzSize))
		defer d.Close()
		ref, rerr := d.DecodeAll(frame, nil)
		if err == nil && (rerr != nil || !bytes.Equal(ref, got)) {
			t.Fatalf("DecodeAll(a damaged frame) = %d bytes, no error; klauspost = %d bytes, %v", len(got), len(ref), rerr)
		}
	})
}

// mutate applies mutations to a copy of b, as FuzzAgainstKlauspost
// describes.
func mutate(b, mutations []byte) []byte {
	b = bytes.Clone(b)
	for i := 0; i+3 <= len(mutations) && len(b) > 0; i += 3 {
		p := (int(mutations[i]) | int(mutations[i+1])<<8) % len(b)
		if mutations[i+2] == 0 {
			b = b[:p]
			continue
		}
		b[p] ^= mutations[i+2]
	}
	return b
}
