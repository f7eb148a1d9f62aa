package intake

import "testing"

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
