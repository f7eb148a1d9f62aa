package intake

import "os"

// writebackBatch is how many freshly written bytes of a file are handed
// to the kernel's writeback at once (startWriteback) when an extraction
// starts writeback early (priority "normal"). The batches are large, like
// the ones the kernel's own flusher makes. In the background nothing is
// started early: writing while unpacking had a game running beside the
// install lose frames of 20 ms and more, whatever the unpacker's own
// priority, and none without (scripts/bench-frames.sh), as the I/O then
// overlaps the unpacking instead of following it.
const writebackBatch = 8 << 20

// writeback starts one file's writeback in batches of writebackBatch; the
// rest is left to the flush when the extraction is done.
type writeback struct{ from, to int64 }

// wrote records n more bytes written to f after those it recorded, and
// starts their writeback when a batch is full.
func (b *writeback) wrote(f *os.File, n int64) {
	if off, length, ok := b.add(n); ok {
		startWriteback(f, off, length)
	}
}

// add records n more bytes and returns the range to start writing back
// when a batch is full.
func (b *writeback) add(n int64) (off, length int64, ok bool) {
	b.to += n
	if b.to-b.from < writebackBatch {
		return 0, 0, false
	}
	off, length = b.from, b.to-b.from
	b.from = b.to
	return off, length, true
}
