package lzma2

import "io"

// This file holds the .xz filters that may come before LZMA2 in a block:
// delta and x86 BCJ, decoded as liblzma decodes them.

// deltaReader undoes the delta filter: each byte was stored as its
// difference from the byte dist before it.
type deltaReader struct {
	r    io.Reader
	dist int
	pos  uint8
	hist [256]byte
}

func (d *deltaReader) Read(p []byte) (int, error) {
	n, err := d.r.Read(p)
	for i := range p[:n] {
		p[i] += d.hist[(d.dist+int(d.pos))&0xff]
		d.hist[d.pos] = p[i]
		d.pos--
	}
	return n, err
}

// x86Reader undoes the x86 BCJ filter: the relative addresses of CALL
// (E8) and JMP (E9) instructions were made absolute.
type x86Reader struct {
	r        io.Reader
	buf      []byte
	n        int    // bytes in buf
	done     int    // buf[:done] is decoded
	off      int    // buf[off:done] is not yet read
	now      uint32 // the file position of buf[0]
	prevMask uint32
	prevPos  uint32
	eof      error // the error that ended r, io.EOF at its end
}

func newX86Reader(r io.Reader, start uint32) *x86Reader {
	return &x86Reader{r: r, buf: make([]byte, 64<<10), now: start, prevPos: start - 5}
}

func (x *x86Reader) Read(p []byte) (int, error) {
	for {
		if x.off < x.done {
			n := copy(p, x.buf[x.off:x.done])
			x.off += n
			return n, nil
		}
		if x.eof != nil && x.done == x.n {
			return 0, x.eof
		}
		// Keep the undecoded tail, read more, decode what can be.
		copy(x.buf, x.buf[x.done:x.n])
		x.n -= x.done
		x.now += uint32(x.done)
		x.done, x.off = 0, 0
		for x.eof == nil && x.n < len(x.buf) {
			m, err := x.r.Read(x.buf[x.n:])
			x.n += m
			if err != nil {
				x.eof = err
			}
			if m > 0 {
				break
			}
		}
		x.done = x.code(x.buf[:x.n])
		if x.eof != nil {
			// At the end, the last bytes pass as they are.
			x.done = x.n
		}
	}
}

func x86MSByte(b byte) bool { return b == 0 || b == 0xff }

var (
	x86AllowedStatus = [8]bool{true, true, true, false, true, false, false, false}
	x86BitNumber     = [8]uint32{0, 1, 2, 2, 3, 3, 3, 3}
)

// code decodes the instructions of buf, which starts at file position
// x.now, and returns how many bytes are decoded (the rest may hold an
// instruction cut short).
func (x *x86Reader) code(buf []byte) int {
	if len(buf) < 5 {
		return 0
	}
	now := x.now
	prevMask, prevPos := x.prevMask, x.prevPos
	if now-prevPos > 5 {
		prevPos = now - 5
	}
	limit := len(buf) - 5
	i := 0
	for i <= limit {
		b := buf[i]
		if b != 0xe8 && b != 0xe9 {
			i++
			continue
		}
		offset := now + uint32(i) - prevPos
		prevPos = now + uint32(i)
		if offset > 5 {
			prevMask = 0
		} else {
			for range offset {
				prevMask &= 0x77
				prevMask <<= 1
			}
		}
		b = buf[i+4]
		if x86MSByte(b) && x86AllowedStatus[(prevMask>>1)&7] && prevMask>>1 < 0x10 {
			src := uint32(b)<<24 | uint32(buf[i+3])<<16 | uint32(buf[i+2])<<8 | uint32(buf[i+1])
			var dest uint32
			for {
				dest = src - (now + uint32(i) + 5)
				if prevMask == 0 {
					break
				}
				j := x86BitNumber[prevMask>>1]
				b = byte(dest >> (24 - j*8))
				if !x86MSByte(b) {
					break
				}
				src = dest ^ (1<<(32-j*8) - 1)
			}
			buf[i+4] = ^byte((dest>>24)&1 - 1)
			buf[i+3] = byte(dest >> 16)
			buf[i+2] = byte(dest >> 8)
			buf[i+1] = byte(dest)
			i += 5
			prevMask = 0
		} else {
			i++
			prevMask |= 1
			if x86MSByte(b) {
				prevMask |= 0x10
			}
		}
	}
	x.prevMask, x.prevPos = prevMask, prevPos
	return i
}
