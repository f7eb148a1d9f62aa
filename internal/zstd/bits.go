package zstd

import (
	"encoding/binary"
	"math/bits"
)

// bitReader reads a backward bit stream (RFC 8878 section 4.1): the
// stream is read from its last byte to its first, and its last byte holds
// a 1 bit above the first bit to read. value holds in[off:off+8]; consumed
// counts the bits of value already read, from its top. Reads past the
// start of the stream give zeros and push consumed past 64, which
// overflowed reports.
type bitReader struct {
	in       []byte
	off      int
	value    uint64
	consumed uint
}

// init starts reading in from its end; it fails when in is empty or its
// last byte has no marker bit.
func (b *bitReader) init(in []byte) bool {
	if len(in) == 0 || in[len(in)-1] == 0 {
		return false
	}
	b.in = in
	b.consumed = uint(bits.LeadingZeros8(in[len(in)-1])) + 1
	if len(in) >= 8 {
		b.off = len(in) - 8
		b.value = binary.LittleEndian.Uint64(in[b.off:])
		return true
	}
	b.off = 0
	var v uint64
	for i := len(in) - 1; i >= 0; i-- {
		v = v<<8 | uint64(in[i])
	}
	b.value = v
	b.consumed += 8 * uint(8-len(in))
	return true
}

// readBits reads n bits (n at most 56 after a reload); n may be zero.
func (b *bitReader) readBits(n uint8) uint32 {
	v := b.value << b.consumed >> (64 - uint(n))
	b.consumed += uint(n)
	return uint32(v)
}

// reload refills value so that at least 56 bits are unread, or as many as
// the stream has left.
func (b *bitReader) reload() {
	if b.consumed > 64 {
		return
	}
	n := int(b.consumed >> 3)
	if n > b.off {
		n = b.off
	}
	if n == 0 {
		return
	}
	b.off -= n
	b.consumed -= uint(n) * 8
	b.value = binary.LittleEndian.Uint64(b.in[b.off:])
}

// overflowed reports whether more bits were read than the stream holds.
func (b *bitReader) overflowed() bool { return b.consumed > 64 }

// le64 returns the little-endian uint64 at in[i:], the missing bytes past
// the end of in read as zeros.
func le64(in []byte, i int) uint64 {
	if i+8 <= len(in) {
		return binary.LittleEndian.Uint64(in[i:])
	}
	var v uint64
	for j := len(in) - 1; j >= i; j-- {
		v = v<<8 | uint64(in[j])
	}
	return v
}
