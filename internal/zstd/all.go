package zstd

import (
	"encoding/binary"
	"slices"
	"sync"

	"github.com/cespare/xxhash/v2"
)

// frameState is what decoding a frame tracks besides the decoder's
// tables: where it is, what it has produced, and its checksum.
type frameState struct {
	n, block int
	h        header
	produced uint64
	hash     xxhash.Digest
}

// fail returns an *Error for the frame's current block.
func (f *frameState) fail(off int64, err error, what string) error {
	return &Error{Frame: f.n, Block: f.block, Offset: off, What: what, Err: err}
}

// blockHeader splits a block header (RFC 8878 section 3.1.1.2).
func blockHeader(b []byte) (last bool, typ byte, size int) {
	v := int(b[0]) | int(b[1])<<8 | int(b[2])<<16
	return v&1 != 0, byte(v>>1) & 3, v >> 3
}

// checkBlock judges a block header against the frame's limits and
// returns the bytes of input the block holds.
func (d *decoder) checkBlock(typ byte, size int) (int, string) {
	switch {
	case typ == 3:
		return 0, "reserved block type"
	case size > d.blockMax:
		return 0, "block larger than its maximum"
	case typ == 1:
		return 1, ""
	}
	return size, ""
}

// decodeBlock appends a block's bytes to out, which has room for them.
func (d *decoder) decodeBlock(out []byte, hist int, typ byte, size int, in []byte) ([]byte, string) {
	switch typ {
	case 0:
		return append(out, in...), ""
	case 1:
		n := len(out)
		out = out[:n+size]
		b := in[0]
		for i := n; i < len(out); i++ {
			out[i] = b
		}
		return out, ""
	}
	return d.block(out, hist, in)
}

// endFrame checks a frame's content size and checksum; in holds the
// checksum when the frame has one.
func (f *frameState) endFrame(in []byte, off int64) error {
	f.block = -1
	if f.h.hasSize && f.produced != f.h.size {
		return f.fail(off, ErrCorrupt, "content size differs from the frame header's")
	}
	if f.h.checksum && binary.LittleEndian.Uint32(in) != uint32(f.hash.Sum64()) {
		return f.fail(off, ErrChecksum, "the decoded bytes are not the ones stored")
	}
	return nil
}

// decoders holds decoders between calls of DecodeAll: each holds a block
// of literals and its tables, some 160 KiB.
var decoders = sync.Pool{New: func() any { return new(decoder) }}

// DecodeAll decodes every frame of src and appends the bytes to dst. A
// frame's window may be at most maxWindow bytes, and all frames together
// may decode to at most maxSize bytes: more is ErrSize, found at the end
// of the block that went over (at most one block past maxSize is
// decoded, and dst grows by at most twice that).
func DecodeAll(dst, src []byte, maxWindow, maxSize uint64) ([]byte, error) {
	d := decoders.Get().(*decoder)
	defer decoders.Put(d)
	lim := limits{window: maxWindow, size: maxSize, start: len(dst)}
	for nf, off := 0, 0; off < len(src); nf++ {
		var err error
		var n int
		dst, n, err = d.frameAll(dst, src[off:], int64(off), nf, lim)
		if err != nil {
			return dst, err
		}
		off += n
	}
	return dst, nil
}

// limits are DecodeAll's: the window, the decoded size, and where in dst
// the decoded bytes start.
type limits struct {
	window, size uint64
	start        int
}

// frameAll decodes the frame at the start of src, which starts at byte
// base of the input, and returns the bytes of src it took.
func (d *decoder) frameAll(dst, src []byte, base int64, nf int, lim limits) ([]byte, int, error) {
	f := &frameState{n: nf, block: -1}
	if len(src) < 4 {
		return dst, 0, f.fail(base, ErrCorrupt, "magic number cut short")
	}
	magic := binary.LittleEndian.Uint32(src)
	if magic&skippableMask == skippableMagic {
		if len(src) < 8 {
			return dst, 0, f.fail(base, ErrCorrupt, "skippable frame header cut short")
		}
		n := uint64(binary.LittleEndian.Uint32(src[4:]))
		if n > uint64(len(src)-8) {
			return dst, 0, f.fail(base, ErrCorrupt, "skippable frame cut short")
		}
		return dst, 8 + int(n), nil
	}
	if magic != frameMagic {
		return dst, 0, f.fail(base, ErrCorrupt, "unknown magic number")
	}
	if len(src) < 5 || len(src) < 4+headerLen(src[4]) {
		return dst, 0, f.fail(base, ErrCorrupt, "frame header cut short")
	}
	hl := 4 + headerLen(src[4])
	h, what, err := parseHeader(src[4:hl], lim.window)
	if err != nil {
		return dst, 0, f.fail(base, err, what)
	}
	f.h = h
	d.reset(int(h.window))
	f.hash.Reset()
	// Room for the content size the header claims, at most the caller's
	// limit and at most what the frame's bytes could hold at a ratio of
	// 16 (more comes block by block): a short hostile frame claiming a
	// large size costs little.
	if h.hasSize && h.size <= lim.size-min(lim.size, uint64(len(dst)-lim.start)) {
		dst = grow(dst, int(min(h.size, uint64(len(src))*16+maxBlock))+slop)
	}
	dst, n, err := d.blocksAll(dst, src[hl:], base+int64(hl), f, lim)
	return dst, hl + n, err
}

// blocksAll decodes a frame's blocks and checksum from src.
func (d *decoder) blocksAll(dst, src []byte, base int64, f *frameState, lim limits) ([]byte, int, error) {
	hist := len(dst)
	off := 0
	for f.block = 0; ; f.block++ {
		if len(src)-off < 3 {
			return dst, 0, f.fail(base+int64(off), ErrCorrupt, "block header cut short")
		}
		last, typ, size := blockHeader(src[off:])
		n, what := d.checkBlock(typ, size)
		if what != "" {
			return dst, 0, f.fail(base+int64(off), ErrCorrupt, what)
		}
		if len(src)-off-3 < n {
			return dst, 0, f.fail(base+int64(off), ErrCorrupt, "block cut short")
		}
		dst = grow(dst, d.blockMax+slop)
		was := len(dst)
		if dst, what = d.decodeBlock(dst, hist, typ, size, src[off+3:off+3+n]); what != "" {
			return dst[:was], 0, f.fail(base+int64(off), ErrCorrupt, what)
		}
		off += 3 + n
		if uint64(len(dst)-lim.start) > lim.size {
			return dst, 0, f.fail(base+int64(off), ErrSize, "decoded bytes over the limit")
		}
		f.produced += uint64(len(dst) - was)
		if f.h.checksum {
			_, _ = f.hash.Write(dst[was:])
		}
		if last {
			break
		}
	}
	if f.h.checksum {
		if len(src)-off < 4 {
			return dst, 0, f.fail(base+int64(off), ErrCorrupt, "checksum cut short")
		}
		off += 4
	}
	return dst, off, f.endFrame(src[off-min(off, 4):off], base+int64(off))
}

// grow makes room for n more bytes in b.
func grow(b []byte, n int) []byte {
	if cap(b)-len(b) >= n {
		return b
	}
	return slices.Grow(b, n)
}
