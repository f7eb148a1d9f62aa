package lzma2

import (
	"bytes"
	"encoding/binary"
	"io"
	"testing"

	"github.com/ulikunitz/xz/lzma"
)

// FuzzReaderAgainstReference holds the LZMA2 decoder to its reference,
// ulikunitz's Reader2, on streams the reference encoder made from random
// or text-like data and then mutated: every three bytes of mutations are
// a position (two bytes, modulo the stream's length) and an operation
// (zero cuts the stream there, another value is XORed into the byte).
// Unmutated, ours decodes the data exactly; mutated, where ours accepts a
// stream the reference accepts it too and both decode the same bytes, so
// ours refuses wherever the reference refuses (it may refuse more: it
// checks how a stream and its chunks end more strictly).
//
// Seeds: the corpus of testdata/fuzz/FuzzReaderAgainstReference.
func FuzzReaderAgainstReference(f *testing.F) {
	f.Add(uint64(1), uint16(3000), true, byte(0), []byte{})
	f.Add(uint64(2), uint16(300), false, byte(1), []byte{10, 0, 0x01})
	f.Add(uint64(3), uint16(20000), true, byte(2), []byte{0, 0, 0x80, 9, 0, 0xff})
	f.Fuzz(func(t *testing.T, seed uint64, n uint16, text bool, dictExp byte, mutations []byte) {
		dict := 4096 << (dictExp % 6)
		data := randomBytes(int(n), seed)
		if text {
			data = textLike(int(n), seed)
		}
		stream := encode(t, data, dict)
		if len(mutations) == 0 {
			got, err := decode(stream, dict, uint64(len(data)))
			if ref, rerr := refDecode(stream, dict); rerr != nil || !bytes.Equal(ref, data) {
				// The reference encoder wrote a stream its own decoder
				// refuses (with a dictionary of 4 or 8 KiB, more than
				// twice that of incompressible data is cut short after
				// a stored chunk's header: the corpus entry
				// reference-encoder-truncates). Ours refuses it too.
				if err == nil {
					t.Fatalf("decode(a stream the reference refuses: %v) = %d bytes, no error", rerr, len(got))
				}
				return
			}
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("decode(the reference's stream of %d bytes) = %d bytes, %v", len(data), len(got), err)
			}
			return
		}
		for ; len(mutations) >= 3; mutations = mutations[3:] {
			pos := int(binary.LittleEndian.Uint16(mutations)) % len(stream)
			if op := mutations[2]; op == 0 {
				stream = stream[:pos]
			} else {
				stream[pos] ^= op
			}
			if len(stream) == 0 {
				break
			}
		}
		lim := int64(fuzzMaxOut(stream))
		got, err := io.ReadAll(io.LimitReader(NewReader(bytes.NewReader(stream), dict, unknownSize), lim+1))
		if int64(len(got)) > lim {
			t.Fatalf("decoded over %d bytes from %d", lim, len(stream))
		}
		if err != nil {
			return
		}
		rr, rerr := lzma.Reader2Config{DictCap: dict}.NewReader2(bytes.NewReader(stream))
		if rerr != nil {
			t.Fatalf("ours decodes %d bytes; the reference refuses the stream: %v", len(got), rerr)
		}
		ref, rerr := io.ReadAll(io.LimitReader(rr, lim+1))
		switch {
		case rerr != nil:
			t.Fatalf("ours decodes %d bytes; the reference fails: %v", len(got), rerr)
		case !bytes.Equal(got, ref):
			t.Fatalf("ours decodes %d bytes, the reference %d different ones", len(got), len(ref))
		}
	})
}
