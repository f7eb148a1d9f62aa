package zstd

import (
	"encoding/binary"
	"math/bits"
)

// maxHuffLog is the longest Huffman code (RFC 8878 section 4.2.1).
const maxHuffLog = 11

// huffTable decodes Huffman-coded literals: e is indexed by the next
// maxHuffLog bits of a stream, whatever the table's log (an entry for
// log bits is repeated for every value of the bits after them), and
// holds a symbol in its high byte and its code length in its low byte.
type huffTable struct {
	e   [1 << maxHuffLog]uint16
	log uint8
}

// readHuffTable reads a Huffman tree description (RFC 8878 section
// 4.2.1) from in into t and returns the bytes it took, or ok false.
func (d *decoder) readHuffTable(in []byte) (int, bool) {
	if len(in) == 0 {
		return 0, false
	}
	var w [256]uint8
	var nw, n int
	hb := int(in[0])
	if hb >= 128 {
		nw = hb - 127
		n = 1 + (nw+1)/2
		if n > len(in) {
			return 0, false
		}
		for i := 0; i < nw; i++ {
			w[i] = in[1+i/2] >> 4
			if i&1 == 1 {
				w[i] = in[1+i/2] & 15
			}
		}
	} else {
		n = 1 + hb
		if n > len(in) {
			return 0, false
		}
		var ok bool
		if nw, ok = d.readFSEWeights(in[1:n], &w); !ok {
			return 0, false
		}
	}
	return n, d.huff.build(w[:], nw)
}

// readFSEWeights decodes FSE-compressed Huffman weights: a table
// description, then a backward stream read by two interleaved states.
func (d *decoder) readFSEWeights(in []byte, w *[256]uint8) (int, bool) {
	var norm [256]int16
	log, nsym, n, ok := readNormCounts(in, &norm, maxWeightLog, maxWeightSym)
	if !ok {
		return 0, false
	}
	t := &d.weightTable
	if !t.build(norm[:nsym], log, nil, nil) {
		return 0, false
	}
	var br bitReader
	if !br.init(in[n:]) {
		return 0, false
	}
	s1 := br.readBits(uint8(log))
	s2 := br.readBits(uint8(log))
	br.reload()
	i := 0
	for {
		e := t.e[s1&511]
		if i > 253 {
			return 0, false
		}
		w[i] = uint8(e.base)
		i++
		s1 = uint32(e.next) + br.readBits(e.nbBits)
		br.reload()
		if br.overflowed() {
			w[i] = uint8(t.e[s2&511].base)
			return i + 1, true
		}
		s1, s2 = s2, s1
	}
}

// build fills t from the weights of the first nw symbols; the last
// symbol's weight is implied (RFC 8878 section 4.2.1.3).
func (t *huffTable) build(w []uint8, nw int) bool {
	total := 0
	for _, x := range w[:nw] {
		if x > maxHuffLog {
			return false
		}
		if x > 0 {
			total += 1 << (x - 1)
		}
	}
	if total == 0 || nw >= 256 {
		return false
	}
	log := bits.Len(uint(total))
	if log > maxHuffLog {
		return false
	}
	rest := 1<<log - total
	if rest&(rest-1) != 0 {
		return false
	}
	w[nw] = uint8(bits.Len(uint(rest)))
	var rank [maxHuffLog + 2]int
	for _, x := range w[:nw+1] {
		rank[x]++
	}
	next := 0
	for x := 1; x <= log; x++ {
		cur := next
		next += rank[x] << (x - 1)
		rank[x] = cur
	}
	for s, x := range w[:nw+1] {
		if x == 0 {
			continue
		}
		length := 1 << (x - 1)
		e := uint16(s)<<8 | uint16(log+1-int(x))
		start := rank[x]
		for u := start; u < start+length; u++ {
			t.e[u&(1<<maxHuffLog-1)] = e
		}
		rank[x] += length
	}
	// Each entry of the log-bit table, repeated for the maxHuffLog-log
	// bits after it: from the top down, so no entry is read after it is
	// overwritten.
	for k, u := maxHuffLog-log, 1<<maxHuffLog-1; u >= 0; u-- {
		t.e[u] = t.e[u>>k]
	}
	t.log = uint8(log)
	return true
}

// huffShift moves the next maxHuffLog bits of a stream from the top of a
// uint64 to the bottom.
const huffShift = 64 - maxHuffLog

// decode1 decodes the stream in into exactly len(dst) symbols and reports
// whether the stream was used up exactly.
func (t *huffTable) decode1(dst, in []byte) bool {
	var br bitReader
	if !br.init(in) {
		return false
	}
	return t.tail(dst, 0, &br)
}

// tail decodes dst[i:] from br, four symbols a reload while br is far
// from its start, and reports whether br was used up exactly.
func (t *huffTable) tail(dst []byte, i int, br *bitReader) bool {
	at, value, used, in := br.off, br.value, br.consumed, br.in
	for ; at >= 8 && i+4 <= len(dst); i += 4 {
		at -= int(used >> 3)
		used &= 7
		value = binary.LittleEndian.Uint64(in[at : at+8])
		d := dst[i : i+4 : i+4]
		for k := range d {
			e := t.e[value<<(used&63)>>huffShift]
			used += uint(e & 255)
			d[k] = uint8(e >> 8)
		}
	}
	for ; i < len(dst); i++ {
		at, value, used = reloadEnd(in, at, value, used)
		e := t.e[value<<(used&63)>>huffShift]
		used += uint(e & 255)
		dst[i] = uint8(e >> 8)
	}
	at, _, used = reloadEnd(in, at, value, used)
	return at == 0 && used == 64
}

// decode4 decodes four streams, described by the six-byte jump table at
// the start of in, into dst: the four are decoded side by side while
// all are far from their starts, so the processor overlaps their table
// reads.
func (t *huffTable) decode4(dst, in []byte) bool {
	if len(in) < 6 || len(dst) < 4 {
		return false
	}
	s1 := int(in[0]) | int(in[1])<<8
	s2 := int(in[2]) | int(in[3])<<8
	s3 := int(in[4]) | int(in[5])<<8
	in = in[6:]
	seg := (len(dst) + 3) / 4
	if s1+s2+s3 > len(in) || 3*seg > len(dst) {
		return false
	}
	var b [4]bitReader
	if !b[0].init(in[:s1]) || !b[1].init(in[s1:s1+s2]) || !b[2].init(in[s1+s2:s1+s2+s3]) || !b[3].init(in[s1+s2+s3:]) {
		return false
	}
	d1, d2, d3, d4 := dst[:seg], dst[seg:2*seg], dst[2*seg:3*seg], dst[3*seg:]
	i := t.side4(d1, d2, d3, d4, &b, huff4Fast(t, dst, seg, &b))
	return t.tail(d1, i, &b[0]) && t.tail(d2, i, &b[1]) && t.tail(d3, i, &b[2]) && t.tail(d4, i, &b[3])
}

// side4 decodes the four streams side by side from symbol i on, four
// symbols of each a round, while every stream is far from its start and
// d4 (the shortest) has room; it leaves b where they are and returns how
// far it got.
func (t *huffTable) side4(d1, d2, d3, d4 []byte, b *[4]bitReader, i int) int {
	a1, v1, u1, in1 := b[0].off, b[0].value, b[0].consumed, b[0].in
	a2, v2, u2, in2 := b[1].off, b[1].value, b[1].consumed, b[1].in
	a3, v3, u3, in3 := b[2].off, b[2].value, b[2].consumed, b[2].in
	a4, v4, u4, in4 := b[3].off, b[3].value, b[3].consumed, b[3].in
	d2, d3 = d2[:len(d1)], d3[:len(d1)]
	for ; i+4 <= len(d4) && a1 >= 8 && a2 >= 8 && a3 >= 8 && a4 >= 8; i += 4 {
		a1 -= int(u1 >> 3)
		u1 &= 7
		v1 = binary.LittleEndian.Uint64(in1[a1 : a1+8])
		a2 -= int(u2 >> 3)
		u2 &= 7
		v2 = binary.LittleEndian.Uint64(in2[a2 : a2+8])
		a3 -= int(u3 >> 3)
		u3 &= 7
		v3 = binary.LittleEndian.Uint64(in3[a3 : a3+8])
		a4 -= int(u4 >> 3)
		u4 &= 7
		v4 = binary.LittleEndian.Uint64(in4[a4 : a4+8])
		for k := i; k < i+4; k++ {
			e1 := t.e[v1<<(u1&63)>>huffShift]
			e2 := t.e[v2<<(u2&63)>>huffShift]
			e3 := t.e[v3<<(u3&63)>>huffShift]
			e4 := t.e[v4<<(u4&63)>>huffShift]
			u1 += uint(e1 & 255)
			u2 += uint(e2 & 255)
			u3 += uint(e3 & 255)
			u4 += uint(e4 & 255)
			d1[k], d2[k], d3[k], d4[k] = uint8(e1>>8), uint8(e2>>8), uint8(e3>>8), uint8(e4>>8)
		}
	}
	b[0].off, b[0].value, b[0].consumed = a1, v1, u1
	b[1].off, b[1].value, b[1].consumed = a2, v2, u2
	b[2].off, b[2].value, b[2].consumed = a3, v3, u3
	b[3].off, b[3].value, b[3].consumed = a4, v4, u4
	return i
}
