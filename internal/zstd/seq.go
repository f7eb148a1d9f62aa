package zstd

// sequences decodes nseq sequences from the backward stream in and
// executes them (RFC 8878 sections 3.1.1.3.2 and 3.1.1.4): out grows by
// literals and matches, never past end; a match reaches back at most to
// hist and at most the window.
func (d *decoder) sequences(out []byte, hist, end int, lits, in []byte, nseq int) ([]byte, string) {
	var br bitReader
	if !br.init(in) {
		return out, "bad sequences bit stream"
	}
	llt, oft, mlt := d.ll, d.of, d.ml
	lls := br.readBits(llt.log)
	ofs := br.readBits(oft.log)
	mls := br.readBits(mlt.log)
	r0, r1, r2 := d.rep[0], d.rep[1], d.rep[2]
	pos := len(out)
	out = out[:end]
	window := d.window
	for i := nseq - 1; i >= 0; i-- {
		br.reload()
		lle, ofe, mle := llt.e[lls&511], oft.e[ofs&511], mlt.e[mls&511]
		off := int(ofe.base + br.readBits(ofe.addBits))
		br.reload()
		ml := int(mle.base + br.readBits(mle.addBits))
		ll := int(lle.base + br.readBits(lle.addBits))
		if ofe.addBits > 1 {
			off -= 3
			r0, r1, r2 = off, r0, r1
		} else {
			if ll == 0 {
				off++
			}
			switch off {
			case 1:
				off = r0
			case 2:
				off = r1
				r0, r1 = r1, r0
			case 3:
				off = r2
				r0, r1, r2 = r2, r0, r1
			default:
				off = r0 - 1
				if off == 0 {
					return out, "repeat offset of zero"
				}
				r0, r1, r2 = off, r0, r1
			}
		}
		if i > 0 {
			br.reload()
			lls = uint32(lle.next) + br.readBits(lle.nbBits)
			mls = uint32(mle.next) + br.readBits(mle.nbBits)
			ofs = uint32(ofe.next) + br.readBits(ofe.nbBits)
		}
		if ll > len(lits) {
			return out, "literal length past the literals"
		}
		if ll+ml > end-pos {
			return out, "block larger than its maximum"
		}
		copy(out[pos:pos+ll], lits[:ll])
		lits = lits[ll:]
		pos += ll
		if off > pos-hist || off > window {
			return out, "match offset before the frame's start or past the window"
		}
		pos = matchCopy(out, pos, off, ml)
	}
	br.reload()
	if !br.finished() {
		return out, "sequences bit stream not used up exactly"
	}
	if len(lits) > end-pos {
		return out, "block larger than its maximum"
	}
	pos += copy(out[pos:], lits)
	d.rep = [3]int{r0, r1, r2}
	return out[:pos], ""
}

// matchCopy copies ml bytes from off bytes back to out[pos:] and returns
// the new position; the copy may overlap itself, repeating the bytes.
func matchCopy(out []byte, pos, off, ml int) int {
	src := pos - off
	end := pos + ml
	if off >= ml {
		copy(out[pos:end], out[src:src+ml])
		return end
	}
	for pos < end {
		pos += copy(out[pos:end], out[src:pos])
	}
	return end
}
