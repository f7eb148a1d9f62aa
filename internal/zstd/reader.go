package zstd

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Reader decodes a stream of frames from an io.Reader. Its buffer holds
// the window and the block being read out: it grows with the bytes
// decoded (to at most 8 times them) up to the window and two blocks, so a
// frame that claims a large window costs little more than what it
// decodes, and never more than maxWindow allows.
type Reader struct {
	r         io.Reader
	br        *bufio.Reader // r's buffer, when it needs one
	pk        *bufio.Reader // r, when it is a buffer a block can be read in place from
	maxWindow uint64
	maxFrame  uint64 // the most bytes a frame may decode to
	d         *decoder
	f         frameState
	inFrame   bool
	out       []byte // history and decoded bytes
	rd        int    // bytes of out already read
	in        []byte // the block being decoded
	off       int64  // bytes read from r
	nframes   int
	err       error
}

// NewReader returns a Reader of r whose frames may ask for a window of at
// most maxWindow bytes. It reads r through a buffer of its own unless r
// is a *bufio.Reader or a *bytes.Reader, so it may read past the end of
// the last frame.
func NewReader(r io.Reader, maxWindow uint64) *Reader {
	z := &Reader{maxWindow: maxWindow, maxFrame: ^uint64(0), d: new(decoder)}
	z.Reset(r)
	return z
}

// readBuffer is the size of the buffer a Reader reads r through: room
// for the largest compressed block and its header, so that a block is
// decoded where it was read into (see peek).
const readBuffer = 2 * maxBlock

// Reset makes z read r from its start, keeping its buffers.
func (z *Reader) Reset(r io.Reader) {
	br := z.br
	var pk *bufio.Reader
	switch r := r.(type) {
	case *bytes.Reader, nil:
	case *bufio.Reader:
		pk = r
	default:
		if br == nil {
			br = bufio.NewReaderSize(r, readBuffer)
		}
		br.Reset(r)
		pk = br
	}
	if pk != nil {
		r = pk
	}
	*z = Reader{r: r, br: br, pk: pk, maxWindow: z.maxWindow, maxFrame: z.maxFrame, d: z.d, out: z.out[:0], in: z.in[:0]}
}

// LimitFrames makes each frame z decodes give at most n bytes (Reset
// keeps the limit): a frame whose header claims more is ErrSize at its
// header, and one that decodes more is ErrSize at the block that goes
// over, whose bytes are never read.
func (z *Reader) LimitFrames(n uint64) { z.maxFrame = n }

// Read reads decoded bytes into p.
func (z *Reader) Read(p []byte) (int, error) {
	for z.rd == len(z.out) {
		if z.err != nil {
			return 0, z.err
		}
		z.err = z.step()
	}
	n := copy(p, z.out[z.rd:])
	z.rd += n
	return n, nil
}

// WriteTo writes the decoded bytes to w until the end of the stream.
func (z *Reader) WriteTo(w io.Writer) (int64, error) {
	var total int64
	for {
		if z.rd < len(z.out) {
			n, err := w.Write(z.out[z.rd:])
			z.rd += n
			total += int64(n)
			if err != nil {
				return total, err
			}
		}
		if z.err != nil {
			if z.err == io.EOF {
				return total, nil
			}
			return total, z.err
		}
		z.err = z.step()
	}
}

// fill reads exactly n bytes into z.in; the stream ending first is
// ErrCorrupt with what.
func (z *Reader) fill(n int, what string) error {
	if cap(z.in) < n {
		z.in = make([]byte, n, max(n, maxBlock))
	}
	z.in = z.in[:n]
	k, err := io.ReadFull(z.r, z.in)
	z.off += int64(k)
	return z.cut(err, what)
}

// peek returns the next n bytes in place in r's buffer, when r is one
// that holds them: a compressed block is then decoded from there, not
// copied first (a copy of every compressed byte, 3% of decoding a
// .pak-like stream). The bytes stay valid until z reads again; skip
// consumes them. It returns false when r is no such buffer, or the
// bytes are not all there (fill then reads them, or says where they end).
func (z *Reader) peek(n int) ([]byte, bool) {
	if z.pk == nil {
		return nil, false
	}
	b, err := z.pk.Peek(n)
	return b, err == nil
}

// skip consumes the n bytes peek returned.
func (z *Reader) skip(n int) {
	k, _ := z.pk.Discard(n)
	z.off += int64(k)
}

// cut turns the stream's end in the middle of a part into ErrCorrupt
// with what.
func (z *Reader) cut(err error, what string) error {
	if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
		return z.f.fail(z.off, ErrCorrupt, what)
	}
	return err
}

// step decodes the next block, or reads the next frame's header, or a
// frame's end.
func (z *Reader) step() error {
	if !z.inFrame {
		return z.startFrame()
	}
	if z.f.block < 0 {
		return z.endFrame()
	}
	at := z.off
	if err := z.fill(3, "block header cut short"); err != nil {
		return err
	}
	last, typ, size := blockHeader(z.in)
	n, what := z.d.checkBlock(typ, size)
	if what != "" {
		return z.f.fail(at, ErrCorrupt, what)
	}
	z.room(z.d.blockMax + slop)
	was := len(z.out)
	if typ == 0 {
		// A raw block is read straight into the window.
		z.out = z.out[:was+size]
		k, err := io.ReadFull(z.r, z.out[was:])
		z.off += int64(k)
		if err != nil {
			z.out = z.out[:was]
			return z.cut(err, "block cut short")
		}
	} else {
		in, peeked := z.peek(n)
		if !peeked {
			if err := z.fill(n, "block cut short"); err != nil {
				return err
			}
			in = z.in
		}
		z.out, what = z.d.decodeBlock(z.out, 0, typ, size, in)
		if peeked {
			z.skip(n)
		}
		if what != "" {
			z.out = z.out[:was]
			return z.f.fail(at, ErrCorrupt, what)
		}
	}
	if z.f.produced+uint64(len(z.out)-was) > z.maxFrame {
		z.out = z.out[:was]
		return z.f.fail(at, ErrSize, fmt.Sprintf("the frame decodes to more than the limit of %d bytes", z.maxFrame))
	}
	z.f.produced += uint64(len(z.out) - was)
	if z.f.h.checksum {
		_, _ = z.f.hash.Write(z.out[was:])
	}
	if z.f.h.hasSize && z.f.produced > z.f.h.size {
		return z.f.fail(at, ErrCorrupt, "content larger than the frame header's size")
	}
	z.f.block++
	if last {
		z.f.block = -1
	}
	return nil
}

// startFrame reads a frame header, or skips a skippable frame; the end
// of the stream before a frame is io.EOF.
func (z *Reader) startFrame() error {
	z.f = frameState{n: z.nframes, block: -1}
	at := z.off
	var magic [4]byte
	k, err := io.ReadFull(z.r, magic[:])
	z.off += int64(k)
	if err == io.EOF {
		return io.EOF
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return z.f.fail(at, ErrCorrupt, "magic number cut short")
	}
	if err != nil {
		return err
	}
	m := binary.LittleEndian.Uint32(magic[:])
	if m&skippableMask == skippableMagic {
		if err := z.fill(4, "skippable frame header cut short"); err != nil {
			return err
		}
		n := int64(binary.LittleEndian.Uint32(z.in))
		k, err := io.CopyN(io.Discard, z.r, n)
		z.off += k
		if err == io.EOF {
			return z.f.fail(at, ErrCorrupt, "skippable frame cut short")
		}
		z.nframes++
		return err
	}
	if m != frameMagic {
		return z.f.fail(at, ErrCorrupt, "unknown magic number")
	}
	if err := z.fill(1, "frame header cut short"); err != nil {
		return err
	}
	var h0 [16]byte
	h0[0] = z.in[0]
	hl := headerLen(h0[0])
	if err := z.fill(hl-1, "frame header cut short"); err != nil {
		return err
	}
	copy(h0[1:], z.in)
	h, what, err := parseHeader(h0[:hl], z.maxWindow)
	if err != nil {
		return z.f.fail(at, err, what)
	}
	if h.hasSize && h.size > z.maxFrame {
		return z.f.fail(at, ErrSize, fmt.Sprintf("content size of %d bytes, over the limit of %d", h.size, z.maxFrame))
	}
	z.f.h, z.f.block = h, 0
	z.d.reset(int(h.window))
	z.f.hash.Reset()
	z.out, z.rd = z.out[:0], 0
	z.inFrame = true
	return nil
}

// endFrame reads a frame's checksum and checks it and the content size.
func (z *Reader) endFrame() error {
	z.inFrame = false
	z.nframes++
	at := z.off
	if z.f.h.checksum {
		if err := z.fill(4, "checksum cut short"); err != nil {
			return err
		}
	}
	return z.f.endFrame(z.in, at)
}

// room makes room for n more bytes in z.out, all of whose bytes have been
// read. The buffer grows with the bytes decoded up to the window and
// twice n; from then on, when it is full, decoding starts over at its
// front and what it holds becomes the decoder's earlier history, which a
// match reaching back past the front copies from: no byte is moved to
// make room. Starting over leaves more than the window and n bytes
// behind, so that the bytes a block overwrites at the front (and the
// slop past its end) are all older than the window, and those a match
// reads from the end are never among them.
func (z *Reader) room(n int) {
	if cap(z.out)-len(z.out) >= n {
		return
	}
	if limit := z.d.window + 2*n; cap(z.out) < limit {
		// Four times the bytes at each step, and the whole limit once
		// that is within a factor of 8: few buffers left to the collector
		// on the way up.
		c := max(4*cap(z.out), len(z.out)+n, 64<<10)
		if c >= limit/8 {
			c = limit
		}
		b := make([]byte, len(z.out), c)
		copy(b, z.out)
		z.out = b
		return
	}
	z.d.earlier = z.out
	z.out = z.out[:0]
	z.rd = 0
}
