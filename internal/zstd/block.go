package zstd

import "sync"

// maxBlock is the largest block, decoded or not (RFC 8878 section
// 3.1.1.2.4).
const maxBlock = 128 << 10

// slop is room left past a block's end in the output buffer.
const slop = 32

// Baselines and extra bits of literal-length and match-length codes (RFC
// 8878 section 3.1.1.3.2.1.1); an offset code's baseline is 1<<code and
// its extra bits the code.
var (
	llBase = [maxLLSym + 1]uint32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
		16, 18, 20, 22, 24, 28, 32, 40, 48, 64, 128, 256, 512, 1024, 2048, 4096,
		8192, 16384, 32768, 65536}
	llExtra = [maxLLSym + 1]uint8{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		1, 1, 1, 1, 2, 2, 3, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	mlBase = [maxMLSym + 1]uint32{3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18,
		19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34,
		35, 37, 39, 41, 43, 47, 51, 59, 67, 83, 99, 131, 259, 515, 1027, 2051,
		4099, 8195, 16387, 32771, 65539}
	mlExtra = [maxMLSym + 1]uint8{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	ofBase, ofExtra = func() (b [maxOFSym + 1]uint32, e [maxOFSym + 1]uint8) {
		for i := range b {
			b[i], e[i] = 1<<i, uint8(i)
		}
		return
	}()
)

// The predefined distributions (RFC 8878 section 3.1.1.3.2.2).
var (
	predefOnce                   sync.Once
	predefLL, predefOF, predefML fseTable
)

func buildPredefined() {
	ll := []int16{4, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1,
		2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 2, 1, 1, 1, 1, 1, -1, -1, -1, -1}
	of := []int16{1, 1, 1, 1, 1, 1, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1,
		1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1}
	ml := []int16{1, 4, 3, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1,
		1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
		1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1, -1, -1}
	predefLL.build(ll, 6, llBase[:], llExtra[:])
	predefOF.build(of, 5, ofBase[:], ofExtra[:])
	predefML.build(ml, 6, mlBase[:], mlExtra[:])
}

// decoder holds what a frame's blocks share: the Huffman table of the
// last compressed literals, the sequence tables, the repeat offsets, and
// buffers.
type decoder struct {
	huff         huffTable
	huffOK       bool
	weightTable  fseTable
	ll, of, ml   *fseTable
	llBuf, ofBuf fseTable
	mlBuf        fseTable
	rep          [3]int
	seqs         []seq
	lits         [maxBlock + slop]byte
	window       int
	blockMax     int
	// earlier is the frame's history before out's first byte, when a
	// Reader has started its buffer over (see Reader.room): a match
	// reaching back past out's start copies from its end.
	earlier []byte
}

// reset prepares d for a new frame of the given window.
func (d *decoder) reset(window int) {
	predefOnce.Do(buildPredefined)
	d.huffOK = false
	d.ll, d.of, d.ml = nil, nil, nil
	d.rep = [3]int{1, 4, 8}
	d.window = window
	d.blockMax = min(window, maxBlock)
	d.earlier = nil
}

// block decodes a compressed block's content in and appends its bytes to
// out, whose bytes from hist on are the frame's history. out must have
// room for d.blockMax+slop more bytes.
func (d *decoder) block(out []byte, hist int, in []byte) ([]byte, string) {
	lits, n, what := d.literals(in)
	if what != "" {
		return out, what
	}
	in = in[n:]
	nseq, n, what := seqCount(in)
	if what != "" {
		return out, what
	}
	in = in[n:]
	end := len(out) + d.blockMax
	if nseq == 0 {
		if len(in) != 0 {
			return out, "bytes after an empty sequences section"
		}
		if len(out)+len(lits) > end {
			return out, "block larger than its maximum"
		}
		return append(out, lits...), ""
	}
	if n, what = d.tables(in); what != "" {
		return out, what
	}
	return d.sequences(out, hist, end, lits, in[n:], nseq)
}

// literals reads a literals section (RFC 8878 section 3.1.1.3.1) and
// returns the literals, the bytes the section took, and what was wrong.
func (d *decoder) literals(in []byte) ([]byte, int, string) {
	if len(in) < 1 {
		return nil, 0, "no literals section"
	}
	typ, sf := in[0]&3, in[0]>>2&3
	if typ < 2 {
		var size, h int
		switch sf {
		case 0, 2:
			size, h = int(in[0]>>3), 1
		case 1:
			if len(in) < 2 {
				return nil, 0, "literals header cut short"
			}
			size, h = int(in[0]>>4)|int(in[1])<<4, 2
		case 3:
			if len(in) < 3 {
				return nil, 0, "literals header cut short"
			}
			size, h = int(in[0]>>4)|int(in[1])<<4|int(in[2])<<12, 3
		}
		if size > d.blockMax {
			return nil, 0, "literals larger than a block"
		}
		if typ == 0 {
			if h+size > len(in) {
				return nil, 0, "raw literals past the block's end"
			}
			return in[h : h+size], h + size, ""
		}
		if h >= len(in) {
			return nil, 0, "RLE literals past the block's end"
		}
		b := in[h]
		l := d.lits[:size]
		for i := range l {
			l[i] = b
		}
		return l, h + 1, ""
	}
	return d.huffLiterals(in, typ, sf)
}

// huffLiterals reads a compressed or treeless literals section.
func (d *decoder) huffLiterals(in []byte, typ, sf byte) ([]byte, int, string) {
	var size, csize, h int
	switch sf {
	case 0, 1:
		if len(in) < 3 {
			return nil, 0, "literals header cut short"
		}
		v := int(in[0]) | int(in[1])<<8 | int(in[2])<<16
		size, csize, h = v>>4&0x3ff, v>>14&0x3ff, 3
	case 2:
		if len(in) < 4 {
			return nil, 0, "literals header cut short"
		}
		v := int(in[0]) | int(in[1])<<8 | int(in[2])<<16 | int(in[3])<<24
		size, csize, h = v>>4&0x3fff, v>>18&0x3fff, 4
	case 3:
		if len(in) < 5 {
			return nil, 0, "literals header cut short"
		}
		v := int(in[0]) | int(in[1])<<8 | int(in[2])<<16 | int(in[3])<<24
		size, csize, h = v>>4&0x3ffff, v>>22|int(in[4])<<10, 5
	}
	if size > d.blockMax {
		return nil, 0, "literals larger than a block"
	}
	if h+csize > len(in) {
		return nil, 0, "compressed literals past the block's end"
	}
	src := in[h : h+csize]
	if typ == 2 {
		n, ok := d.readHuffTable(src)
		if !ok {
			return nil, 0, "bad Huffman tree description"
		}
		d.huffOK = true
		src = src[n:]
	} else if !d.huffOK {
		return nil, 0, "treeless literals with no earlier Huffman table"
	}
	l := d.lits[:size]
	var ok bool
	if sf == 0 {
		ok = d.huff.decode1(l, src)
	} else {
		ok = size >= 6 && d.huff.decode4(l, src)
	}
	if !ok {
		return nil, 0, "bad Huffman-coded literals"
	}
	return l, h + csize, ""
}

// seqCount reads the number of sequences (RFC 8878 section
// 3.1.1.3.2.1).
func seqCount(in []byte) (int, int, string) {
	if len(in) < 1 {
		return 0, 0, "no sequences section"
	}
	b := int(in[0])
	switch {
	case b < 128:
		return b, 1, ""
	case b < 255:
		if len(in) < 2 {
			return 0, 0, "sequences header cut short"
		}
		return (b-128)<<8 | int(in[1]), 2, ""
	default:
		if len(in) < 3 {
			return 0, 0, "sequences header cut short"
		}
		return int(in[1]) | int(in[2])<<8 + 0x7f00, 3, ""
	}
}

// tables reads the compression modes and the three tables they describe.
func (d *decoder) tables(in []byte) (int, string) {
	if len(in) < 1 {
		return 0, "no compression modes"
	}
	m := in[0]
	if m&3 != 0 {
		return 0, "reserved bits set in the compression modes"
	}
	n := 1
	var what string
	var k int
	if d.ll, k, what = d.table(in[n:], m>>6, d.ll, &d.llBuf, &predefLL, maxLLLog, llBase[:], llExtra[:]); what != "" {
		return 0, "literal lengths: " + what
	}
	n += k
	if d.of, k, what = d.table(in[n:], m>>4&3, d.of, &d.ofBuf, &predefOF, maxOFLog, ofBase[:], ofExtra[:]); what != "" {
		return 0, "offsets: " + what
	}
	n += k
	if d.ml, k, what = d.table(in[n:], m>>2&3, d.ml, &d.mlBuf, &predefML, maxMLLog, mlBase[:], mlExtra[:]); what != "" {
		return 0, "match lengths: " + what
	}
	return n + k, ""
}

// table reads one table in the given mode: predefined, RLE, FSE or
// repeat.
func (d *decoder) table(in []byte, mode byte, prev, buf, predef *fseTable, maxLog int, bases []uint32, extra []uint8) (*fseTable, int, string) {
	switch mode {
	case 0:
		return predef, 0, ""
	case 1:
		if len(in) < 1 {
			return nil, 0, "RLE symbol missing"
		}
		if int(in[0]) >= len(bases) {
			return nil, 0, "RLE symbol out of range"
		}
		buf.rle(in[0], bases, extra)
		return buf, 1, ""
	case 2:
		var norm [256]int16
		log, nsym, n, ok := readNormCounts(in, &norm, maxLog, len(bases)-1)
		if !ok || !buf.build(norm[:nsym], log, bases, extra) {
			return nil, 0, "bad FSE table description"
		}
		return buf, n, ""
	}
	if prev == nil {
		return nil, 0, "repeat mode with no earlier table"
	}
	return prev, 0, ""
}
