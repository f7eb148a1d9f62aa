package lzma2

import "fmt"

// This file decodes LZMA chunks: the range decoder, the probability
// model and the loop that turns symbols into bytes in the dictionary. The
// range decoder is passed and returned by value so that, inlined into the
// loop, its state stays in registers.

// props are an LZMA chunk's literal context bits, literal position bits
// and position bits.
type props struct{ lc, lp, pb uint }

// Sizes of the probability model.
const (
	numStates  = 12
	posStates  = 1 << 4 // 1 << the largest pb
	probInit   = 1 << 10
	litCoder   = 0x300
	litCoders  = 1 << 4 // 1 << the largest lc+lp of LZMA2
	lenStates  = 4
	slotBits   = 6
	alignBits  = 4
	endSlot    = 14  // the first slot whose distance has direct bits
	specProbs  = 116 // reverse trees of slots 4..13, indexed from 1
	topValue   = 1 << 24
	modelBits  = 11
	moveBits   = 5
	litStates  = 7 // states below it follow a literal
	minMatch   = 2
	lowSyms    = 1 << 3
	highSyms   = 1 << 8
	lowLenMax  = minMatch + lowSyms
	midLenMax  = lowLenMax + lowSyms
	shortRepLn = 1
)

// lenProbs are the probabilities of a match length coder.
type lenProbs struct {
	choice, choice2 uint16
	low, mid        [posStates][lowSyms]uint16
	high            [highSyms]uint16
}

// probs are all the adaptive probabilities of an LZMA decoder.
type probs struct {
	isMatch    [numStates * posStates]uint16
	isRep      [numStates]uint16
	isRepG0    [numStates]uint16
	isRepG1    [numStates]uint16
	isRepG2    [numStates]uint16
	isRep0Long [numStates * posStates]uint16
	slot       [lenStates][1 << slotBits]uint16
	spec       [specProbs]uint16
	align      [1 << alignBits]uint16
	matchLen   lenProbs
	repLen     lenProbs
	literal    []uint16 // litCoder probabilities for each literal context
}

// reset sets every probability to one half, with 1<<litBits literal
// coders (lc+lp bits of context). The literal coders are allocated once
// for the most bits asked, at most 12: 6 MiB.
func (p *probs) reset(litBits uint) {
	lit := p.literal
	n := litCoder << litBits
	if cap(lit) < n {
		lit = make([]uint16, n)
	}
	*p = halfProbs
	p.literal = lit[:n]
	for i := range p.literal {
		p.literal[i] = probInit
	}
}

// halfProbs has every probability at one half.
var halfProbs = func() (p probs) {
	fill := func(s []uint16) {
		for i := range s {
			s[i] = probInit
		}
	}
	for _, s := range [][]uint16{p.isMatch[:], p.isRep[:], p.isRepG0[:], p.isRepG1[:],
		p.isRepG2[:], p.isRep0Long[:], p.spec[:], p.align[:]} {
		fill(s)
	}
	for i := range p.slot {
		fill(p.slot[i][:])
	}
	for _, l := range []*lenProbs{&p.matchLen, &p.repLen} {
		l.choice, l.choice2 = probInit, probInit
		for i := range posStates {
			fill(l.low[i][:])
			fill(l.mid[i][:])
		}
		fill(l.high[:])
	}
	return p
}()

// lzState is the LZMA state machine's state and the four repeated
// distances (each one less than the distance it stands for).
type lzState struct {
	state uint32
	rep   [4]uint32
}

// Next states after a literal, a match, a repeated match and a short
// repeat.
var litNext = [numStates]uint32{0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 4, 5}

func matchNext(s uint32) uint32 {
	if s < litStates {
		return 7
	}
	return 10
}

func repNext(s uint32) uint32 {
	if s < litStates {
		return 8
	}
	return 11
}

func shortRepNext(s uint32) uint32 {
	if s < litStates {
		return 9
	}
	return 11
}

// rc is the range decoder: its range, its code and the index of the next
// input byte.
type rc struct {
	rng, code uint32
	ip        int
}

// bit decodes one bit with the probability *p and adapts it.
func (r rc) bit(in *inBuf, p *uint16) (rc, uint32) {
	if r.rng < topValue {
		r.rng <<= 8
		r.code = r.code<<8 | uint32(in[r.ip])
		r.ip++
	}
	v := uint32(*p)
	bound := (r.rng >> modelBits) * v
	b, t := uint32(1), uint32(0)
	nrng, ncode := r.rng-bound, r.code-bound
	if r.code < bound {
		nrng, ncode, b, t = bound, r.code, 0, probFloor
	}
	r.rng, r.code = nrng, ncode
	*p = uint16(v - uint32(int32(v-t)>>moveBits))
	return r, b
}

// tree decodes an n-bit symbol, most significant bit first, with the
// bit tree in probs (indexed from 1). The bit decoder is written out.
func (r rc) tree(in *inBuf, probs []uint16, n uint32) (rc, uint32) {
	rng, code, ip := r.rng, r.code, r.ip
	sym := uint32(1)
	for range n {
		if rng < topValue {
			rng <<= 8
			code = code<<8 | uint32(in[ip])
			ip++
		}
		v := uint32(probs[sym])
		bound := (rng >> modelBits) * v
		b, t := uint32(1), uint32(0)
		nrng, ncode := rng-bound, code-bound
		if code < bound {
			nrng, ncode, b, t = bound, code, 0, probFloor
		}
		rng, code = nrng, ncode
		probs[sym] = uint16(v - uint32(int32(v-t)>>moveBits))
		sym = sym<<1 | b
	}
	return rc{rng, code, ip}, sym - 1<<n
}

// reverse decodes an n-bit symbol, least significant bit first, with the
// bit tree in probs (indexed from 1).
func (r rc) reverse(in *inBuf, probs []uint16, n uint32) (rc, uint32) {
	sym, v := uint32(1), uint32(0)
	for i := range n {
		var b uint32
		r, b = r.bit(in, &probs[sym])
		sym = sym<<1 | b
		v |= b << i
	}
	return r, v
}

// literal decodes a literal's eight bits with the coder lit. It is the
// bit decoder written out, as the compiler will not inline it, and
// without branches on the bits, which are as good as random. The next
// bit's probability is one of the two children of this bit's: both are
// loaded before this bit is known, which then picks one, so that no load
// waits between one bit's decision and the next's multiplication.
func (r rc) literal(in *inBuf, lit *[litCoder]uint16) (rc, uint32) {
	rng, code, ip := r.rng, r.code, r.ip
	sym := uint32(1)
	v := uint32(lit[1])
	for range 8 {
		if rng < topValue {
			rng <<= 8
			code = code<<8 | uint32(in[ip])
			ip++
		}
		c := sym << 1 & 0x1fe // the children: c and c+1
		v0, v1 := uint32(lit[c]), uint32(lit[c|1])
		bound := (rng >> modelBits) * v
		b, t, nv := uint32(1), uint32(0), v1
		nrng, ncode := rng-bound, code-bound
		if code < bound {
			nrng, ncode, b, t, nv = bound, code, 0, probFloor, v0
		}
		rng, code = nrng, ncode
		lit[sym&0xff] = uint16(v - uint32(int32(v-t)>>moveBits))
		sym = sym<<1 | b
		v = nv
	}
	return rc{rng, code, ip}, sym
}

// matchedLiteral decodes a literal after a match, with the coder lit and
// the byte mb at the last match distance: while its bits agree with the
// literal's, they choose among further probabilities. As in literal, the
// two probabilities the next bit may use are loaded before this bit is
// known.
func (r rc) matchedLiteral(in *inBuf, lit *[litCoder]uint16, mb uint32) (rc, uint32) {
	rng, code, ip := r.rng, r.code, r.ip
	sym, off := uint32(1), uint32(0x100)
	mb <<= 1
	v := uint32(lit[off+mb&off+1])
	for sym < 0x100 {
		if rng < topValue {
			rng <<= 8
			code = code<<8 | uint32(in[ip])
			ip++
		}
		// The match byte's bits keep choosing while the literal's agree.
		mbit := mb & off
		mb <<= 1
		off0 := off &^ mbit // after a 0 bit; after a 1 bit, mbit
		s0 := sym << 1 & 0xfe
		v0, v1 := uint32(lit[off0+mb&off0+s0]), uint32(lit[mbit+mb&mbit+s0|1])
		bound := (rng >> modelBits) * v
		b := uint32(0)
		if code >= bound {
			b = 1
		}
		t := (b - 1) & probFloor
		nrng, ncode, nv := rng-bound, code-bound, v1
		if code < bound {
			nrng, ncode, nv = bound, code, v0
		}
		rng, code = nrng, ncode
		lit[off+mbit+sym] = uint16(v - uint32(int32(v-t)>>moveBits))
		sym = sym<<1 | b
		// Arithmetic, not a conditional move: the compiler moves
		// nothing that addresses a load conditionally, and would branch.
		v, off = nv, off&(mbit^(b-1))
	}
	return rc{rng, code, ip}, sym
}

// probFloor makes a probability's update after a 0 bit one subtraction,
// as after a 1 bit: v + (2048-v)>>5 == v - (v-probFloor)>>5, the shift
// arithmetic.
const probFloor = 1<<modelBits - (1<<moveBits - 1)

// direct decodes n bits of probability one half.
func (r rc) direct(in *inBuf, n uint32) (rc, uint32) {
	v := uint32(0)
	for range n {
		if r.rng < topValue {
			r.rng <<= 8
			r.code = r.code<<8 | uint32(in[r.ip])
			r.ip++
		}
		r.rng >>= 1
		r.code -= r.rng
		t := 0 - r.code>>31 // all ones when the bit is 0
		r.code += r.rng & t
		v = v<<1 + t + 1
	}
	return r, v
}

// length decodes a match length with the coder l.
func (r rc) length(in *inBuf, l *lenProbs, posState uint32) (rc, uint32) {
	r, b := r.bit(in, &l.choice)
	if b == 0 {
		r, v := r.tree(in, l.low[posState][:], 3)
		return r, v + minMatch
	}
	r, b = r.bit(in, &l.choice2)
	if b == 0 {
		r, v := r.tree(in, l.mid[posState][:], 3)
		return r, v + lowLenMax
	}
	r, v := r.tree(in, l.high[:], 8)
	return r, v + midLenMax
}

// distance decodes the distance (less one) of a match of length n.
func (r rc) distance(in *inBuf, p *probs, n uint32) (rc, uint32) {
	r, slot := r.tree(in, p.slot[min(n-minMatch, lenStates-1)][:], slotBits)
	if slot < 4 {
		return r, slot
	}
	nd := slot>>1 - 1
	d := (2 | slot&1) << nd
	var v uint32
	if slot < endSlot {
		r, v = r.reverse(in, p.spec[d-slot:], nd)
		return r, d + v
	}
	r, v = r.direct(in, nd-alignBits)
	d += v << alignBits
	r, v = r.reverse(in, p.align[:], alignBits)
	return r, d + v
}

// decodeLZMA decodes the current LZMA chunk into the dictionary until the
// chunk or the dictionary's end is reached.
func (z *Reader) decodeLZMA() error {
	dict, pos := z.dict, z.pos
	start := pos
	limit := pos + min(z.left, len(dict)-pos)
	if z.remLen > 0 {
		n := min(z.remLen, limit-pos)
		pos = copyMatch(dict, pos, int(z.lz.rep[0]), n)
		z.remLen -= n
	}
	p, s, in, r := z.probs, &z.lz, z.in, z.rc
	lc, lpMask, pbMask := z.props.lc, uint32(1)<<z.props.lp-1, uint32(1)<<z.props.pb-1
	// An LZMA stream's decoding stops to read more input while a symbol
	// might need more bytes than in holds.
	stop := z.inLen
	if z.lzma1 && !z.inEOF {
		stop -= inPad
	}
	var err error
	for pos < limit {
		if r.ip > stop {
			if stop == z.inLen {
				err = z.runOut(pos)
			}
			break
		}
		posState := uint32(pos) & pbMask
		if r.rng < topValue {
			r.rng <<= 8
			r.code = r.code<<8 | uint32(in[r.ip])
			r.ip++
		}
		pm := &p.isMatch[s.state*posStates+posState]
		v := uint32(*pm)
		if bound := (r.rng >> modelBits) * v; r.code < bound {
			r.rng = bound
			*pm = uint16(v + (1<<modelBits-v)>>moveBits)
		} else {
			r.rng -= bound
			r.code -= bound
			*pm = uint16(v - v>>moveBits)
			var n int
			if r, n, err = z.match(r, posState, pos); err != nil {
				break
			}
			k := min(n, limit-pos)
			pos = copyMatch(dict, pos, int(s.rep[0]), k)
			z.remLen = n - k
			continue
		}
		prev := uint32(0)
		if pos > 0 {
			prev = uint32(dict[pos-1])
		} else if z.full {
			prev = uint32(dict[len(dict)-1])
		}
		lit := (*[litCoder]uint16)(p.literal[((uint32(pos)&lpMask)<<lc+prev>>(8-lc))*litCoder:])
		var sym uint32
		if s.state < litStates {
			r, sym = r.literal(in, lit)
		} else {
			src := pos - int(s.rep[0]) - 1
			if src < 0 {
				src += len(dict)
			}
			r, sym = r.matchedLiteral(in, lit, uint32(dict[src]))
		}
		dict[pos] = byte(sym)
		pos++
		s.state = litNext[s.state]
	}
	z.pos, z.rc = pos, r
	z.left -= pos - start
	if err != nil || z.left > 0 || z.lzma1 {
		return err
	}
	return z.endChunk()
}

// match decodes a match after its isMatch bit, leaving its distance in
// rep[0], and returns its length. pos is where the match is copied to.
func (z *Reader) match(r rc, posState uint32, pos int) (rc, int, error) {
	p, s, in := z.probs, &z.lz, z.in
	var b, n uint32
	r, b = r.bit(in, &p.isRep[s.state])
	switch {
	case b == 0:
		r, n = r.length(in, &p.matchLen, posState)
		s.rep[3], s.rep[2], s.rep[1] = s.rep[2], s.rep[1], s.rep[0]
		r, s.rep[0] = r.distance(in, p, n)
		s.state = matchNext(s.state)
	default:
		if r, b = r.bit(in, &p.isRepG0[s.state]); b == 0 {
			if r, b = r.bit(in, &p.isRep0Long[s.state*posStates+posState]); b == 0 {
				s.state, n = shortRepNext(s.state), shortRepLn
				break
			}
		} else {
			var d uint32
			if r, b = r.bit(in, &p.isRepG1[s.state]); b == 0 {
				d = s.rep[1]
			} else {
				if r, b = r.bit(in, &p.isRepG2[s.state]); b == 0 {
					d = s.rep[2]
				} else {
					d, s.rep[3] = s.rep[3], s.rep[2]
				}
				s.rep[2] = s.rep[1]
			}
			s.rep[1], s.rep[0] = s.rep[0], d
		}
		r, n = r.length(in, &p.repLen, posState)
		s.state = repNext(s.state)
	}
	if d := int(s.rep[0]); d >= z.maxDist || (!z.full && d >= pos) {
		if z.lzma1 && s.rep[0] == endMarkerDist {
			// Only a match can decode to it: a repeated distance was
			// once a match's, checked here.
			return r, 0, errEndMarker
		}
		return r, 0, z.corruptAt(pos, fmt.Sprintf("distance %d beyond the decoded data", uint64(d)+1))
	}
	return r, int(n), nil
}

// copyMatch copies n bytes from dist+1 bytes back to pos in the circular
// dict and returns the position after them; pos+n is within dict.
func copyMatch(dict []byte, pos, dist, n int) int {
	src := pos - dist - 1
	if src < 0 {
		src += len(dict)
	}
	if src > pos && src+n <= len(dict) {
		// The source is ahead: a forward copy reads it before any write.
		copy(dict[pos:pos+n], dict[src:src+n])
		return pos + n
	}
	if src < pos {
		// Overlapping copies repeat the pattern, doubling each time.
		for end := pos + n; pos < end; {
			pos += copy(dict[pos:end], dict[src:pos])
		}
		return pos
	}
	for range n {
		dict[pos] = dict[src]
		pos++
		if src++; src == len(dict) {
			src = 0
		}
	}
	return pos
}

// endChunk checks that the LZMA chunk just decoded used exactly its
// packed bytes, ended on a symbol and left the range decoder finished.
func (z *Reader) endChunk() error {
	if z.remLen > 0 {
		return z.corrupt("a match runs past the chunk's end")
	}
	r := z.rc
	if r.rng < topValue {
		r.code = r.code<<8 | uint32(z.in[r.ip])
		r.ip++
	}
	if r.ip != z.inLen || r.code != 0 {
		return z.corrupt(fmt.Sprintf("%d packed bytes, decoding used %d", z.inLen, r.ip))
	}
	z.kind = chunkNone
	return nil
}
