package zstd

import "encoding/binary"

// seqState is the state of a sequences section between two sequences:
// the backward bit stream (as bitReader, in locals of the loop) and the
// three FSE states.
type seqState struct {
	in            []byte
	off           int
	value         uint64
	consumed      uint
	lls, ofs, mls uint32
}

// sequences decodes nseq sequences from the backward stream in and
// executes them (RFC 8878 sections 3.1.1.3.2 and 3.1.1.4): out grows by
// literals and matches, never past end; a match reaches back at most to
// hist and at most the window. out must have slop bytes of room past end:
// short copies write up to 16 bytes past what they copy.
func (d *decoder) sequences(out []byte, hist, end int, lits, in []byte, nseq int) ([]byte, string) {
	var br bitReader
	if !br.init(in) {
		return out, "bad sequences bit stream"
	}
	llt, oft, mlt := d.ll, d.of, d.ml
	st := seqState{in: in, lls: br.readBits(llt.log), ofs: br.readBits(oft.log), mls: br.readBits(mlt.log)}
	st.off, st.value, st.consumed = br.off, br.value, br.consumed
	r0, r1, r2 := d.rep[0], d.rep[1], d.rep[2]
	pos := len(out)
	out = out[:end+slop]
	lits = lits[:len(lits):len(lits)]
	litPos := 0
	for i := nseq - 1; i >= 0; i-- {
		st.reload()
		lle, ofe, mle := llt.e[st.lls&511], oft.e[st.ofs&511], mlt.e[st.mls&511]
		off := int(ofe.base + st.bits(ofe.addBits))
		ml := int(mle.base + st.bits(mle.addBits))
		if ofe.addBits+mle.addBits+lle.addBits > 30 {
			st.reload()
		}
		ll := int(lle.base + st.bits(lle.addBits))
		if ofe.addBits > 1 {
			off -= 3
			r0, r1, r2 = off, r0, r1
		} else {
			off, r0, r1, r2 = repeat(off, ll, r0, r1, r2)
			if off == 0 {
				return out, "repeat offset of zero"
			}
		}
		if i > 0 {
			st.lls = uint32(lle.next) + st.bits(lle.nbBits)
			st.mls = uint32(mle.next) + st.bits(mle.nbBits)
			st.ofs = uint32(ofe.next) + st.bits(ofe.nbBits)
		}
		if ll > len(lits)-litPos {
			return out, "literal length past the literals"
		}
		if ll+ml > end-pos {
			return out, "block larger than its maximum"
		}
		if ll <= 16 && len(lits)-litPos >= 16 {
			*(*[16]byte)(out[pos:]) = *(*[16]byte)(lits[litPos:])
		} else {
			copy(out[pos:pos+ll], lits[litPos:litPos+ll])
		}
		litPos += ll
		pos += ll
		if off > pos-hist || off > d.window {
			return out, "match offset before the frame's start or past the window"
		}
		pos = matchCopy(out, pos, off, ml)
	}
	st.reload()
	if st.off != 0 || st.consumed != 64 {
		return out, "sequences bit stream not used up exactly"
	}
	if len(lits)-litPos > end-pos {
		return out, "block larger than its maximum"
	}
	pos += copy(out[pos:], lits[litPos:])
	d.rep = [3]int{r0, r1, r2}
	return out[:pos], ""
}

// bits reads n bits of the stream.
func (s *seqState) bits(n uint8) uint32 {
	v := s.value << s.consumed >> (64 - uint(n))
	s.consumed += uint(n)
	return uint32(v)
}

// reload refills the stream's value as bitReader.reload does.
func (s *seqState) reload() {
	if s.off >= 8 {
		s.off -= int(s.consumed >> 3)
		s.consumed &= 7
		s.value = binary.LittleEndian.Uint64(s.in[s.off:])
		return
	}
	s.reloadEnd()
}

// reloadEnd is reload near the stream's start.
func (s *seqState) reloadEnd() {
	if s.consumed > 64 {
		return
	}
	n := min(int(s.consumed>>3), s.off)
	if n == 0 {
		return
	}
	s.off -= n
	s.consumed -= uint(n) * 8
	s.value = binary.LittleEndian.Uint64(s.in[s.off:])
}

// repeat resolves an offset value of 1 to 3 into an offset and the new
// repeat offsets (RFC 8878 section 3.1.2.5); offset 0 is invalid.
func repeat(v, ll, r0, r1, r2 int) (int, int, int, int) {
	if ll == 0 {
		v++
	}
	switch v {
	case 1:
		return r0, r0, r1, r2
	case 2:
		return r1, r1, r0, r2
	case 3:
		return r2, r2, r0, r1
	}
	return r0 - 1, r0 - 1, r0, r1
}

// matchCopy copies ml bytes from off bytes back to out[pos:] and returns
// the new position; the copy may overlap itself, repeating the bytes. It
// may write up to 16 bytes past pos+ml.
func matchCopy(out []byte, pos, off, ml int) int {
	src := pos - off
	end := pos + ml
	if off >= 16 {
		if ml <= 32 {
			*(*[16]byte)(out[pos:]) = *(*[16]byte)(out[src:])
			*(*[16]byte)(out[pos+16:]) = *(*[16]byte)(out[src+16:])
			return end
		}
		if off >= ml {
			copy(out[pos:end], out[src:src+ml])
			return end
		}
	}
	if off >= 8 && ml <= 16 {
		*(*[8]byte)(out[pos:]) = *(*[8]byte)(out[src:])
		*(*[8]byte)(out[pos+8:]) = *(*[8]byte)(out[src+8:])
		return end
	}
	for pos < end {
		pos += copy(out[pos:end], out[src:pos])
	}
	return end
}
