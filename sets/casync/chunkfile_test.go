package casync

import (
	"bytes"
	"crypto/rand"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

func TestChunkRoundTrip(t *testing.T) {
	random := make([]byte, DefaultMax)
	rand.Read(random)
	for _, data := range [][]byte{nil, []byte("x"), bytes.Repeat([]byte("abc"), 50000), random} {
		id := Sum(data)
		enc := EncodeChunk(data)
		if uint64(len(enc)) > maxCompressed(uint64(len(data))) {
			t.Fatalf("EncodeChunk(%d bytes) = %d bytes, over maxCompressed", len(data), len(enc))
		}
		got, err := DecodeChunk(id, enc, uint64(len(data)))
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("DecodeChunk(EncodeChunk(%d bytes)) = %d bytes, %v", len(data), len(got), err)
		}
	}
}

func TestDecodeChunkRefuses(t *testing.T) {
	data := bytes.Repeat([]byte("chunk "), 1000)
	id := Sum(data)
	enc := EncodeChunk(data)
	other := Sum([]byte("other"))
	cases := []struct {
		name       string
		id         ChunkID
		compressed []byte
		max        uint64
		want       string
	}{
		{"other digest", other, enc, 1 << 20, "decode chunk " + other.String() + ": its 6000 bytes have the digest " + id.String()},
		{"over the size", id, enc, 5999, "decompresses to more than 5999 bytes"},
		{"not zstd", id, []byte("plain bytes, not a zstd frame"), 1 << 20, "decode chunk " + id.String()},
		{"truncated frame", id, enc[:len(enc)/2], 1 << 20, "decode chunk " + id.String()},
		{"empty", id, nil, 1 << 20, "decode chunk " + id.String()},
		// A frame whose one block has the reserved type 3: the error says
		// where and what.
		{"reserved block type", id, []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x50, 0x0f, 0, 0, 'x'}, 1 << 20, "frame 0, block 0 at byte 6: reserved block type"},
		{"limit too large", id, enc, 1 << 63, "a limit of 9223372036854775808 bytes is over the largest chunk size 4194304"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := DecodeChunk(c.id, c.compressed, c.max)
			if !errors.Is(err, ErrChunkInvalid) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("DecodeChunk = %d bytes, %v; want ErrChunkInvalid with %q", len(got), err, c.want)
			}
		})
	}
}

// TestDecodeChunkStopsABomb decodes zstd frames of a few KiB that expand to
// 256 MiB, one that says its size in the frame header and one that does not:
// DecodeChunk must refuse them having allocated little more than the
// declared size, not the bomb's.
func TestDecodeChunkStopsABomb(t *testing.T) {
	const bombSize = 256 << 20
	zeros := make([]byte, 1<<20)
	var streamed bytes.Buffer
	w, err := zstd.NewWriter(&streamed, zstd.WithWindowSize(1<<20), zstd.WithEncoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	for range bombSize / len(zeros) {
		w.Write(zeros)
	}
	w.Close()
	e, _ := zstd.NewWriter(nil, zstd.WithWindowSize(1<<20), zstd.WithEncoderConcurrency(1))
	sized := e.EncodeAll(make([]byte, bombSize), nil)
	for name, bomb := range map[string][]byte{"streamed": streamed.Bytes(), "sized": sized} {
		t.Run(name, func(t *testing.T) {
			if len(bomb) > 64<<10 {
				t.Fatalf("the bomb is %d bytes; want a small one", len(bomb))
			}
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			got, err := DecodeChunk(Sum(nil), bomb, DefaultMax)
			runtime.ReadMemStats(&after)
			if !errors.Is(err, ErrChunkInvalid) || !strings.Contains(err.Error(), "decompresses to more than 262144 bytes") {
				t.Fatalf("DecodeChunk(%d-byte bomb) = %d bytes, %v; want it refused", len(bomb), len(got), err)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
				t.Fatalf("DecodeChunk allocated %d bytes for a %d-byte bomb with a limit of %d", alloc, bombSize, DefaultMax)
			}
		})
	}
}

// FuzzDecodeChunk checks that DecodeChunk never panics, never returns more
// than the limit, and returns only bytes with the asked-for digest.
func FuzzDecodeChunk(f *testing.F) {
	f.Add(EncodeChunk([]byte("seed chunk")), uint16(100))
	f.Add(EncodeChunk(make([]byte, 5000)), uint16(4000))
	f.Add([]byte("not zstd"), uint16(10))
	f.Fuzz(func(t *testing.T, b []byte, max uint16) {
		// Half the time ask for the frame's own bytes, so the digest can match.
		id := Sum([]byte("seed chunk"))
		if len(b) > 0 && b[len(b)-1]%2 == 0 {
			if d, err := zstd.NewReader(nil, zstd.WithDecoderMaxMemory(1<<16)); err == nil {
				if plain, err := d.DecodeAll(b, nil); err == nil && len(plain) <= 1<<16 {
					id = Sum(plain)
				}
				d.Close()
			}
		}
		got, err := DecodeChunk(id, b, uint64(max))
		if err != nil {
			return
		}
		if len(got) > int(max) || Sum(got) != id {
			t.Fatalf("DecodeChunk = %d bytes (limit %d), digest %s; want %s", len(got), max, Sum(got), id)
		}
	})
}
