package lzma2

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"hash/crc64"
	"io"
)

// This file reads the .xz container (the .xz file format 1.2.1) around
// LZMA2 streams: streams of blocks, each block's header, padding and check
// (CRC32, CRC64 or SHA-256) verified, each stream's index checked against
// the blocks it read and its footer against its header, and stream padding
// between and after streams. Its blocks may use LZMA2, the filter every
// xz preset writes, after delta or x86 BCJ filters; any other filter is a
// *FilterError naming it.

// ErrDictTooLarge is returned, wrapped, when an .xz block asks for a
// dictionary over the limit given to NewXZReader, before any memory is
// allocated for it.
var ErrDictTooLarge = errors.New("xz: dictionary over the limit")

// FilterError is returned when an .xz block uses a filter this reader does
// not run (a BCJ filter for another processor than x86): a method, not
// damage.
type FilterError struct {
	Name   string // the filter's name, or its id in hex
	Offset int64  // where the block header starts in the file
}

func (e *FilterError) Error() string {
	return fmt.Sprintf("xz: block at byte %d uses the %s filter; only LZMA2, delta and x86 BCJ are read", e.Offset, e.Name)
}

// xz format constants.
var (
	xzHeaderMagic = []byte{0xfd, '7', 'z', 'X', 'Z', 0x00}
	xzFooterMagic = []byte{'Y', 'Z'}
	crc64Table    = crc64.MakeTable(crc64.ECMA)
)

// xzFilterNames names the filters of the format, for a refusal.
var xzFilterNames = map[uint64]string{
	0x03: "delta", 0x04: "x86 BCJ", 0x05: "PowerPC BCJ", 0x06: "IA-64 BCJ", 0x07: "ARM BCJ",
	0x08: "ARM-Thumb BCJ", 0x09: "SPARC BCJ", 0x0a: "ARM64 BCJ", 0x0b: "RISC-V BCJ",
}

// XZReader decodes an .xz file.
type XZReader struct {
	r       *bufio.Reader
	read    int64 // bytes read from r
	maxDict int

	flags   [2]byte   // the current stream's flags
	check   hash.Hash // of the current block's data; nil for check type none
	sumSize int       // bytes of the check
	records []xzRecord

	block      io.Reader // the LZMA2 decoder, behind the block's other filters
	blockStart int64     // offset of the current block's header
	hdrSize    int64     // its header's size
	packed     uint64    // declared compressed size, or UnknownSize
	unpacked   uint64    // declared uncompressed size, or UnknownSize
	out        uint64    // bytes the current block decoded
	err        error
}

// xzRecord is one block as the index lists it.
type xzRecord struct{ unpadded, unpacked uint64 }

// NewXZReader returns a reader of the .xz file in r, whose blocks may ask
// for a dictionary of at most maxDict bytes; it reads and checks the first
// stream header at once.
func NewXZReader(r io.Reader, maxDict int) (*XZReader, error) {
	z := &XZReader{r: bufio.NewReaderSize(r, 64<<10), maxDict: maxDict}
	var h [12]byte
	if err := z.full(h[:]); err != nil {
		return nil, fmt.Errorf("xz: stream header: %w", err)
	}
	if err := z.streamHeader(h); err != nil {
		return nil, err
	}
	return z, nil
}

// Read reads decoded bytes into p.
func (z *XZReader) Read(p []byte) (int, error) {
	for {
		if z.err != nil {
			return 0, z.err
		}
		if z.block == nil {
			z.err = z.next()
			continue
		}
		n, err := z.block.Read(p)
		z.out += uint64(n)
		if z.check != nil {
			z.check.Write(p[:n])
		}
		if err == io.EOF {
			z.block = nil
			err = z.endBlock()
		}
		if err != nil {
			z.err = fmt.Errorf("xz: block at byte %d: %w", z.blockStart, err)
		}
		if n > 0 {
			return n, nil
		}
	}
}

// xzCounted reads the file, counting the bytes read in z.read: the block
// and index sizes are checked by it.
type xzCounted struct{ z *XZReader }

func (c xzCounted) Read(p []byte) (int, error) {
	n, err := c.z.r.Read(p)
	c.z.read += int64(n)
	return n, err
}

// full reads len(p) bytes of the file; an end before them is
// io.ErrUnexpectedEOF.
func (z *XZReader) full(p []byte) error {
	_, err := io.ReadFull(xzCounted{z}, p)
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return err
}

func xzCorrupt(format string, args ...any) error {
	return fmt.Errorf("%w: xz: %s", errData, fmt.Sprintf(format, args...))
}

// streamHeader checks a stream header and starts the stream.
func (z *XZReader) streamHeader(h [12]byte) error {
	if !bytes.Equal(h[:6], xzHeaderMagic) {
		return xzCorrupt("no stream header magic at byte %d", z.read-12)
	}
	if crc32.ChecksumIEEE(h[6:8]) != binary.LittleEndian.Uint32(h[8:]) {
		return xzCorrupt("stream header CRC32 mismatch at byte %d", z.read-12)
	}
	if h[6] != 0 || h[7]&0xf0 != 0 {
		return xzCorrupt("stream flags %#02x %#02x are not supported", h[6], h[7])
	}
	z.flags = [2]byte{h[6], h[7]}
	z.records = z.records[:0]
	switch h[7] {
	case 0x00:
		z.check, z.sumSize = nil, 0
	case 0x01:
		z.check, z.sumSize = crc32.NewIEEE(), 4
	case 0x04:
		z.check, z.sumSize = crc64.New(crc64Table), 8
	case 0x0a:
		z.check, z.sumSize = sha256.New(), 32
	default:
		return xzCorrupt("check type %#x is not supported: use CRC32, CRC64 or SHA-256", h[7])
	}
	return nil
}

// next reads a block header, or the index, footer and stream padding that
// end a stream (io.EOF at the end of the file) and the next stream's
// header.
func (z *XZReader) next() error {
	start := z.read
	b, err := z.r.ReadByte()
	if err != nil {
		return fmt.Errorf("xz: at byte %d, where a block or the index starts: %w", start, unexpected(err))
	}
	z.read++
	if b == 0 {
		return z.endStream(start)
	}
	return z.blockHeader(start, int(b)*4+4)
}

func unexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// blockHeader reads the rest of a block header of size bytes that began
// at start, and starts decoding its block.
func (z *XZReader) blockHeader(start int64, size int) error {
	h := make([]byte, size)
	h[0] = byte(size/4 - 1)
	if err := z.full(h[1:]); err != nil {
		return fmt.Errorf("xz: block header at byte %d: %w", start, err)
	}
	if crc32.ChecksumIEEE(h[:size-4]) != binary.LittleEndian.Uint32(h[size-4:]) {
		return xzCorrupt("block header CRC32 mismatch at byte %d", start)
	}
	flags := h[1]
	if flags&0x3c != 0 {
		return xzCorrupt("block header at byte %d: reserved flags %#02x", start, flags)
	}
	f := &blockFields{rest: h[2 : size-4], start: start}
	if err := z.blockSizes(f, flags); err != nil {
		return err
	}
	dict, wraps, err := z.blockFilters(f, int(flags&3)+1)
	if err != nil {
		return err
	}
	for _, c := range f.rest {
		if c != 0 {
			return xzCorrupt("block header at byte %d: padding is not zeros", start)
		}
	}
	z.blockStart, z.hdrSize, z.out = start, int64(size), 0
	if z.check != nil {
		z.check.Reset()
	}
	z.block = NewReader(xzCounted{z}, dict, z.unpacked)
	for i := len(wraps) - 1; i >= 0; i-- {
		z.block = wraps[i](z.block)
	}
	return nil
}

// blockFields reads the fields of the block header that began at start:
// rest holds the bytes not yet read, before the CRC32.
type blockFields struct {
	rest  []byte
	start int64
}

// vli reads a variable-length integer; what names it in an error.
func (f *blockFields) vli(what string) (uint64, error) {
	v, n := xzVLI(f.rest)
	if n <= 0 {
		return 0, xzCorrupt("block header at byte %d: bad %s", f.start, what)
	}
	f.rest = f.rest[n:]
	return v, nil
}

// blockSizes reads the compressed and uncompressed sizes a block header's
// flags say it declares into z.packed and z.unpacked (UnknownSize when it
// does not).
func (z *XZReader) blockSizes(f *blockFields, flags byte) error {
	z.packed, z.unpacked = unknownSize, unknownSize
	if flags&0x40 != 0 {
		v, err := f.vli("compressed size")
		if err != nil {
			return err
		}
		if v == 0 {
			return xzCorrupt("block header at byte %d: compressed size 0", f.start)
		}
		z.packed = v
	}
	if flags&0x80 != 0 {
		v, err := f.vli("uncompressed size")
		if err != nil {
			return err
		}
		z.unpacked = v
	}
	return nil
}

// blockFilters reads a block header's count filters: delta and x86 BCJ
// filters, whose readers it returns in the header's order, then LZMA2,
// whose dictionary size it returns. Any other filter, or LZMA2 anywhere
// but last, is a *FilterError.
func (z *XZReader) blockFilters(f *blockFields, count int) (int, []func(io.Reader) io.Reader, error) {
	var wraps []func(io.Reader) io.Reader
	for i := range count {
		id, err := f.vli("filter id")
		if err != nil {
			return 0, nil, err
		}
		n, err := f.vli("filter properties size")
		if err != nil {
			return 0, nil, err
		}
		if n > uint64(len(f.rest)) {
			return 0, nil, xzCorrupt("block header at byte %d: filter properties past the header", f.start)
		}
		props := f.rest[:n]
		f.rest = f.rest[n:]
		last := i == count-1
		switch {
		case !last && id == 0x03 && n == 1:
			dist := int(props[0]) + 1
			wraps = append(wraps, func(r io.Reader) io.Reader { return &deltaReader{r: r, dist: dist} })
			continue
		case !last && id == 0x04 && (n == 0 || n == 4):
			var start uint32
			if n == 4 {
				start = binary.LittleEndian.Uint32(props)
			}
			wraps = append(wraps, func(r io.Reader) io.Reader { return newX86Reader(r, start) })
			continue
		}
		if id != 0x21 || !last {
			name, ok := xzFilterNames[id]
			if !ok {
				name = fmt.Sprintf("%#x", id)
			}
			return 0, nil, &FilterError{Name: name, Offset: f.start}
		}
		dict, err := z.lzma2Dict(props, f.start)
		return dict, wraps, err
	}
	return 0, wraps, nil
}

// lzma2Dict returns the dictionary size the LZMA2 filter properties props
// of the block header at start ask for, at most the reader's limit.
func (z *XZReader) lzma2Dict(props []byte, start int64) (int, error) {
	if len(props) != 1 || props[0] > 40 {
		return 0, xzCorrupt("block header at byte %d: bad LZMA2 properties", start)
	}
	d := uint64(2|props[0]&1) << (props[0]/2 + 11)
	if props[0] == 40 {
		d = 1<<32 - 1
	}
	if d > uint64(z.maxDict) {
		return 0, fmt.Errorf("block at byte %d asks for a dictionary of %d MiB, over %d MiB: %w", start, d>>20, z.maxDict>>20, ErrDictTooLarge)
	}
	return int(d), nil
}

// endBlock checks a block that decoded to its end: its sizes, padding and
// check, and records it for the index.
func (z *XZReader) endBlock() error {
	packed := uint64(z.read - z.blockStart - z.hdrSize)
	if z.packed != unknownSize && packed != z.packed {
		return xzCorrupt("compressed size %d, declared %d", packed, z.packed)
	}
	if z.unpacked != unknownSize && z.out != z.unpacked {
		return xzCorrupt("uncompressed size %d, declared %d", z.out, z.unpacked)
	}
	var pad [3]byte
	if n := (4 - packed%4) % 4; n > 0 {
		if err := z.full(pad[:n]); err != nil {
			return fmt.Errorf("xz: block padding: %w", err)
		}
		if pad != [3]byte{} {
			return xzCorrupt("block padding is not zeros")
		}
	}
	if z.check != nil {
		want := make([]byte, z.sumSize)
		if err := z.full(want); err != nil {
			return fmt.Errorf("xz: block check: %w", err)
		}
		got := z.check.Sum(nil)
		if z.sumSize != 32 { // CRC32 and CRC64 are stored little-endian
			for i, j := 0, len(got)-1; i < j; i, j = i+1, j-1 {
				got[i], got[j] = got[j], got[i]
			}
		}
		if !bytes.Equal(got, want) {
			return xzCorrupt("check mismatch: the block's data is damaged")
		}
	}
	z.records = append(z.records, xzRecord{unpadded: uint64(z.hdrSize) + packed + uint64(z.sumSize), unpacked: z.out})
	return nil
}

// endStream reads the index that began at start (its indicator read), the
// stream footer and the stream padding after it, then the next stream's
// header, or returns io.EOF at the end of the file.
func (z *XZReader) endStream(start int64) error {
	indexSize, err := z.index(start)
	if err != nil {
		return err
	}
	var f [12]byte
	if err := z.full(f[:]); err != nil {
		return fmt.Errorf("xz: stream footer: %w", err)
	}
	switch {
	case crc32.ChecksumIEEE(f[4:10]) != binary.LittleEndian.Uint32(f[:4]):
		return xzCorrupt("stream footer CRC32 mismatch")
	case !bytes.Equal(f[10:], xzFooterMagic):
		return xzCorrupt("no stream footer magic")
	case f[8] != z.flags[0] || f[9] != z.flags[1]:
		return xzCorrupt("stream footer flags differ from the header's")
	case (int64(binary.LittleEndian.Uint32(f[4:8]))+1)*4 != indexSize:
		return xzCorrupt("stream footer backward size does not match the index")
	}
	return z.streamPadding()
}

// index reads the stream's index that began at start (its indicator
// read), checks it against the blocks the stream held, and returns its
// size.
func (z *XZReader) index(start int64) (int64, error) {
	x := indexFields{z: z, crc: crc32.NewIEEE(), start: start}
	x.crc.Write([]byte{0})
	count, err := x.vli("record count")
	if err != nil {
		return 0, err
	}
	if count != uint64(len(z.records)) {
		return 0, xzCorrupt("index at byte %d lists %d blocks; the stream has %d", start, count, len(z.records))
	}
	for i, rec := range z.records {
		unpadded, err := x.vli("unpadded size")
		if err != nil {
			return 0, err
		}
		unpacked, err := x.vli("uncompressed size")
		if err != nil {
			return 0, err
		}
		if unpadded != rec.unpadded || unpacked != rec.unpacked {
			return 0, xzCorrupt("index at byte %d: block %d is %d+%d bytes, the index says %d+%d", start, i, rec.unpadded, rec.unpacked, unpadded, unpacked)
		}
	}
	var pad [3]byte
	if n := (4 - (z.read-start)%4) % 4; n > 0 {
		if err := z.full(pad[:n]); err != nil {
			return 0, fmt.Errorf("xz: index padding: %w", err)
		}
		if pad != [3]byte{} {
			return 0, xzCorrupt("index padding is not zeros")
		}
		x.crc.Write(pad[:n])
	}
	indexSize := z.read - start
	var sum [4]byte
	if err := z.full(sum[:]); err != nil {
		return 0, fmt.Errorf("xz: index CRC32: %w", err)
	}
	if binary.LittleEndian.Uint32(sum[:]) != x.crc.Sum32() {
		return 0, xzCorrupt("index CRC32 mismatch at byte %d", start)
	}
	return indexSize + 4, nil
}

// indexFields reads the fields of the index that began at start from the
// file, adding their bytes to its CRC32.
type indexFields struct {
	z     *XZReader
	crc   hash.Hash32
	start int64
}

// vli reads a variable-length integer; what names it in an error.
func (x *indexFields) vli(what string) (uint64, error) {
	var buf [9]byte
	for i := range buf {
		if err := x.z.full(buf[i : i+1]); err != nil {
			return 0, fmt.Errorf("xz: index at byte %d: %w", x.start, err)
		}
		x.crc.Write(buf[i : i+1])
		if buf[i]&0x80 == 0 {
			v, n := xzVLI(buf[:i+1])
			if n != i+1 {
				return 0, xzCorrupt("index at byte %d: bad %s", x.start, what)
			}
			return v, nil
		}
	}
	return 0, xzCorrupt("index at byte %d: bad %s", x.start, what)
}

// streamPadding reads the stream padding after a stream, in groups of
// four zeros, then the next stream's header, or returns io.EOF at the end
// of the file.
func (z *XZReader) streamPadding() error {
	for {
		var g [4]byte
		n, err := io.ReadFull(xzCounted{z}, g[:])
		switch {
		case n == 0 && err == io.EOF:
			return io.EOF
		case err != nil:
			return xzCorrupt("%d bytes after the stream at byte %d: stream padding comes in groups of four zeros", n, z.read-int64(n))
		case g == [4]byte{}:
			continue
		case bytes.Equal(g[:], xzHeaderMagic[:4]):
			var h [12]byte
			copy(h[:], g[:])
			if err := z.full(h[4:]); err != nil {
				return fmt.Errorf("xz: stream header: %w", err)
			}
			return z.streamHeader(h)
		}
		return xzCorrupt("bytes other than stream padding or a stream at byte %d", z.read-4)
	}
}

// xzVLI decodes the variable-length integer at the start of b, returning
// it and its length, or n <= 0 when b holds none or a badly encoded one.
func xzVLI(b []byte) (v uint64, n int) {
	for i := 0; i < len(b) && i < 9; i++ {
		c := b[i]
		v |= uint64(c&0x7f) << (7 * i)
		if c&0x80 == 0 {
			if i > 0 && c == 0 {
				return 0, -1 // not the shortest encoding
			}
			return v, i + 1
		}
	}
	return 0, -1
}
