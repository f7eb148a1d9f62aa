package zstd

import (
	"encoding/binary"
	"unsafe"
)

// seq is one decoded sequence: literals to copy, then a match.
type seq struct{ ll, ml, off uint32 }

// seqState is decodeSeqs's state where seqsFast takes it up and leaves it
// (seq_amd64.s reads its fields by offset): the stream's first byte, the
// read position and its 8 bytes and used bits as bitReader has them, the
// three tables and their states, the repeat offsets, and whether a
// repeat offset was zero.
type seqState struct {
	in            *byte
	at            int
	value, used   uint64
	ll, of, ml    *fseTable
	lls, ofs, mls uint64
	rep           [3]int
	bad           bool
}

// sequences decodes nseq sequences from the backward stream in, then
// executes them (RFC 8878 sections 3.1.1.3.2 and 3.1.1.4): decoding them
// all first leaves the execution loop free of the bit stream, so the
// processor overlaps the reads of far matches.
func (d *decoder) sequences(out []byte, hist, end int, lits, in []byte, nseq int) ([]byte, string) {
	if nseq > d.blockMax/3+1 {
		return out, "more sequences than a block holds"
	}
	if cap(d.seqs) < nseq {
		d.seqs = make([]seq, nseq, max(nseq, 1024))
	}
	seqs := d.seqs[:nseq]
	if what := d.decodeSeqs(seqs, in); what != "" {
		return out, what
	}
	return d.execute(out, hist, end, lits, seqs)
}

// decodeSeqs decodes len(seqs) sequences from the backward stream in,
// resolving repeat offsets. The stream's state lives in locals (a struct
// of more than four fields would live in memory), read as bitReader
// reads it: used counts the bits of value already read, from its top.
func (d *decoder) decodeSeqs(seqs []seq, in []byte) string {
	var br bitReader
	if !br.init(in) {
		return "bad sequences bit stream"
	}
	llt, oft, mlt := d.ll, d.of, d.ml
	lls, ofs, mls := br.readBits(llt.log), br.readBits(oft.log), br.readBits(mlt.log)
	st := seqState{in: &in[0], at: br.off, value: br.value, used: uint64(br.consumed),
		ll: llt, of: oft, ml: mlt, lls: uint64(lls), ofs: uint64(ofs), mls: uint64(mls), rep: d.rep}
	i := seqsFast(&st, seqs)
	if st.bad {
		return "repeat offset of zero"
	}
	at, value, used := st.at, st.value, uint(st.used)
	lls, ofs, mls = uint32(st.lls), uint32(st.ofs), uint32(st.mls)
	r0, r1, r2 := st.rep[0], st.rep[1], st.rep[2]
	var stateBits uint
	for ; i < len(seqs); i++ {
		if at >= 8 {
			at -= int(used >> 3)
			used &= 7
			value = binary.LittleEndian.Uint64(in[at : at+8])
		} else {
			at, value, used = reloadEnd(in, at, value, used)
		}
		lle, ofe, mle := llt.e[lls&511], oft.e[ofs&511], mlt.e[mls&511]
		// The offset's and the match length's extra bits in one read.
		om := uint(ofe.addBits) + uint(mle.addBits)
		v := value << (used & 63) >> 1 >> ((63 - om) & 63)
		used += om
		ml := mle.base + uint32(v&lowMask[mle.addBits&31])
		off := int(ofe.base) + int(v>>(mle.addBits&63))
		if ofe.addBits+mle.addBits+lle.addBits > 30 {
			at, value, used = reloadEnd(in, at, value, used)
		}
		ll := lle.base + uint32(value<<(used&63)>>1>>((63-uint(lle.addBits))&63))
		used += uint(lle.addBits)
		if ofe.addBits > 1 {
			off -= 3
			r0, r1, r2 = off, r0, r1
		} else if off, r0, r1, r2 = repeat(off, int(ll), r0, r1, r2); off == 0 {
			return "repeat offset of zero"
		}
		seqs[i] = seq{ll: ll, ml: ml, off: uint32(off)}
		// The three state updates in one read: LL's bits first, then
		// ML's, then OF's.
		stateBits = uint(lle.nbBits) + uint(mle.nbBits) + uint(ofe.nbBits)
		v = value << (used & 63) >> 1 >> ((63 - stateBits) & 63)
		used += stateBits
		ofs = uint32(ofe.next) + uint32(v&lowMask[ofe.nbBits&31])
		v >>= ofe.nbBits & 63
		mls = uint32(mle.next) + uint32(v&lowMask[mle.nbBits&31])
		lls = uint32(lle.next) + uint32(v>>(mle.nbBits&63))
	}
	// The last sequence has no state updates: the bits read for them
	// are given back.
	return d.endSeqs(in, at, value, used-stateBits, r0, r1, r2)
}

// endSeqs checks that the stream was used up exactly and keeps the
// repeat offsets.
func (d *decoder) endSeqs(in []byte, at int, value uint64, used uint, r0, r1, r2 int) string {
	at, _, used = reloadEnd(in, at, value, used)
	if at != 0 || used != 64 {
		return "sequences bit stream not used up exactly"
	}
	d.rep = [3]int{r0, r1, r2}
	return ""
}

// reloadEnd refills value as bitReader.reload does, wherever the stream
// is.
func reloadEnd(in []byte, at int, value uint64, used uint) (int, uint64, uint) {
	if used > 64 {
		return at, value, used
	}
	n := min(int(used>>3), at)
	if n == 0 {
		return at, value, used
	}
	at -= n
	return at, binary.LittleEndian.Uint64(in[at : at+8]), used - uint(n)*8
}

// execute appends the literals and matches of seqs to out, never past
// end; a match reaches back at most to hist and at most the window. out
// must have slop bytes of room past end: short copies write up to 32
// bytes past what they copy, always overwritten later.
func (d *decoder) execute(out []byte, hist, end int, lits []byte, seqs []seq) ([]byte, string) {
	pos := len(out)
	out = out[:end+slop]
	lits = lits[:len(lits):len(lits)]
	litPos := 0
	window := d.window
	last16 := len(lits) - 16 // the last literal a 16-byte move may start at
	// The moves below go through pointers: each is inside out and lits
	// by the checks before it (a sequence ends at end at most, and out
	// has slop bytes past end for the 16- and 32-byte moves), which the
	// compiler does not see: its bounds checks cost 4% of decoding a
	// .pak-like stream, 7% of text.
	o := unsafe.Pointer(unsafe.SliceData(out))
	l := unsafe.Pointer(unsafe.SliceData(lits))
	for _, s := range seqs {
		ll, ml, off := int(s.ll), int(s.ml), int(s.off)
		if ll+ml > end-pos {
			return out, "block larger than its maximum"
		}
		if ll <= 16 && litPos <= last16 {
			*(*[16]byte)(unsafe.Add(o, pos)) = *(*[16]byte)(unsafe.Add(l, litPos))
		} else {
			if ll > len(lits)-litPos {
				return out, "literal length past the literals"
			}
			copy(out[pos:pos+ll], lits[litPos:litPos+ll])
		}
		litPos += ll
		pos += ll
		if off > pos-hist || off > window {
			if off > window || hist != 0 || off-pos > len(d.earlier) {
				return out, "match offset before the frame's start or past the window"
			}
			if src := len(d.earlier) - (off - pos); ml <= 32 && src+32 <= len(d.earlier) {
				// Most matches into earlier are short and wholly inside
				// it: two 16-byte moves, as below. They never touch what
				// they read: the source is more than a block past out's
				// end (see Reader.room).
				e := unsafe.Pointer(unsafe.SliceData(d.earlier))
				*(*[16]byte)(unsafe.Add(o, pos)) = *(*[16]byte)(unsafe.Add(e, src))
				*(*[16]byte)(unsafe.Add(o, pos+16)) = *(*[16]byte)(unsafe.Add(e, src+16))
				pos += ml
				continue
			}
			pos = earlierCopy(out, pos, off, ml, d.earlier)
			continue
		}
		if off >= 16 && ml <= 16 {
			*(*[16]byte)(unsafe.Add(o, pos)) = *(*[16]byte)(unsafe.Add(o, pos-off))
			pos += ml
			continue
		}
		if off >= 32 && ml <= 32 {
			// Both loads before the stores: the copy does not overlap
			// itself.
			a, b := *(*[16]byte)(unsafe.Add(o, pos-off)), *(*[16]byte)(unsafe.Add(o, pos-off+16))
			*(*[16]byte)(unsafe.Add(o, pos)), *(*[16]byte)(unsafe.Add(o, pos+16)) = a, b
			pos += ml
			continue
		}
		if off >= 16 && ml <= 32 {
			*(*[16]byte)(unsafe.Add(o, pos)) = *(*[16]byte)(unsafe.Add(o, pos-off))
			*(*[16]byte)(unsafe.Add(o, pos+16)) = *(*[16]byte)(unsafe.Add(o, pos-off+16))
			pos += ml
			continue
		}
		pos = matchCopy(out, pos, off, ml)
	}
	if len(lits)-litPos > end-pos {
		return out, "block larger than its maximum"
	}
	pos += copy(out[pos:], lits[litPos:])
	return out[:pos], ""
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
			*(*[16]byte)(out[pos : pos+16]) = *(*[16]byte)(out[src : src+16])
			*(*[16]byte)(out[pos+16 : pos+32]) = *(*[16]byte)(out[src+16 : src+32])
			return end
		}
		if off >= ml {
			copy(out[pos:end], out[src:src+ml])
			return end
		}
	}
	if off >= 8 && ml <= 16 {
		*(*[8]byte)(out[pos : pos+8]) = *(*[8]byte)(out[src : src+8])
		*(*[8]byte)(out[pos+8 : pos+16]) = *(*[8]byte)(out[src+8 : src+16])
		return end
	}
	for pos < end {
		pos += copy(out[pos:end], out[src:pos])
	}
	return end
}

// earlierCopy copies a match of ml bytes at offset off to out[pos:] that
// starts off-pos bytes before the end of earlier, the history before
// out's start, and goes on, should it be longer, from out's start, byte
// by byte: those bytes may be the match's own. It returns the position
// after it.
func earlierCopy(out []byte, pos, off, ml int, earlier []byte) int {
	src := len(earlier) - (off - pos)
	n := copy(out[pos:pos+ml], earlier[src:])
	for i := range ml - n {
		out[pos+n+i] = out[i]
	}
	return pos + ml
}

// lowMask[n] has the low n bits set: a load, where 1<<n-1 is a shift by
// a variable, which costs several micro-operations on amd64 before BMI2.
var lowMask = func() (m [32]uint64) {
	for i := range m {
		m[i] = 1<<i - 1
	}
	return
}()
