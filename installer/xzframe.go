package installer

import (
	"encoding/binary"
	"hash/crc32"
	"io"
)

// xzFrame presents a raw LZMA2 stream (a 7z coder's input) as a complete
// xz stream of one block, so that the xz decoder runs it: a stream header
// (no integrity check), a block header naming the LZMA2 filter and its
// dictionary, the LZMA2 bytes as they are read, and, once they end, the
// block padding, the index and the stream footer (xz file format 1.0.4,
// sections 2 and 3). The index records the LZMA2 bytes counted and the
// size the 7z folder declares; the decoder checks both, so a stream that
// ends early or decodes to another size is an error, not a short file.
type xzFrame struct {
	r      io.Reader
	head   []byte // header bytes not yet read
	tail   []byte // trailer bytes not yet read, once built
	n      uint64 // LZMA2 bytes read so far
	size   uint64 // the declared uncompressed size
	inDone bool
}

// xzBlockHeaderSize is the size of the block header newXZFrame writes.
const xzBlockHeaderSize = 12

func newXZFrame(r io.Reader, dictProp byte, size uint64) *xzFrame {
	head := []byte{0xfd, '7', 'z', 'X', 'Z', 0x00, 0x00, 0x00}
	head = binary.LittleEndian.AppendUint32(head, crc32.ChecksumIEEE(head[6:8]))
	// Block header: its size/4-1, flags (one filter, no sizes), filter
	// 0x21 with one property byte, padding to 8, CRC32.
	block := []byte{xzBlockHeaderSize/4 - 1, 0x00, 0x21, 0x01, dictProp, 0, 0, 0}
	block = binary.LittleEndian.AppendUint32(block, crc32.ChecksumIEEE(block))
	return &xzFrame{r: r, head: append(head, block...), size: size}
}

func (f *xzFrame) Read(p []byte) (int, error) {
	if len(f.head) > 0 {
		n := copy(p, f.head)
		f.head = f.head[n:]
		return n, nil
	}
	if !f.inDone {
		n, err := f.r.Read(p)
		f.n += uint64(n)
		if err == io.EOF {
			f.inDone, f.tail, err = true, f.trailer(), nil
		}
		return n, err
	}
	if len(f.tail) == 0 {
		return 0, io.EOF
	}
	n := copy(p, f.tail)
	f.tail = f.tail[n:]
	return n, nil
}

// trailer returns the block padding, the index and the stream footer for
// the f.n LZMA2 bytes read.
func (f *xzFrame) trailer() []byte {
	t := make([]byte, (4-f.n%4)%4) // block padding; no check follows
	index := []byte{0x00}
	index = appendVLI(index, 1)
	index = appendVLI(index, xzBlockHeaderSize+f.n) // unpadded size
	index = appendVLI(index, f.size)
	for len(index)%4 != 0 {
		index = append(index, 0)
	}
	index = binary.LittleEndian.AppendUint32(index, crc32.ChecksumIEEE(index))
	t = append(t, index...)
	footer := binary.LittleEndian.AppendUint32(nil, uint32(len(index)/4-1))
	footer = append(footer, 0x00, 0x00)
	t = binary.LittleEndian.AppendUint32(t, crc32.ChecksumIEEE(footer))
	return append(append(t, footer...), 'Y', 'Z')
}

// appendVLI appends x in the xz format's variable-length integer encoding.
func appendVLI(b []byte, x uint64) []byte {
	for x >= 0x80 {
		b = append(b, byte(x)|0x80)
		x >>= 7
	}
	return append(b, byte(x))
}
