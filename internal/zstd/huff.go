package zstd

import "math/bits"

// maxHuffLog is the longest Huffman code (RFC 8878 section 4.2.1).
const maxHuffLog = 11

// huffTable decodes Huffman-coded literals: e is indexed by the next log
// bits of a stream and holds a symbol in its high byte and its code
// length in its low byte.
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
	t.log = uint8(log)
	return true
}

// decode1 decodes the stream in into exactly len(dst) symbols and reports
// whether the stream was used up exactly.
func (t *huffTable) decode1(dst, in []byte) bool {
	var br bitReader
	if !br.init(in) {
		return false
	}
	shift := (63 - uint(t.log)) & 63
	i := 0
	for br.off >= 8 && i+4 <= len(dst) {
		br.reload()
		d := dst[i : i+4 : i+4]
		e := t.e[(br.value<<(br.consumed&63)>>1>>shift)&(1<<maxHuffLog-1)]
		br.consumed += uint(e & 255)
		d[0] = uint8(e >> 8)
		e = t.e[(br.value<<(br.consumed&63)>>1>>shift)&(1<<maxHuffLog-1)]
		br.consumed += uint(e & 255)
		d[1] = uint8(e >> 8)
		e = t.e[(br.value<<(br.consumed&63)>>1>>shift)&(1<<maxHuffLog-1)]
		br.consumed += uint(e & 255)
		d[2] = uint8(e >> 8)
		e = t.e[(br.value<<(br.consumed&63)>>1>>shift)&(1<<maxHuffLog-1)]
		br.consumed += uint(e & 255)
		d[3] = uint8(e >> 8)
		i += 4
	}
	for ; i < len(dst); i++ {
		br.reload()
		e := t.e[(br.value<<(br.consumed&63)>>1>>shift)&(1<<maxHuffLog-1)]
		br.consumed += uint(e & 255)
		dst[i] = uint8(e >> 8)
	}
	br.reload()
	return br.finished()
}

// decode4 decodes four streams, described by the six-byte jump table at
// the start of in, into dst.
func (t *huffTable) decode4(dst, in []byte) bool {
	if len(in) < 6 || len(dst) < 4 {
		return false
	}
	s1 := int(in[0]) | int(in[1])<<8
	s2 := int(in[2]) | int(in[3])<<8
	s3 := int(in[4]) | int(in[5])<<8
	in = in[6:]
	if s1+s2+s3 > len(in) {
		return false
	}
	seg := (len(dst) + 3) / 4
	if 3*seg > len(dst) {
		return false
	}
	return t.decode1(dst[:seg], in[:s1]) &&
		t.decode1(dst[seg:2*seg], in[s1:s1+s2]) &&
		t.decode1(dst[2*seg:3*seg], in[s1+s2:s1+s2+s3]) &&
		t.decode1(dst[3*seg:], in[s1+s2+s3:])
}
