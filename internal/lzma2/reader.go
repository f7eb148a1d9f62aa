// Package lzma2 owns decoding raw LZMA2 streams, as 7z coders carry them:
// a sequence of chunks, each stored or LZMA-compressed, ended by a zero
// control byte, with no container around it; and raw LZMA (LZMA1)
// streams, as 7z's LZMA coder carries them: one range-coded stream, with
// or without an end marker, checked at its end as 7-Zip checks it; and
// .xz files (NewXZReader), the container of .tar.xz around LZMA2, every
// header, index and check verified. The decoder is built for
// speed (the range decoder's state lives in locals of one loop that
// decodes a whole chunk, a chunk's packed bytes are read before it is
// decoded) and for hostile input: a malformed stream is an error, never a
// panic or a loop, and memory stays within the dictionary plus a fixed
// amount.
package lzma2

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Errors returned by a Reader, wrapped with where in the stream they arose.
var (
	// errData is returned when the stream is not valid LZMA2 or LZMA: a
	// bad control byte or property, a distance beyond the decoded data, a
	// chunk whose packed bytes do not decode to its declared size, an
	// LZMA stream whose range decoder is not finished at its end or that
	// has bytes after it.
	errData = errors.New("lzma2: corrupt stream")
	// errSize is returned when the stream decodes to more or fewer bytes
	// than the size given to NewReader or NewLZMAReader.
	errSize = errors.New("lzma2: stream size differs from the declared size")
)

// unknownSize tells NewReader that the decoded size is not known: the
// stream then ends at its end chunk, whatever it decoded to.
const unknownSize = ^uint64(0)

// maxPacked is the largest packed size of a chunk: a 16-bit size plus one.
const maxPacked = 1 << 16

// inPad is how far past a chunk's packed bytes the range decoder may read
// within one symbol before the loop notices it ran out: the buffer is
// padded so such reads stay in bounds.
const inPad = 64

// inBuf holds an LZMA chunk's packed bytes, or a piece of an LZMA stream.
// Its size is a power of two past maxPacked+inPad, so that masking an
// index keeps it in bounds.
type inBuf [2 * maxPacked]byte

// Chunk kinds a Reader can be in the middle of.
const (
	chunkNone = iota
	chunkStored
	chunkLZMA
)

// Reader decodes a raw LZMA2 stream, or a raw LZMA stream when made by
// NewLZMAReader. Its dictionary is also its output window: bytes are
// decoded into it and read out of it.
type Reader struct {
	r       io.Reader
	dict    []byte // circular; len is a multiple of 16
	pos     int    // where the next byte is decoded
	rd      int    // dict[rd:pos] is decoded but not yet read
	full    bool   // the dictionary has wrapped since its last reset
	maxDist int    // a match's distance (less one) must be below it

	size uint64 // declared decoded size, or UnknownSize
	out  uint64 // LZMA2: bytes of the chunks started so far; LZMA: bytes decoded

	lzma1 bool // a raw LZMA stream, not LZMA2
	inEOF bool // LZMA: r has ended; in holds the rest of the stream

	kind   int // chunkNone, chunkStored or chunkLZMA
	left   int // bytes the current chunk has yet to decode
	in     *inBuf
	inLen  int // packed bytes of the current LZMA chunk in in
	rc     rc
	lz     lzState
	remLen int // bytes of a match left over at the window's end

	props     props
	probs     *probs
	needReset bool // no chunk has reset the dictionary yet
	needProps bool // no LZMA chunk has set properties since the reset
	err       error
	hdr       [6]byte
}

// NewReader returns a Reader of the raw LZMA2 stream in r, which was
// compressed with a dictionary of dictSize bytes: that much (rounded up to
// a multiple of 16) is allocated, whatever the stream holds, so a caller
// that bounds dictSize bounds the memory. When size is not UnknownSize, a
// stream that decodes to any other number of bytes is an error.
func NewReader(r io.Reader, dictSize int, size uint64) *Reader {
	n := (max(dictSize, 16) + 15) &^ 15
	return &Reader{
		r: r, dict: make([]byte, n), maxDist: n, size: size,
		needReset: true, needProps: true,
	}
}

// Read reads decoded bytes into p.
func (z *Reader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		if z.rd < z.pos {
			n := copy(p, z.dict[z.rd:z.pos])
			z.rd += n
			if z.rd == z.pos && z.out == z.size && z.kind == chunkNone && z.err == nil && !z.lzma1 {
				// The declared size is decoded and read: a reader held
				// to it never asks again, so read the end chunk now.
				if z.err = z.nextChunk(); z.err != io.EOF {
					return n, z.err
				}
			}
			if z.rd == z.pos && z.err != nil && z.err != io.EOF {
				// The damage found with the last bytes comes with
				// them, for the same reason.
				return n, z.err
			}
			return n, nil
		}
		if z.err != nil {
			return 0, z.err
		}
		if z.pos == len(z.dict) {
			z.pos, z.rd, z.full = 0, 0, true
		}
		z.err = z.fill()
	}
}

// fill decodes more of the stream into the dictionary at z.pos, starting
// the next chunk when the current one is done. It returns io.EOF at the
// end chunk.
func (z *Reader) fill() error {
	if z.lzma1 {
		return z.fillLZMA()
	}
	switch z.kind {
	case chunkStored:
		n := min(z.left, len(z.dict)-z.pos)
		if _, err := io.ReadFull(z.r, z.dict[z.pos:z.pos+n]); err != nil {
			return z.truncated(err)
		}
		z.pos += n
		z.left -= n
		if z.left == 0 {
			z.kind = chunkNone
		}
		return nil
	case chunkLZMA:
		return z.decodeLZMA()
	}
	return z.nextChunk()
}

// truncated is the error of a stream that ends inside a chunk.
func (z *Reader) truncated(err error) error {
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("lzma2: stream ends inside the chunk at decoded byte %d: %w", z.out, err)
}

// corrupt is an ErrData error at the current chunk.
func (z *Reader) corrupt(what string) error {
	return fmt.Errorf("%w: chunk at decoded byte %d: %s", errData, z.out, what)
}

// nextChunk reads the next chunk's control byte and header, and an LZMA
// chunk's packed bytes, and makes it the current chunk.
func (z *Reader) nextChunk() error {
	h := z.hdr[:1]
	if _, err := io.ReadFull(z.r, h); err != nil {
		return z.truncated(err)
	}
	c := h[0]
	if c == 0 {
		if z.size != unknownSize && z.out != z.size {
			return fmt.Errorf("%w: ends after %d bytes, declared %d", errSize, z.out, z.size)
		}
		return io.EOF
	}
	if c >= 0x03 && c < 0x80 {
		return z.corrupt(fmt.Sprintf("control byte %#02x", c))
	}
	if c == 0x01 || c >= 0xe0 {
		z.pos, z.rd, z.full = 0, 0, false
		z.needReset, z.needProps = false, true
	} else if z.needReset {
		return z.corrupt("the first chunk does not reset the dictionary")
	}
	if c < 0x80 {
		h = z.hdr[:2]
		if _, err := io.ReadFull(z.r, h); err != nil {
			return z.truncated(err)
		}
		return z.startChunk(chunkStored, int(binary.BigEndian.Uint16(h))+1)
	}
	h = z.hdr[:4+int(c>>6&1)]
	if _, err := io.ReadFull(z.r, h); err != nil {
		return z.truncated(err)
	}
	unpacked := int(c&0x1f)<<16 + int(binary.BigEndian.Uint16(h)) + 1
	packed := int(binary.BigEndian.Uint16(h[2:])) + 1
	switch {
	case c >= 0xc0:
		if err := z.setProps(h[4]); err != nil {
			return err
		}
		z.needProps = false
	case z.needProps:
		return z.corrupt("an LZMA chunk after a dictionary reset sets no properties")
	case c >= 0xa0:
		z.resetState()
	}
	return z.readPacked(unpacked, packed)
}

// startChunk makes a chunk of kind that decodes to n bytes current.
func (z *Reader) startChunk(kind, n int) error {
	if z.size != unknownSize && z.size-z.out < uint64(n) {
		return fmt.Errorf("%w: a chunk of %d bytes at decoded byte %d passes the declared %d", errSize, n, z.out, z.size)
	}
	z.kind, z.left = kind, n
	z.out += uint64(n)
	return nil
}

// readPacked reads an LZMA chunk's packed bytes and starts its range
// decoder.
func (z *Reader) readPacked(unpacked, packed int) error {
	if z.in == nil {
		z.in = new(inBuf)
	}
	if _, err := io.ReadFull(z.r, z.in[:packed]); err != nil {
		return z.truncated(err)
	}
	clear(z.in[packed : packed+inPad])
	if packed < 5 || z.in[0] != 0 {
		return z.corrupt("bad range coder start")
	}
	z.inLen = packed
	z.rc = rc{rng: 0xffffffff, code: binary.BigEndian.Uint32(z.in[1:5]), ip: 5}
	return z.startChunk(chunkLZMA, unpacked)
}

// setProps sets the lc, lp and pb properties from their byte and resets
// the decoder's state.
func (z *Reader) setProps(b byte) error {
	if b >= 9*5*5 {
		return z.corrupt(fmt.Sprintf("properties byte %d", b))
	}
	p := props{lc: uint(b % 9), lp: uint(b / 9 % 5), pb: uint(b / 45)}
	if p.lc+p.lp > 4 {
		return z.corrupt(fmt.Sprintf("lc %d + lp %d is over 4", p.lc, p.lp))
	}
	z.props = p
	z.resetState()
	return nil
}

// resetState resets the probabilities, the state and the repeated
// distances, as an LZMA chunk asking for a state reset does.
func (z *Reader) resetState() {
	if z.probs == nil {
		z.probs = new(probs)
	}
	z.probs.reset(max(z.props.lc+z.props.lp, 4))
	z.lz = lzState{}
	z.remLen = 0
}
