package lzma2

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// This file decodes raw LZMA (LZMA1) streams with the LZMA2 decoder's
// core: one range-coded stream, its state never reset, read through the
// same input buffer in pieces rather than chunk by chunk. Its end is
// checked as 7-Zip checks a 7z LZMA coder's: after the declared size the
// range decoder is finished (its code is 0) or an end marker follows, and
// after that the stream's bytes are all used.

// minLZMADict is the smallest dictionary an LZMA decoder uses, whatever
// the properties say (LZMA_DIC_MIN of the reference decoder).
const minLZMADict = 1 << 12

// endMarkerDist is the distance (less one) of the end marker.
const endMarkerDist = math.MaxUint32

// errEndMarker tells the decoding loop's caller that the end marker was
// decoded. It never reaches a Read.
var errEndMarker = errors.New("lzma2: end marker")

// NewLZMAReader returns a Reader of the raw LZMA stream in r, with the
// five property bytes of a 7z LZMA coder or an .lzma header: the lc, lp
// and pb byte, then the dictionary size, little-endian. The dictionary
// (at least 4 KiB, at most the declared size when it is smaller, rounded
// up to a multiple of 16) and 6 MiB at most of probabilities are all it
// allocates, so a caller that bounds the dictionary size bounds the
// memory.
//
// When size is UnknownSize the stream must end with an end marker.
// Otherwise it must decode to size bytes, after which it may hold an end
// marker or none. Either way the range decoder must be finished at the
// end and r must hold nothing more: the stream's end is checked when its
// last byte is decoded, so an error comes with the last bytes.
func NewLZMAReader(r io.Reader, properties [5]byte, size uint64) (*Reader, error) {
	b := properties[0]
	if b >= 9*5*5 {
		return nil, fmt.Errorf("%w: LZMA properties byte %d is over 224", errData, b)
	}
	dictSize := max(uint64(binary.LittleEndian.Uint32(properties[1:])), minLZMADict)
	n := dictSize
	if size != unknownSize {
		n = min(n, max(size, 16))
	}
	z := &Reader{
		r: r, dict: make([]byte, (n+15)&^15), maxDist: int(dictSize), size: size,
		lzma1: true, kind: chunkLZMA, in: new(inBuf), probs: new(probs),
	}
	z.props = props{lc: uint(b % 9), lp: uint(b / 9 % 5), pb: uint(b / 45)}
	z.resetState()
	z.rc.ip = -1 // the range decoder is not started
	return z, nil
}

// fillLZMA decodes more of an LZMA stream into the dictionary at z.pos,
// reading more input first when in runs low. It returns io.EOF, or the
// damage, when the stream's end is decoded.
func (z *Reader) fillLZMA() error {
	if z.rc.ip < 0 {
		if err := z.startLZMA(); err != nil {
			return err
		}
	}
	if z.out == z.size {
		return z.finish(false)
	}
	if err := z.fillIn(); err != nil {
		return err
	}
	z.left = int(min(z.size-z.out, math.MaxInt))
	start := z.pos
	err := z.decodeLZMA()
	z.out += uint64(z.pos - start)
	switch {
	case err == errEndMarker:
		return z.finish(true)
	case err != nil:
		return err
	case z.out == z.size:
		return z.finish(false)
	}
	return nil
}

// startLZMA reads the range decoder's first five bytes: a zero, then the
// code.
func (z *Reader) startLZMA() error {
	z.rc.ip = 0
	if err := z.fillIn(); err != nil {
		return err
	}
	if z.inLen < 5 {
		return z.lzmaTruncated(0)
	}
	if z.in[0] != 0 {
		return z.corruptAt(z.pos, "bad range coder start")
	}
	z.rc = rc{rng: 0xffffffff, code: binary.BigEndian.Uint32(z.in[1:5]), ip: 5}
	return nil
}

// fillIn reads more of the stream into in unless it holds enough for the
// longest symbol or r has ended. The bytes not yet decoded move to its
// start; once r ends, inPad zeros follow the last byte.
func (z *Reader) fillIn() error {
	if z.inEOF || z.rc.ip <= z.inLen-inPad {
		return nil
	}
	n := copy(z.in[:], z.in[z.rc.ip:z.inLen])
	z.rc.ip = 0
	m, err := io.ReadFull(z.r, z.in[n:len(z.in)-inPad])
	z.inLen = n + m
	switch err {
	case nil:
		return nil
	case io.EOF, io.ErrUnexpectedEOF:
		z.inEOF = true
		clear(z.in[z.inLen : z.inLen+inPad])
		return nil
	}
	return fmt.Errorf("lzma2: reading the LZMA stream at decoded byte %d: %w", z.out, err)
}

// finish checks the end of an LZMA stream, reached at the declared size
// or at an end marker (marker): no match runs on, an end marker follows
// the declared size if the range decoder is not finished there, the range
// decoder is finished after it, and no byte of the stream is left.
func (z *Reader) finish(marker bool) error {
	if z.remLen > 0 {
		return z.corruptAt(z.pos, fmt.Sprintf("a match runs %d bytes past the declared size", z.remLen))
	}
	if err := z.fillIn(); err != nil {
		return err
	}
	r := z.rc.normalize(z.in)
	if !marker && r.code != 0 {
		// Not finished at the declared size: only an end marker may
		// follow.
		var ok bool
		if r, ok = z.endMarker(r); !ok {
			return z.corruptAt(z.pos, "the declared size is decoded, but neither the range decoder is finished nor an end marker follows")
		}
		marker = true
		r = r.normalize(z.in)
	}
	z.rc = r
	switch {
	case r.ip > z.inLen:
		return z.lzmaTruncated(z.pos)
	case r.code != 0:
		return z.corruptAt(z.pos, "the range decoder is not finished at the end")
	case r.ip < z.inLen:
		return z.corruptAt(z.pos, fmt.Sprintf("%d bytes follow the end of the stream", z.inLen-r.ip))
	}
	if !z.inEOF {
		var b [1]byte
		if n, err := io.ReadFull(z.r, b[:]); n > 0 {
			return z.corruptAt(z.pos, "bytes follow the end of the stream")
		} else if err != io.EOF {
			return fmt.Errorf("lzma2: reading the LZMA stream at decoded byte %d: %w", z.out, err)
		}
		z.inEOF = true
	}
	if marker && z.size != unknownSize && z.out != z.size {
		return fmt.Errorf("%w: the LZMA end marker comes after %d bytes, declared %d", errSize, z.out, z.size)
	}
	return io.EOF
}

// endMarker decodes the symbol after the declared size and reports
// whether it is the end marker: a match of distance endMarkerDist.
func (z *Reader) endMarker(r rc) (rc, bool) {
	p, in := z.probs, z.in
	posState := uint32(z.pos) & (1<<z.props.pb - 1)
	state := z.lz.state
	var b, n, d uint32
	if r, b = r.bit(in, &p.isMatch[state*posStates+posState]); b == 0 {
		return r, false
	}
	if r, b = r.bit(in, &p.isRep[state]); b != 0 {
		return r, false
	}
	r, n = r.length(in, &p.matchLen, posState)
	r, d = r.distance(in, p, n)
	return r, d == endMarkerDist
}

// normalize reads the range decoder's next byte if its range is below
// topValue, as it is read after a stream's last bit.
func (r rc) normalize(in *inBuf) rc {
	if r.rng < topValue {
		r.rng <<= 8
		r.code = r.code<<8 | uint32(in[r.ip])
		r.ip++
	}
	return r
}

// lzmaTruncated is the error of an LZMA stream that ends before its end,
// found while decoding at dictionary position pos.
func (z *Reader) lzmaTruncated(pos int) error {
	return fmt.Errorf("lzma2: the LZMA stream ends at decoded byte %d: %w", z.out+uint64(pos-z.pos), io.ErrUnexpectedEOF)
}

// runOut is the error of the decoding loop at dictionary position pos
// when the input runs out: an LZMA2 chunk's packed bytes, or an LZMA
// stream.
func (z *Reader) runOut(pos int) error {
	if z.lzma1 {
		return z.lzmaTruncated(pos)
	}
	return z.corrupt("the packed bytes run out before the chunk's end")
}

// corruptAt is an ErrData error found while decoding at dictionary
// position pos: in an LZMA2 chunk, or at a decoded byte of an LZMA stream
// (z.out and z.pos being where the current decoding began).
func (z *Reader) corruptAt(pos int, what string) error {
	if !z.lzma1 {
		return z.corrupt(what)
	}
	return fmt.Errorf("%w: LZMA stream at decoded byte %d: %s", errData, z.out+uint64(pos-z.pos), what)
}
