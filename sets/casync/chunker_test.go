package casync

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"
	"testing/iotest"
)

// collect is a ChunkWriter that keeps the chunks it is given.
type collect struct{ chunks [][]byte }

func (c *collect) PutChunk(id ChunkID, data []byte) error {
	if Sum(data) != id {
		return errors.New("id is not the digest of the data")
	}
	c.chunks = append(c.chunks, bytes.Clone(data))
	return nil
}

func TestMakeChunksWithinBounds(t *testing.T) {
	data := randomBytes(7, 6<<20)
	var w collect
	ix, err := Make(t.Context(), bytes.NewReader(data), &w)
	if err != nil {
		t.Fatal(err)
	}
	if ix.Min != DefaultMin || ix.Avg != DefaultAvg || ix.Max != DefaultMax || ix.Flags != defaultFlags {
		t.Fatalf("Make header = %d/%d/%d flags %#x", ix.Min, ix.Avg, ix.Max, ix.Flags)
	}
	if ix.Length() != uint64(len(data)) || len(w.chunks) != len(ix.Chunks) {
		t.Fatalf("Make: length %d, %d chunks written for %d in the index", ix.Length(), len(w.chunks), len(ix.Chunks))
	}
	// Random data averages near Avg; far off means a wrong discriminator.
	if avg := len(data) / len(ix.Chunks); avg < DefaultAvg/2 || avg > 2*DefaultAvg {
		t.Fatalf("Make cut %d chunks, %d bytes on average; want about %d", len(ix.Chunks), avg, DefaultAvg)
	}
	var joined []byte
	for i, c := range ix.Chunks {
		if c.Size > DefaultMax || (c.Size <= DefaultMin && i != len(ix.Chunks)-1) {
			t.Fatalf("chunk %d has %d bytes; want %d..%d", i, c.Size, DefaultMin+1, DefaultMax)
		}
		joined = append(joined, w.chunks[i]...)
	}
	if !bytes.Equal(joined, data) {
		t.Fatal("the chunks do not join to the input")
	}
}

// TestMakeIgnoresHowTheReaderSplits checks that boundaries depend on the
// bytes alone, not on how many each Read returns.
func TestMakeIgnoresHowTheReaderSplits(t *testing.T) {
	data := randomBytes(8, 2<<20)
	want, err := Make(t.Context(), bytes.NewReader(data), nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, r := range map[string]io.Reader{
		"one byte": iotest.OneByteReader(bytes.NewReader(data)),
		"half":     iotest.HalfReader(bytes.NewReader(data)),
		"data+EOF": iotest.DataErrReader(bytes.NewReader(data)),
	} {
		got, err := Make(t.Context(), r, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Chunks) != len(want.Chunks) {
			t.Fatalf("%s: %d chunks; want %d", name, len(got.Chunks), len(want.Chunks))
		}
		for i := range want.Chunks {
			if got.Chunks[i] != want.Chunks[i] {
				t.Fatalf("%s: chunk %d = %+v; want %+v", name, i, got.Chunks[i], want.Chunks[i])
			}
		}
	}
}

// TestMakeResynchronises checks what content-defined chunking is for: an
// insertion changes only the chunks around it.
func TestMakeResynchronises(t *testing.T) {
	v1 := randomBytes(9, 4<<20)
	v2 := append(append(bytes.Clone(v1[:1<<20]), []byte("inserted")...), v1[1<<20:]...)
	ix1, _ := Make(t.Context(), bytes.NewReader(v1), nil)
	ix2, _ := Make(t.Context(), bytes.NewReader(v2), nil)
	old := indexIDs(ix1)
	var fresh int
	for _, c := range ix2.Chunks {
		if !old[c.ID] {
			fresh++
		}
	}
	if fresh < 1 || fresh > 2 {
		t.Fatalf("after an 8-byte insertion %d of %d chunks are new; want 1 or 2", fresh, len(ix2.Chunks))
	}
}

func TestMakeStops(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := Make(ctx, bytes.NewReader(make([]byte, 1<<20)), nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("Make(cancelled) = %v; want context.Canceled", err)
	}
	boom := errors.New("read failed")
	if _, err := Make(t.Context(), iotest.ErrReader(boom), nil); !errors.Is(err, boom) {
		t.Fatalf("Make(failing reader) = %v; want its error", err)
	}
	if _, err := Make(t.Context(), bytes.NewReader(make([]byte, 1<<20)), failingPut{}); err == nil || !errors.Is(err, errPut) {
		t.Fatalf("Make(failing writer) = %v; want its error", err)
	}
}

var errPut = errors.New("put failed")

type failingPut struct{}

func (failingPut) PutChunk(ChunkID, []byte) error { return errPut }
