package casync

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/bits"
)

// windowSize is the number of bytes casync's rolling hash covers.
const windowSize = 48

// discriminator is casync's divisor for an average chunk size: a position
// ends a chunk when the rolling hash modulo it is one less than it. The
// formula and its constants are casync's (CA_CHUNKER_DISCRIMINATOR_FROM_AVG),
// as desync computes it.
func discriminator(avg uint64) uint32 {
	return uint32(float64(avg) / (-1.42888852e-7*float64(avg) + 1.33237515))
}

// ChunkWriter receives the chunks Make cuts. data is the chunk's
// uncompressed bytes and is only valid during the call.
type ChunkWriter interface {
	PutChunk(id ChunkID, data []byte) error
}

// chunker cuts a stream into content-defined chunks with casync's buzhash
// over a 48-byte window, placing boundaries where desync does: a chunk is
// at least min bytes (except the last), at most max, and ends at the first
// position past min where the hash of the 48 bytes before it hits the
// discriminator.
type chunker struct {
	r        io.Reader
	min, max int
	disc     uint32
	buf      []byte // holds data[lo:hi]
	lo, hi   int
	eof      bool
	outTable [256]uint32 // buzTable rotated by the window size
}

func newChunker(r io.Reader, min, avg, max uint64) (*chunker, error) {
	if min < windowSize || min > avg || avg > max || max > DefaultMaxChunkSize {
		return nil, fmt.Errorf("casync chunker: sizes min %d, avg %d, max %d: want %d <= min <= avg <= max <= %d", min, avg, max, windowSize, DefaultMaxChunkSize)
	}
	c := &chunker{r: r, min: int(min), max: int(max), disc: discriminator(avg), buf: make([]byte, 4*max)}
	for i, v := range buzTable {
		c.outTable[i] = bits.RotateLeft32(v, windowSize)
	}
	return c, nil
}

// fill makes at least max bytes available, unless the stream ends first.
func (c *chunker) fill() error {
	if c.hi-c.lo >= c.max || c.eof {
		return nil
	}
	if c.lo > 0 {
		c.hi = copy(c.buf, c.buf[c.lo:c.hi])
		c.lo = 0
	}
	for c.hi < len(c.buf) {
		n, err := c.r.Read(c.buf[c.hi:])
		c.hi += n
		if errors.Is(err, io.EOF) {
			c.eof = true
			return nil
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// next returns the next chunk's bytes, valid until the next call, or nil at
// the end of the stream.
func (c *chunker) next() ([]byte, error) {
	if err := c.fill(); err != nil {
		return nil, err
	}
	data := c.buf[c.lo:c.hi]
	n := c.cut(data)
	c.lo += n
	return data[:n], nil
}

// cut returns the length of the chunk at the start of data, which holds at
// least max bytes unless the stream ends within them.
func (c *chunker) cut(data []byte) int {
	if len(data) <= c.min {
		return len(data)
	}
	end := min(len(data), c.max)
	var h uint32
	for i, b := range data[c.min-windowSize : c.min] {
		h ^= bits.RotateLeft32(buzTable[b], windowSize-1-i)
	}
	// h%disc == disc-1 is tested as (h+1)%disc == 0, except where h+1
	// wraps to zero.
	d := c.disc
	out := &c.outTable
	for p := c.min; p < end; p++ {
		h = bits.RotateLeft32(h, 1) ^ out[data[p-windowSize]] ^ buzTable[data[p]]
		if h%d == d-1 {
			return p + 1
		}
	}
	return end
}

// Make cuts r into chunks with the default sizes (DefaultMin, DefaultAvg,
// DefaultMax), at the boundaries and with the ids `desync make` gives the
// same bytes, hands each chunk to w (unless w is nil: index only) and
// returns the index. It stops at the first error of r or w, or when ctx is
// done.
func Make(ctx context.Context, r io.Reader, w ChunkWriter) (*Index, error) {
	return MakeSized(ctx, r, w, DefaultMin, DefaultAvg, DefaultMax)
}

// MakeSized is Make with the chunk sizes min, avg and max (`desync make
// -m min:avg:max`), as a seed must be cut to share chunks with an index
// made with other sizes than the defaults.
func MakeSized(ctx context.Context, r io.Reader, w ChunkWriter, min, avg, max uint64) (*Index, error) {
	c, err := newChunker(r, min, avg, max)
	if err != nil {
		return nil, err
	}
	ix := &Index{Flags: defaultFlags, Min: min, Avg: avg, Max: max}
	var start uint64
	for {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("make casync index: %w", err)
		}
		data, err := c.next()
		if err != nil {
			return nil, fmt.Errorf("make casync index: read at byte %d: %w", start, err)
		}
		if len(data) == 0 {
			return ix, nil
		}
		id := Sum(data)
		if w != nil {
			if err := w.PutChunk(id, data); err != nil {
				return nil, fmt.Errorf("make casync index: chunk %d (%s) at byte %d: %w", len(ix.Chunks), id, start, err)
			}
		}
		ix.Chunks = append(ix.Chunks, Chunk{Start: start, Size: uint64(len(data)), ID: id})
		start += uint64(len(data))
	}
}
