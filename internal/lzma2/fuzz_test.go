package lzma2

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"

	"github.com/ulikunitz/xz/lzma"
)

// fuzzMaxOut bounds what one fuzz input may decode to: every chunk takes
// at least 3 input bytes and decodes to at most 2 MiB.
func fuzzMaxOut(in []byte) int { return (len(in)/3 + 1) << 21 }

// FuzzReader feeds arbitrary streams to the decoder: it must not panic,
// must stop within fuzzMaxOut, and what it decodes, ulikunitz's Reader2
// must decode to the same bytes.
func FuzzReader(f *testing.F) {
	f.Add(byte(0), []byte{0x00})
	f.Add(byte(0), []byte{0x01, 0x00, 0x02, 'a', 'b', 'c', 0x02, 0x00, 0x00, 'd', 0x00})
	for i, data := range [][]byte{[]byte("x"), textLike(3000, 1), bytes.Repeat([]byte("ab"), 5000), randomBytes(300, 2)} {
		f.Add(byte(i), encode(f, data, 4096))
	}
	f.Fuzz(func(t *testing.T, dictExp byte, in []byte) {
		dict := 4096 << (dictExp % 8)
		lim := fuzzMaxOut(in)
		got, err := io.ReadAll(io.LimitReader(NewReader(bytes.NewReader(in), dict, unknownSize), int64(lim)+1))
		if len(got) > lim {
			t.Fatalf("decoded over %d bytes from %d", lim, len(in))
		}
		rr, rerr := lzma.Reader2Config{DictCap: dict}.NewReader2(bytes.NewReader(in))
		if rerr != nil {
			return
		}
		ref, rerr := io.ReadAll(io.LimitReader(rr, int64(lim)+1))
		switch {
		case err == nil && rerr == nil && !bytes.Equal(got, ref):
			t.Fatalf("decoded %d bytes, Reader2 %d different ones", len(got), len(ref))
		case err == nil && rerr != nil:
			t.Fatalf("decoded %d bytes; Reader2 fails: %v", len(got), rerr)
		case err != nil && rerr == nil && !errors.Is(err, errData) && !errors.Is(err, io.ErrUnexpectedEOF):
			// Stricter is fine: Reader2 takes a stream with no end
			// chunk, and checks less of how a chunk ends.
			t.Fatalf("fails (%v); Reader2 decodes %d bytes", err, len(ref))
		}
		// Where both decode, the declared size is enforced both ways.
		if err == nil {
			if _, err := decode(in, dict, uint64(len(got))); err != nil {
				t.Fatalf("with its size declared: %v", err)
			}
			if _, err := decode(in, dict, uint64(len(got))+1); !errors.Is(err, errSize) {
				t.Fatalf("with a size one larger declared: %v", err)
			}
		}
	})
}

// FuzzLZMAReader feeds arbitrary LZMA streams to the LZMA reader, with
// arbitrary properties and a size known or not: it must not panic, and
// wherever both it and ulikunitz's Reader decode without error, they
// decode to the same bytes.
func FuzzLZMAReader(f *testing.F) {
	f.Add(byte(0x5d), byte(0), uint16(0), false, []byte{0, 0, 0, 0, 0})
	for i, data := range [][]byte{{}, []byte("x"), textLike(3000, 1), bytes.Repeat([]byte("ab"), 5000), randomBytes(300, 2)} {
		for _, marker := range []bool{false, true} {
			packed, props := encodeLZMA(f, data, lzmaProps{i % 9, i % 5, 2}, 4096, marker)
			f.Add(props[0], byte(i), uint16(len(data)), marker, packed)
		}
	}
	const lim = 4 << 20
	f.Fuzz(func(t *testing.T, propsByte, dictExp byte, size16 uint16, unknown bool, in []byte) {
		props := [5]byte{propsByte}
		binary.LittleEndian.PutUint32(props[1:], 4096<<(dictExp%8))
		size := uint64(size16)
		if unknown {
			size = unknownSize
		}
		r, err := NewLZMAReader(bytes.NewReader(in), props, size)
		if err != nil {
			return
		}
		got, err := io.ReadAll(io.LimitReader(r, lim+1))
		if len(got) > lim {
			return // a stream of long matches; ulikunitz would take long
		}
		if size != unknownSize && err == nil && uint64(len(got)) != size {
			t.Fatalf("decoded %d bytes, declared %d, no error", len(got), size)
		}
		if err != nil {
			return
		}
		h := make([]byte, 13)
		copy(h, props[:])
		binary.LittleEndian.PutUint64(h[5:], size)
		rr, rerr := lzma.NewReader(io.MultiReader(bytes.NewReader(h), bytes.NewReader(in)))
		if rerr != nil {
			return
		}
		ref, rerr := io.ReadAll(io.LimitReader(rr, lim+1))
		if rerr == nil && !bytes.Equal(got, ref) {
			t.Fatalf("decoded %d bytes, ulikunitz's Reader %d different ones", len(got), len(ref))
		}
	})
}
