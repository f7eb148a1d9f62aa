package casync

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"
)

// testIndex returns an index of n chunks of the given sizes (cycled), with
// ids made from their numbers.
func testIndex(sizes ...uint64) *Index {
	ix := &Index{Min: DefaultMin, Avg: DefaultAvg, Max: DefaultMax}
	var start uint64
	for i, s := range sizes {
		ix.Chunks = append(ix.Chunks, Chunk{Start: start, Size: s, ID: Sum([]byte{byte(i), byte(i >> 8)})})
		start += s
	}
	return ix
}

func encodeIndex(t testing.TB, ix *Index) []byte {
	t.Helper()
	var b bytes.Buffer
	n, err := ix.WriteTo(&b)
	if err != nil {
		t.Fatal(err)
	}
	if n != int64(b.Len()) {
		t.Fatalf("WriteTo = %d; wrote %d bytes", n, b.Len())
	}
	return b.Bytes()
}

func TestIndexRoundTrip(t *testing.T) {
	for _, ix := range []*Index{
		testIndex(),
		testIndex(100), // a lone chunk under Min is the last one
		testIndex(DefaultMin, DefaultMax, DefaultAvg, 5),
	} {
		raw := encodeIndex(t, ix)
		if want := 48 + 16 + 40*len(ix.Chunks) + 40; len(raw) != want {
			t.Fatalf("WriteTo wrote %d bytes for %d chunks; want %d", len(raw), len(ix.Chunks), want)
		}
		got, err := ReadIndex(bytes.NewReader(raw), Limits{})
		if err != nil {
			t.Fatalf("ReadIndex(WriteTo(%d chunks)) = %v", len(ix.Chunks), err)
		}
		if got.Flags != defaultFlags || got.Min != ix.Min || got.Avg != ix.Avg || got.Max != ix.Max || len(got.Chunks) != len(ix.Chunks) {
			t.Fatalf("ReadIndex = %+v; want %+v", got, ix)
		}
		for i := range ix.Chunks {
			if got.Chunks[i] != ix.Chunks[i] {
				t.Fatalf("chunk %d = %+v; want %+v", i, got.Chunks[i], ix.Chunks[i])
			}
		}
		if got.Length() != ix.Length() {
			t.Fatalf("Length = %d; want %d", got.Length(), ix.Length())
		}
		if again := encodeIndex(t, got); !bytes.Equal(again, raw) {
			t.Fatal("WriteTo(ReadIndex(b)) differs from b")
		}
	}
}

// patch returns a copy of b with the uint64 at off set to v.
func patch(b []byte, off int, v uint64) []byte {
	c := bytes.Clone(b)
	binary.LittleEndian.PutUint64(c[off:], v)
	return c
}

// entry is the byte offset of chunk n's table entry.
func entry(n int) int { return 64 + 40*n }

func TestReadIndexRefuses(t *testing.T) {
	good := encodeIndex(t, testIndex(DefaultAvg, DefaultAvg, DefaultAvg, 1000))
	tail := entry(4)
	cases := []struct {
		name string
		raw  []byte
		lim  Limits
		kind error
		want string // in the message: where, which rule, what value
	}{
		{"empty input", nil, Limits{}, errIndexInvalid, "byte 0: truncated header: 0 of 64"},
		{"header size", patch(good, 0, 49), Limits{}, errIndexInvalid, "byte 0: index header size 49, want 48"},
		{"not an index", patch(good, 8, 0x1396fabcea5bbb51), Limits{}, errIndexInvalid, "header type 0x1396fabcea5bbb51"},
		{"sha256 ids", patch(good, 16, flagExcludeNoDump), Limits{}, errIndexInvalid, "byte 16: feature flags 0x8000000000000000 name SHA-256"},
		{"min zero", patch(good, 24, 0), Limits{}, errIndexInvalid, "min 0, avg 65536, max 262144"},
		{"min over avg", patch(good, 24, DefaultAvg+1), Limits{}, errIndexInvalid, "min 65537, avg 65536"},
		{"avg over max", patch(good, 32, DefaultMax+1), Limits{}, errIndexInvalid, "avg 262145, max 262144"},
		{"max over the limit", patch(good, 40, 1<<40), Limits{}, errIndexLimit, "byte 40: maximum chunk size 1099511627776 is over the limit 4194304"},
		{"max over a caller's limit", good, Limits{MaxChunkSize: 128 << 10}, errIndexLimit, "maximum chunk size 262144 is over the limit 131072"},
		{"table size", patch(good, 48, 56), Limits{}, errIndexInvalid, "byte 48: table header size 0x38"},
		{"table type", patch(good, 56, 7), Limits{}, errIndexInvalid, "byte 56: table header type 0x7"},
		{"chunk over max", patch(good, entry(1), DefaultAvg+DefaultMax+1), Limits{}, errIndexInvalid, "byte 104, chunk 1: size 262145 is over the maximum 262144"},
		{"chunk under min, not last", patch(good, entry(1), DefaultAvg+100), Limits{}, errIndexInvalid, "byte 104, chunk 1: size 100 is under the minimum 16384 and it is not the last chunk"},
		{"offset repeats", patch(good, entry(2), 2*DefaultAvg), Limits{}, errIndexInvalid, "byte 144, chunk 2: offset 131072 does not increase past 131072"},
		{"offset goes back", patch(good, entry(2), 100), Limits{}, errIndexInvalid, "chunk 2: offset 100 does not increase past 131072"},
		{"too many chunks", good, Limits{MaxChunks: 3}, errIndexLimit, "byte 184, chunk 3: more than 3 chunks"},
		{"too long", good, Limits{MaxLength: 3 * DefaultAvg}, errIndexLimit, "chunk 3: offset 197608 is past the length limit 196608"},
		{"truncated entry", good[:entry(2)+20], Limits{}, errIndexInvalid, "byte 164, chunk 2: truncated table: the entry or tail at byte 144 has 20 of 40 bytes"},
		{"truncated tail", good[:len(good)-1], Limits{}, errIndexInvalid, "chunk 4: truncated table: the entry or tail at byte 224 has 39 of 40"},
		{"no tail", good[:tail], Limits{}, errIndexInvalid, "byte 224, chunk 4: truncated table"},
		{"tail fill", patch(good, tail+8, 1), Limits{}, errIndexInvalid, "byte 232, chunk 4: table tail: second zero fill is 0x1"},
		{"tail index offset", patch(good, tail+16, 64), Limits{}, errIndexInvalid, "byte 240, chunk 4: table tail: index offset 64, want 48"},
		{"tail table size", patch(good, tail+24, 1e12), Limits{}, errIndexInvalid, "byte 248, chunk 4: table tail: table size 1000000000000, want 216 for 4 chunks"},
		{"tail marker", patch(good, tail+32, 0x57446fa533702943), Limits{}, errIndexInvalid, "byte 256, chunk 4: table tail: marker 0x57446fa533702943, want 0x4b4f050e5549ecd1"},
		{"trailing bytes", append(bytes.Clone(good), 0xAB), Limits{}, errIndexInvalid, "byte 264: trailing bytes after the table's tail (first 0xab)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ix, err := ReadIndex(bytes.NewReader(c.raw), c.lim)
			if err == nil {
				t.Fatalf("ReadIndex = %d chunks, nil; want an error", len(ix.Chunks))
			}
			if !errors.Is(err, c.kind) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("ReadIndex = %v; want %v with %q", err, c.kind, c.want)
			}
		})
	}
}

// endlessTable is an index whose table claims more chunks than anyone
// reads (10^12 entries of Max bytes, made as they are read), counting the
// bytes read from it.
type endlessTable struct {
	head    []byte
	n, read uint64
	pending []byte
}

func (e *endlessTable) Read(p []byte) (int, error) {
	if len(e.head) > 0 {
		n := copy(p, e.head)
		e.head = e.head[n:]
		e.read += uint64(n)
		return n, nil
	}
	if len(e.pending) == 0 {
		if e.n == 1e12 {
			return 0, io.EOF
		}
		e.n++
		e.pending = make([]byte, 40)
		binary.LittleEndian.PutUint64(e.pending, e.n*DefaultMax)
	}
	n := copy(p, e.pending)
	e.pending = e.pending[n:]
	e.read += uint64(n)
	return n, nil
}

func TestReadIndexStopsAtTheLimit(t *testing.T) {
	head := encodeIndex(t, testIndex())[:64]
	for _, lim := range []Limits{{MaxChunks: 1000}, {MaxLength: 1000 * DefaultMax}} {
		src := &endlessTable{head: head}
		_, err := ReadIndex(src, lim)
		if !errors.Is(err, errIndexLimit) || !strings.Contains(err.Error(), "chunk 1000:") {
			t.Fatalf("ReadIndex(10^12 chunks, %+v) = %v; want the limit at chunk 1000", lim, err)
		}
		// What it read is the 1,001 entries and at most one buffer more.
		if max := uint64(64 + 1001*40 + 64<<10); src.read > max {
			t.Fatalf("ReadIndex read %d bytes of the endless table; want at most %d", src.read, max)
		}
	}
}

func TestParseChunkID(t *testing.T) {
	id := Sum([]byte("x"))
	got, err := ParseChunkID(id.String())
	if err != nil || got != id {
		t.Fatalf("ParseChunkID(%q) = %v, %v; want %v", id.String(), got, err, id)
	}
	for _, s := range []string{"", "abc", strings.ToUpper(id.String()), id.String()[:63] + "g", id.String() + "0", strings.Repeat("z", 1000)} {
		if _, err := ParseChunkID(s); err == nil {
			t.Errorf("ParseChunkID(%q) = nil error; want one", s)
		} else if len(err.Error()) > 300 {
			t.Errorf("ParseChunkID(%d characters) error is %d characters long", len(s), len(err.Error()))
		}
	}
}

// FuzzReadIndex checks that ReadIndex never panics and that whatever it
// accepts is canonical: WriteTo gives back the same bytes. Seeds come from
// testdata/fuzz/FuzzReadIndex.
func FuzzReadIndex(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) {
		ix, err := ReadIndex(bytes.NewReader(b), Limits{MaxChunks: 1 << 12})
		if err != nil {
			return
		}
		var out bytes.Buffer
		if _, err := ix.WriteTo(&out); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), b) {
			t.Fatalf("WriteTo(ReadIndex(b)) differs from b")
		}
		var end uint64
		for i, c := range ix.Chunks {
			if c.Start != end || c.Size == 0 || c.Size > ix.Max || (c.Size < ix.Min && i != len(ix.Chunks)-1) {
				t.Fatalf("chunk %d = %+v after %d; outside min %d, max %d", i, c, end, ix.Min, ix.Max)
			}
			end += c.Size
		}
	})
}
