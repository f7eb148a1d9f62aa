package intake

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestWritebackBatches(t *testing.T) {
	var b writeback
	type want struct {
		off, length int64
		ok          bool
	}
	const buf = 256 << 10
	var got []want
	for range 2*writebackBatch/buf + 3 {
		if off, length, ok := b.add(buf); ok {
			got = append(got, want{off, length, ok})
		}
	}
	exp := []want{{0, writebackBatch, true}, {writebackBatch, writebackBatch, true}}
	if len(got) != len(exp) {
		t.Fatalf("%d batches started, want %d: %v", len(got), len(exp), got)
	}
	for i := range exp {
		if got[i] != exp[i] {
			t.Errorf("batch %d = %+v, want %+v", i, got[i], exp[i])
		}
	}
	// An odd write that crosses the batch starts everything recorded.
	b = writeback{}
	b.add(writebackBatch - 1)
	if off, length, ok := b.add(10); !ok || off != 0 || length != writebackBatch+9 {
		t.Errorf("crossing write started (%d, %d, %v), want (0, %d, true)", off, length, ok, writebackBatch+9)
	}
}

func TestWritebackPace(t *testing.T) {
	if newWritebackPace(0).take(1) {
		t.Error("a pace of 0 started a writeback")
	}
	if p := newWritebackPace(unlimitedWriteback); !p.take(1<<40) || !p.take(1<<41) {
		t.Error("an unlimited pace held a writeback back")
	}
	// 64 KiB a second, started a second ago: 64 KiB plus the batch that
	// may go ahead are due, and nothing more for about a second.
	p := newWritebackPace(64 << 10)
	p.start = p.start.Add(-time.Second)
	if !p.take(writebackBatch + 64<<10) {
		t.Fatal("the pace held back what was due")
	}
	if p.take(64 << 10) {
		t.Error("the pace let through more than was due")
	}
}

// TestWriteChunks: a buffer written in chunks lands whole and in order,
// whatever its size against the chunk.
func TestWriteChunks(t *testing.T) {
	for _, n := range []int{0, 1, writeChunk - 1, writeChunk, writeChunk + 1, 3*writeChunk + 5} {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(i * 7 / 3)
		}
		f, err := os.Create(filepath.Join(t.TempDir(), "f"))
		if err != nil {
			t.Fatal(err)
		}
		if k, err := writeChunks(f, data); k != n || err != nil {
			t.Fatalf("writeChunks of %d bytes = %d, %v", n, k, err)
		}
		f.Close()
		if got, err := os.ReadFile(f.Name()); err != nil || !bytes.Equal(got, data) {
			t.Errorf("%d bytes written in chunks read back as %d bytes (%v), not the same", n, len(got), err)
		}
	}
}
