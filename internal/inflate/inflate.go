// Package inflate owns the decoding of raw DEFLATE streams (RFC 1951), the
// compression of most zip entries and of gzip members (.tar.gz; a member's
// trailer is what [Reader.Unread] gives back), in about two thirds of the
// time of klauspost/compress's decoder and half of the standard library's
// (`go test -bench Decode ./internal/inflate`), which refill their bit
// buffer a byte at a time and walk a table per symbol. Here the bit buffer
// is refilled eight bytes at a time, a length's or a distance's base and
// extra bits come with its symbol from one table entry, two literals are
// decoded per refill, and matches are copied a word at a time. It accepts
// exactly the streams compress/flate accepts (the tests and a fuzz target
// hold them to each other) and keeps a bounded amount of memory: the 32
// KiB window, an output buffer and an input buffer, reused from one Reader
// to the next.
package inflate

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"sync"
)

// Buffer sizes: the window DEFLATE may reach back into, the output
// decoded between two slides of the window, and the input read at once.
const (
	windowSize = 32 << 10
	chunkSize  = 256 << 10
	inputSize  = 64 << 10
	// maxMatch is the longest match; slack lets a match be copied a word
	// at a time past its end.
	maxMatch = 258
	slack    = 8
	// keepBack is the input kept before the next unread byte when the
	// input buffer is refilled: the bit buffer may hold up to 7 bytes
	// that a stored block gives back.
	keepBack = 8
)

// A CorruptError is a stream that is not valid DEFLATE: the offset of the
// compressed byte where decoding stopped, and what was wrong.
type corruptError struct {
	Offset int64
	What   string
}

func (e *corruptError) Error() string {
	return fmt.Sprintf("deflate: corrupt input at byte %d: %s", e.Offset, e.What)
}

// Reader decodes a raw DEFLATE stream read from an io.Reader.
type Reader struct {
	r        io.Reader
	in       []byte // in[:inLen] holds input; in[ip:inLen] is unread
	ip       int
	inLen    int
	inBase   int64 // the stream offset of in[0]
	eof      bool  // r has returned io.EOF
	pad      uint  // zero bytes added to the bit buffer past the input's end
	bits     uint64
	nbits    uint
	out      []byte // the window and the output decoded after it
	pos      int    // where the next byte is decoded into out
	done     int    // out[done:pos] is not yet read
	state    state
	final    bool  // the current block is the last
	stored   int   // bytes left of a stored block
	lit, dst table // a dynamic block's codes
	// litCode and dstCode are the entries of the current Huffman-coded
	// block's codes: lit's and dst's, or the shared fixed codes'.
	litCode, dstCode []uint32
	codes            table // the code length code of a dynamic block's header
	err              error
}

type state uint8

const (
	stateHeader  state = iota // at a block's header
	stateStored               // inside a stored block
	stateHuffman              // inside a Huffman-coded block
	stateEnd                  // after the last block
)

// readers keeps the buffers of closed Readers (about 360 KiB each) for
// the next: a pack of many small deflated files would otherwise allocate
// them once per file.
var readers sync.Pool

// NewReader returns a Reader of the DEFLATE stream r. It may read r past
// the stream's end.
func NewReader(r io.Reader) *Reader {
	if z, ok := readers.Get().(*Reader); ok {
		// Bytes left in out by an earlier stream are never read: a
		// distance reaches back at most to the stream's first byte.
		*z = Reader{r: r, in: z.in, out: z.out, lit: z.lit, dst: z.dst, codes: z.codes}
		return z
	}
	return &Reader{
		r:     r,
		in:    make([]byte, inputSize),
		out:   make([]byte, windowSize+chunkSize+maxMatch+slack),
		lit:   table{entries: make([]uint32, litTableSize)},
		dst:   table{entries: make([]uint32, distTableSize)},
		codes: table{entries: make([]uint32, 1<<7)},
	}
}

// Close ends the Reader's use: its buffers go to the next Reader, and
// every later Read fails.
func (z *Reader) Close() error {
	if z.r == nil {
		return nil
	}
	next := &Reader{in: z.in, out: z.out, lit: z.lit, dst: z.dst, codes: z.codes}
	*z = Reader{err: errClosed}
	readers.Put(next)
	return nil
}

var errClosed = errors.New("deflate: read after Close")

// Read reads decoded bytes.
func (z *Reader) Read(p []byte) (int, error) {
	for {
		if z.done < z.pos {
			n := copy(p, z.out[z.done:z.pos])
			z.done += n
			return n, nil
		}
		if z.err != nil {
			return 0, z.err
		}
		if z.state == stateEnd {
			z.err = io.EOF
			return 0, io.EOF
		}
		if len(p) == 0 {
			return 0, nil
		}
		z.slide()
		if err := z.decode(); err != nil {
			z.err = err
		}
	}
}

// Unread returns the input read past the stream's end once Read has
// returned io.EOF, nil before: the bytes that follow the stream in r (a
// gzip member's trailer), to be read before r's next ones. The slice is
// the Reader's and valid until Close.
func (z *Reader) Unread() []byte {
	if z.state != stateEnd || z.r == nil {
		return nil
	}
	// The bit buffer's whole bytes, less the zeros added past the input's
	// end, were read but not used; the bits of a byte begun are its
	// padding to the byte boundary, which ends the stream.
	back := max(int(z.nbits/8)-int(z.pad), 0)
	return z.in[z.ip-back : z.inLen]
}

// slide moves the window to the front of out once the output buffer is
// nearly full and all of it has been read.
func (z *Reader) slide() {
	if z.pos < windowSize+chunkSize {
		return
	}
	copy(z.out, z.out[z.pos-windowSize:z.pos])
	z.pos, z.done = windowSize, windowSize
}

// limit is the position in out past which no symbol is decoded: a match
// starting before it fits with its slack.
func (z *Reader) limit() int { return len(z.out) - maxMatch - slack }

// decode decodes until the output buffer is full or the stream ends.
func (z *Reader) decode() error {
	for z.pos < z.limit() {
		switch z.state {
		case stateHeader:
			if z.final {
				z.state = stateEnd
				return nil
			}
			if err := z.header(); err != nil {
				return err
			}
		case stateStored:
			if err := z.copyStored(); err != nil {
				return err
			}
		case stateHuffman:
			if err := z.huffman(); err != nil {
				return err
			}
		case stateEnd:
			return nil
		}
	}
	return nil
}

// corrupt is a CorruptError at the current input position.
func (z *Reader) corrupt(what string) error {
	return &corruptError{Offset: z.inBase + int64(z.ip) - int64(z.nbits/8) + int64(z.pad), What: what}
}

// fill reads more input, keeping keepBack bytes before ip. It returns
// false at the input's end, and io.ErrNoProgress from a reader that
// returns nothing, without an error, 100 times in a row.
func (z *Reader) fill() (bool, error) {
	if z.eof {
		return false, nil
	}
	if z.inLen == len(z.in) {
		keep := min(z.ip, keepBack)
		n := copy(z.in, z.in[z.ip-keep:z.inLen])
		z.inBase += int64(z.ip - keep)
		z.ip, z.inLen = keep, n
	}
	for range 100 {
		n, err := z.r.Read(z.in[z.inLen:])
		z.inLen += n
		switch {
		case errors.Is(err, io.EOF):
			z.eof = true
			return n > 0, nil
		case err != nil:
			return n > 0, err
		case n > 0:
			return true, nil
		}
	}
	return false, io.ErrNoProgress
}

// refillSlow puts as many bits as it can (up to 56 and more) into the bit
// buffer a byte at a time, reading input as needed; past the input's end
// it adds zero bytes, counted in pad, which a symbol must not use.
func (z *Reader) refillSlow() error {
	for z.nbits <= 56 {
		if z.ip == z.inLen {
			more, err := z.fill()
			if err != nil {
				return err
			}
			if !more {
				z.pad++
				z.nbits += 8
			}
			continue
		}
		z.bits |= uint64(z.in[z.ip]) << z.nbits
		z.ip++
		z.nbits += 8
	}
	return nil
}

// overrun reports whether a symbol used bits past the input's end.
func (z *Reader) overrun() bool { return z.nbits < 8*z.pad }

// need makes sure the bit buffer holds at least 32 bits.
func (z *Reader) need() error {
	if z.nbits >= 32 {
		return nil
	}
	if z.ip+8 <= z.inLen {
		z.bits, z.nbits, z.ip = refill(z.in, z.ip, z.bits, z.nbits)
		return nil
	}
	return z.refillSlow()
}

// take removes n bits from the bit buffer and returns them.
func (z *Reader) take(n uint) uint32 {
	v := uint32(z.bits & (1<<n - 1))
	z.bits >>= n
	z.nbits -= n
	return v
}

// header reads a block's header: stored, fixed or dynamic codes.
func (z *Reader) header() error {
	if err := z.need(); err != nil {
		return err
	}
	z.final = z.take(1) == 1
	switch z.take(2) {
	case 0:
		return z.storedHeader()
	case 1:
		f := fixedTables()
		z.litCode, z.dstCode = f.lit.entries, f.dst.entries
	case 2:
		if err := z.dynamic(); err != nil {
			return err
		}
		z.litCode, z.dstCode = z.lit.entries, z.dst.entries
	default:
		return z.corrupt("block type 3 is reserved")
	}
	if z.overrun() {
		return io.ErrUnexpectedEOF
	}
	z.state = stateHuffman
	return nil
}

// storedHeader gives back the whole bytes of the bit buffer and reads a
// stored block's length and its complement.
func (z *Reader) storedHeader() error {
	if z.overrun() {
		return io.ErrUnexpectedEOF
	}
	z.take(z.nbits & 7)
	back := int(z.nbits/8) - int(z.pad)
	z.ip -= back
	z.bits, z.nbits, z.pad = 0, 0, 0
	for z.inLen-z.ip < 4 {
		more, err := z.fill()
		if err != nil {
			return err
		}
		if !more {
			return io.ErrUnexpectedEOF
		}
	}
	n := binary.LittleEndian.Uint16(z.in[z.ip:])
	if ^n != binary.LittleEndian.Uint16(z.in[z.ip+2:]) {
		return z.corrupt("a stored block's length and its complement disagree")
	}
	z.ip += 4
	z.stored = int(n)
	z.state = stateStored
	return nil
}

// copyStored copies a stored block's bytes until the block or the output
// buffer ends.
func (z *Reader) copyStored() error {
	for z.stored > 0 && z.pos < z.limit() {
		if z.ip == z.inLen {
			more, err := z.fill()
			if err != nil {
				return err
			}
			if !more {
				return io.ErrUnexpectedEOF
			}
		}
		n := copy(z.out[z.pos:min(z.pos+z.stored, z.limit())], z.in[z.ip:z.inLen])
		z.ip += n
		z.pos += n
		z.stored -= n
	}
	if z.stored == 0 {
		z.state = stateHeader
	}
	return nil
}

// codeOrder is the order of the code length code's lengths.
var codeOrder = [19]uint8{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}

// dynamic reads a block's code lengths and builds its tables.
func (z *Reader) dynamic() error {
	if err := z.need(); err != nil {
		return err
	}
	nlit := int(z.take(5)) + 257
	ndist := int(z.take(5)) + 1
	ncode := int(z.take(4)) + 4
	if nlit > 286 {
		return z.corrupt(fmt.Sprintf("%d literal/length codes, over 286", nlit))
	}
	if ndist > 30 {
		return z.corrupt(fmt.Sprintf("%d distance codes, over 30", ndist))
	}
	var codeLens [19]uint8
	for i := range ncode {
		if err := z.need(); err != nil {
			return err
		}
		codeLens[codeOrder[i]] = uint8(z.take(3))
	}
	codes := &z.codes
	if !codes.build(codeLens[:], 7, kindCodeLen) {
		return z.corrupt("the code length code is not a valid prefix code")
	}
	var lens [286 + 30]uint8
	for i := 0; i < nlit+ndist; {
		if err := z.need(); err != nil {
			return err
		}
		e := codes.entries[z.bits&(1<<7-1)]
		n := entryLen(e)
		if n == 0 {
			return z.corrupt("an unused code length code")
		}
		z.take(n)
		sym := entryValue(e)
		if sym < 16 {
			lens[i] = uint8(sym)
			i++
			continue
		}
		var rep int
		var v uint8
		switch sym {
		case 16:
			if i == 0 {
				return z.corrupt("a repeat of the previous length with none before it")
			}
			rep, v = 3+int(z.take(2)), lens[i-1]
		case 17:
			rep = 3 + int(z.take(3))
		default:
			rep = 11 + int(z.take(7))
		}
		if i+rep > nlit+ndist {
			return z.corrupt("code lengths repeated past the last code")
		}
		for range rep {
			lens[i] = v
			i++
		}
	}
	if z.overrun() {
		return io.ErrUnexpectedEOF
	}
	if lens[256] == 0 {
		return z.corrupt("no code for the end of the block")
	}
	if !z.lit.build(lens[:nlit], litBits, kindLitLen) {
		return z.corrupt("the literal/length code is not a valid prefix code")
	}
	if !z.dst.build(lens[nlit:nlit+ndist], distBits, kindDist) {
		return z.corrupt("the distance code is not a valid prefix code")
	}
	return nil
}

// maxMatchBits is the most bits a match takes: a 15-bit length code, 5
// extra bits, a 15-bit distance code, 13 extra bits.
const maxMatchBits = 15 + 5 + 15 + 13

// The tables' first-level index bits.
const (
	litBits       = 10
	distBits      = 8
	litTableSize  = 1 << litBits
	distTableSize = 1 << distBits
)

// A table entry: bits 0-4 the code's length (0: no code), bits 5-7 its
// kind, bits 8-11 the extra bits of a length or distance (or a link's
// second-level index bits), bits 16-31 its value (a literal, a length's
// or distance's base, a code length symbol, a link's offset).
const (
	kindLiteral = (iota + 1) << 5 // no kind is 0: an entry of 0 is no code
	kindLength
	kindEnd
	kindLink
	kindBad // a symbol DEFLATE does not use: lengths 286-287, distances 30-31
	kindDistance
	kindMask = 7 << 5
)

func entry(n, kind, extra, value uint32) uint32 { return n | kind | extra<<8 | value<<16 }
func entryLen(e uint32) uint                    { return uint(e & 31) }
func entryValue(e uint32) uint32                { return e >> 16 }
func entryExtra(e uint32) uint                  { return uint(e>>8) & 15 }

// Bases and extra bits of the length symbols 257-285 and of the distance
// symbols 0-29.
var (
	lengthBase  = [29]uint32{3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258}
	lengthExtra = [29]uint32{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0}
	distBase    = [30]uint32{1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577}
	distExtra   = [30]uint32{0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13}
)

// Which alphabet a table decodes.
const (
	kindLitLen = iota
	kindDist
	kindCodeLen
)

// A table decodes one prefix code: a first level indexed by the next
// rootBits bits, whose links lead to second levels for longer codes.
type table struct {
	entries []uint32
}

// symbolEntry is the entry of symbol sym of alphabet with a code of n
// bits.
func symbolEntry(alphabet int, sym, n uint32) uint32 {
	switch alphabet {
	case kindLitLen:
		switch {
		case sym < 256:
			return entry(n, kindLiteral, 0, sym)
		case sym == 256:
			return entry(n, kindEnd, 0, 0)
		case sym <= 285:
			return entry(n, kindLength, lengthExtra[sym-257], lengthBase[sym-257])
		}
		return entry(n, kindBad, 0, 0)
	case kindDist:
		if sym < 30 {
			return entry(n, kindDistance, distExtra[sym], distBase[sym])
		}
		return entry(n, kindBad, 0, 0)
	}
	return entry(n, kindLiteral, 0, sym)
}

// countLengths returns how many codes in lens have each length (none of
// length 0) and the longest. Every fourth symbol is counted apart: with
// one count, the increments of neighbours of one length would wait on each
// other.
func countLengths(lens []uint8) (count [16]uint32, maxLen uint) {
	var part [4][16]uint32
	i := 0
	for ; i+3 < len(lens); i += 4 {
		part[0][lens[i]]++
		part[1][lens[i+1]]++
		part[2][lens[i+2]]++
		part[3][lens[i+3]]++
	}
	for ; i < len(lens); i++ {
		part[0][lens[i]]++
	}
	for n := 1; n < len(count); n++ {
		if count[n] = part[0][n] + part[1][n] + part[2][n] + part[3][n]; count[n] > 0 {
			maxLen = uint(n)
		}
	}
	return count, maxLen
}

// build makes t the table of the code with the lengths lens (0: no code)
// over alphabet, rootBits bits at the first level. It reports whether
// the code is one compress/flate accepts: complete, a single code of one
// bit, or (used only to fail) no code at all.
func (t *table) build(lens []uint8, rootBits uint, alphabet int) bool {
	count, maxLen := countLengths(lens)
	root := 1 << rootBits
	t.entries = t.entries[:root]
	if maxLen == 0 {
		clear(t.entries)
		return true
	}
	// The first code of each length, as RFC 1951 3.2.2 assigns them.
	code, codes := uint32(0), uint32(0)
	var next [16]uint32
	for n := uint(1); n <= maxLen; n++ {
		code = (code + count[n-1]) << 1
		next[n] = code
		codes += count[n]
	}
	// Kraft: the codes of length n use count[n] of the 2^n sequences.
	used := uint64(0)
	for n := uint(1); n <= maxLen; n++ {
		used += uint64(count[n]) << (maxLen - n)
	}
	if used != 1<<maxLen {
		if !(codes == 1 && maxLen == 1) {
			return false
		}
		// The one code fills half the table; the rest is no code. A
		// complete code fills every entry, so only this one is cleared.
		clear(t.entries)
	}
	if maxLen > rootBits {
		t.link(lens, next, rootBits)
	}
	// With no code longer than the first level, its first 2^maxLen
	// entries are filled, then doubled by copies up to its size: every
	// code repeats every 2^maxLen entries.
	size := uint32(root)
	if maxLen < rootBits {
		size = 1 << maxLen
	}
	for sym, n := range lens {
		if n == 0 {
			continue
		}
		r := reverse(next[n], uint(n))
		next[n]++
		if uint(n) <= rootBits {
			e := symbolEntry(alphabet, uint32(sym), uint32(n))
			for i := r; i < size; i += 1 << n {
				t.entries[i] = e
			}
			continue
		}
		link := t.entries[r&uint32(root-1)]
		sub := t.entries[entryValue(link):][:1<<entryExtra(link)]
		rest := uint(n) - rootBits
		e := symbolEntry(alphabet, uint32(sym), uint32(rest))
		for i := r >> rootBits; i < uint32(len(sub)); i += 1 << rest {
			sub[i] = e
		}
	}
	for ; size < uint32(root); size *= 2 {
		copy(t.entries[size:2*size], t.entries[:size])
	}
	return true
}

// link appends to t the second levels of the codes in lens longer than
// rootBits bits, each as wide as the longest code that shares its
// first-level prefix needs, and points those prefixes' entries at them;
// next holds the first code of each length.
func (t *table) link(lens []uint8, next [16]uint32, rootBits uint) {
	root := uint32(1) << rootBits
	var subBitsOf [litTableSize]uint8
	subBits := subBitsOf[:root]
	for _, n := range lens {
		if uint(n) <= rootBits {
			if n > 0 {
				next[n]++
			}
			continue
		}
		r := reverse(next[n], uint(n))
		next[n]++
		p := r & (root - 1)
		subBits[p] = max(subBits[p], n-uint8(rootBits))
	}
	for p, b := range subBits {
		if b > 0 {
			t.entries[p] = entry(uint32(rootBits), kindLink, uint32(b), uint32(len(t.entries)))
			t.entries = append(t.entries, make([]uint32, 1<<b)...)
		}
	}
}

// reverse reverses the n low bits of v: DEFLATE packs a code's bits most
// significant first into a stream read least significant first.
func reverse(v uint32, n uint) uint32 { return bits.Reverse32(v) >> (32 - n) }

// fixedTables returns the tables of the fixed codes (RFC 1951 3.2.6),
// built once and shared: every Reader only reads them. A stream Go's and
// klauspost's compressors end has its last, empty block in them, after
// the dynamic block that holds a small file.
var fixedTables = sync.OnceValue(func() *struct{ lit, dst table } {
	f := new(struct{ lit, dst table })
	var lens [288]uint8
	for i := range lens {
		switch {
		case i < 144:
			lens[i] = 8
		case i < 256:
			lens[i] = 9
		case i < 280:
			lens[i] = 7
		default:
			lens[i] = 8
		}
	}
	f.lit.entries = make([]uint32, litTableSize)
	f.lit.build(lens[:], litBits, kindLitLen)
	for i := range 32 {
		lens[i] = 5
	}
	f.dst.entries = make([]uint32, distTableSize)
	f.dst.build(lens[:32], distBits, kindDist)
	return f
})

// huffman decodes a Huffman-coded block's symbols until the block ends or
// the output buffer is full. The state lives in locals for the loop; each
// symbol starts with at least 56 bits in the buffer, enough for a length
// and a distance with their extra bits. A literal is very likely followed
// by another: after one the buffer holds at least 46 more bits (a
// first-level code has at most 10), enough for a second literal; a match
// after it may need maxMatchBits, else the loop refills first. Past the
// input's end the bit buffer holds zero bytes, which a symbol must not
// reach into: slow is set to check. The helpers called for every symbol
// (refill, literal, follow, withExtra, copyMatch) are small enough for the
// compiler to inline, so the state stays in registers.
func (z *Reader) huffman() error {
	bits, nbits := z.bits, z.nbits
	in, ip, inLen := z.in, z.ip, z.inLen
	out, pos, lim := z.out, z.pos, z.limit()
	lit, dst := z.litCode, z.dstCode
	// The first levels as arrays: a masked index needs no bounds check.
	litRoot := (*[litTableSize]uint32)(lit)
	dstRoot := (*[distTableSize]uint32)(dst)
	var err error
symbols:
	for pos < lim {
		slow := false
		if ip+8 <= inLen {
			bits, nbits, ip = refill(in, ip, bits, nbits)
		} else {
			z.bits, z.nbits, z.ip = bits, nbits, ip
			if err = z.refillSlow(); err != nil {
				break
			}
			bits, nbits, ip, inLen = z.bits, z.nbits, z.ip, z.inLen
			slow = z.pad > 0
		}
		e := litRoot[bits&(litTableSize-1)]
		if e&kindMask == kindLiteral && !slow {
			bits, nbits, pos = literal(out, pos, e, bits, nbits)
			e = litRoot[bits&(litTableSize-1)]
			if e&kindMask == kindLiteral && pos < lim {
				bits, nbits, pos = literal(out, pos, e, bits, nbits)
				continue
			}
			if nbits < maxMatchBits || pos >= lim {
				continue
			}
		}
		e, bits, nbits = follow(lit, e, bits, nbits, litBits)
		n := entryLen(e)
		bits >>= n
		nbits -= n
		switch e & kindMask {
		case kindLiteral:
			out[pos] = byte(entryValue(e))
			pos++
		case kindLength:
			var length, dist int
			length, bits, nbits = withExtra(e, bits, nbits)
			e, bits, nbits = follow(dst, dstRoot[bits&(distTableSize-1)], bits, nbits, distBits)
			if n = entryLen(e); n == 0 || e&kindMask != kindDistance {
				err = z.corruptAt(ip, nbits, "a distance code the block does not define")
				break symbols
			}
			if dist, bits, nbits = withExtra(e, bits>>n, nbits-n); dist > pos {
				err = z.corruptAt(ip, nbits, fmt.Sprintf("a distance of %d bytes, before the start of the stream", dist))
				break symbols
			}
			copyMatch(out, pos-dist, pos, pos+length)
			pos += length
		case kindEnd:
			z.state = stateHeader
			break symbols
		case 0: // an entry of 0 is no code, and used no bits
			err = z.corruptAt(ip, nbits, "a literal/length code the block does not define")
			break symbols
		default:
			err = z.corruptAt(ip, nbits, "literal/length symbol 286 or 287, which DEFLATE does not use")
			break symbols
		}
		if slow && nbits < 8*z.pad {
			err = io.ErrUnexpectedEOF
			break
		}
	}
	if err == nil && nbits < 8*z.pad {
		err = io.ErrUnexpectedEOF // the block's end used bits past the input's
	}
	z.bits, z.nbits, z.ip, z.pos = bits, nbits, ip, pos
	return err
}

// refill puts the eight bytes of in at ip into the bit buffer (bits,
// nbits), which then holds 56 bits or more, and returns it with the
// position of the first byte it did not use up.
func refill(in []byte, ip int, bits uint64, nbits uint) (uint64, uint, int) {
	bits |= binary.LittleEndian.Uint64(in[ip:]) << nbits
	return bits, nbits | 56, ip + int(63-nbits)>>3
}

// literal writes the literal of entry e to out[pos] and returns the bit
// buffer past its code and the position past the literal.
func literal(out []byte, pos int, e uint32, bits uint64, nbits uint) (uint64, uint, int) {
	out[pos] = byte(entryValue(e))
	return bits >> entryLen(e), nbits - entryLen(e), pos + 1
}

// follow returns the entry a link entry e of a first level rootBits wide
// leads to, chosen by the bits after the first level's, and the bit
// buffer past them; any other entry it returns as it is.
func follow(entries []uint32, e uint32, bits uint64, nbits, rootBits uint) (uint32, uint64, uint) {
	if e&kindMask != kindLink {
		return e, bits, nbits
	}
	bits >>= rootBits
	return entries[entryValue(e)+uint32(bits)&(1<<entryExtra(e)-1)], bits, nbits - rootBits
}

// withExtra returns the length or distance of entry e, its base plus its
// extra bits, and the bit buffer past them.
func withExtra(e uint32, bits uint64, nbits uint) (int, uint64, uint) {
	x := entryExtra(e)
	return int(entryValue(e) + uint32(bits)&(1<<x-1)), bits >> x, nbits - x
}

// copyMatch copies a match, the end-to bytes at out[from:], to
// out[to:end]; from is before to, and the match may overlap the bytes it
// writes. A long match that does not overlap goes through copy; a match
// at least a word back is copied a word at a time (each word's source
// ends before its destination begins, and the last word may write up to
// 7 bytes of slack past end, which later output replaces); a nearer one a
// byte at a time, so that it repeats the bytes it has just written. Its
// inlining cost is near the compiler's budget: check that huffman still
// inlines it (go build -gcflags=-m) after changing it.
func copyMatch(out []byte, from, to, end int) {
	switch {
	case to-from >= end-to && end-to > 32:
		copy(out[to:end], out[from:])
	case to-from >= 8:
		for ; to < end; to, from = to+8, from+8 {
			*(*[8]byte)(out[to : to+8]) = [8]byte(out[from : from+8])
		}
	default:
		for ; to < end; to, from = to+1, from+1 {
			out[to] = out[from]
		}
	}
}

// corruptAt is corrupt with the loop's input position and bit count.
func (z *Reader) corruptAt(ip int, nbits uint, what string) error {
	z.ip, z.nbits = ip, nbits
	return z.corrupt(what)
}
