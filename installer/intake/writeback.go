package intake

import (
	"math"
	"os"
	"sync"
	"time"
)

// writebackBatch is how many freshly written bytes of a file are handed
// to the kernel's writeback at once (startWriteback) while unpacking. The
// batches are large, like the ones the kernel's own flusher makes; bytes
// not started here (a file's tail, or what the pace holds back) are
// written by the flush when the extraction is done.
const writebackBatch = 8 << 20

// Rates of the writeback started while unpacking (extractOptions). At
// normal priority it is not limited: the disk works while the decoder
// does, and the install ends sooner. In the background it is limited to
// backgroundWriteback: a fast decoder (inflate, zstd: 500 MB/s and more)
// writing at its own speed had a game running beside the install lose
// frames of 20 ms and more, whatever the unpacker's own priority, and none
// when the bytes were written at the end (scripts/bench-frames.sh); a
// slow one (LZMA: about 100 MB/s) is written as it goes, which spares its
// install the wait for all its bytes at the end.
const (
	unlimitedWriteback  = math.MaxInt64
	backgroundWriteback = 96 << 20
)

// writebackPace shares an extraction's rate of early writeback among its
// writers.
type writebackPace struct {
	rate  int64 // bytes a second; 0: none
	start time.Time

	mu    sync.Mutex // guards given
	given int64      // bytes whose writeback was started
}

func newWritebackPace(rate int64) *writebackPace {
	return &writebackPace{rate: rate, start: time.Now()}
}

// take reports whether n more bytes may have their writeback started now,
// and counts them if so. One batch may always go ahead of the rate.
func (p *writebackPace) take(n int64) bool {
	if p.rate <= 0 {
		return false
	}
	if p.rate == unlimitedWriteback {
		return true
	}
	allowed := int64(time.Since(p.start).Seconds()*float64(p.rate)) + writebackBatch
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.given+n > allowed {
		return false
	}
	p.given += n
	return true
}

// writeback starts one file's writeback in batches of writebackBatch, as
// its pace allows; the rest is left to the flush.
type writeback struct{ from, to int64 }

// wrote records n more bytes written to f after those it recorded, and
// starts their writeback when a batch is full and pace allows it.
func (b *writeback) wrote(f *os.File, n int64, pace *writebackPace) {
	if off, length, ok := b.add(n); ok && pace.take(length) {
		startWriteback(f, off, length)
	}
}

// add records n more bytes and returns the range to start writing back
// when a batch is full: the range is done with whether or not it is
// started.
func (b *writeback) add(n int64) (off, length int64, ok bool) {
	b.to += n
	if b.to-b.from < writebackBatch {
		return 0, 0, false
	}
	off, length = b.from, b.to-b.from
	b.from = b.to
	return off, length, true
}
