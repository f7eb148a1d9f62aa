package lzma2

import (
	"bytes"
	"encoding/binary"
	"io"
	"testing"

	"github.com/ulikunitz/xz"
)

// xzEncode compresses data as an .xz file with ulikunitz's writer.
func xzEncode(t testing.TB, data []byte, dictCap int, check byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := xz.WriterConfig{DictCap: dictCap, CheckSum: check}.NewWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// FuzzXZReader holds the .xz reader to ulikunitz's on .xz files its
// writer made from random or text-like data, then mutated like
// FuzzReaderAgainstReference's streams: where ours accepts a file, the
// reference accepts it and both decode the same bytes; and ours never
// decodes more than the limit a file's size allows.
func FuzzXZReader(f *testing.F) {
	f.Add(uint64(1), uint16(3000), true, byte(0), []byte{})
	f.Add(uint64(2), uint16(3000), true, byte(1), []byte{40, 0, 0x01})
	f.Add(uint64(3), uint16(700), false, byte(2), []byte{0xff, 0xff, 0})
	f.Add(uint64(4), uint16(9000), true, byte(3), []byte{12, 0, 0x20, 200, 0, 0x02})
	checks := []byte{xz.None, xz.CRC32, xz.CRC64, xz.SHA256}
	f.Fuzz(func(t *testing.T, seed uint64, n uint16, text bool, check byte, mutations []byte) {
		data := randomBytes(int(n), seed)
		if text {
			data = textLike(int(n), seed)
		}
		file := xzEncode(t, data, 1<<16, checks[check%4])
		if len(mutations) == 0 {
			got, err := decodeXZ(file, testMaxDict)
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("decodeXZ(an .xz of %d bytes) = %d bytes, %v", len(data), len(got), err)
			}
			return
		}
		for ; len(mutations) >= 3 && len(file) > 0; mutations = mutations[3:] {
			pos := int(binary.LittleEndian.Uint16(mutations)) % len(file)
			if op := mutations[2]; op == 0 {
				file = file[:pos]
			} else {
				file[pos] ^= op
			}
		}
		lim := int64(fuzzMaxOut(file))
		var got []byte
		r, err := NewXZReader(bytes.NewReader(file), testMaxDict)
		if err == nil {
			got, err = io.ReadAll(io.LimitReader(r, lim+1))
		}
		if int64(len(got)) > lim {
			t.Fatalf("decoded over %d bytes from %d", lim, len(file))
		}
		if err != nil {
			return
		}
		rr, rerr := xz.ReaderConfig{DictCap: testMaxDict}.NewReader(bytes.NewReader(file))
		if rerr != nil {
			t.Fatalf("ours decodes %d bytes; the reference refuses the file: %v", len(got), rerr)
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
