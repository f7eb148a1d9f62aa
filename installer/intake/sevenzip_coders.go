package intake

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"io"
	"strings"

	"github.com/mjolnir-forge/forgesync/internal/inflate"
)

// This file reads the coders of every folder of a 7z from its header, the
// encoded header decoded by our own bounded decoders, so that every coder
// id is checked against the allowlist before the 7z reader builds or runs
// any of them.

// sevenZipAllowed are the 7z coders a pack may use, by method id: the
// ones 7-Zip writes for data (LZMA2 by default, LZMA, Deflate, Copy) and
// the x86 BCJ filter, which 7-Zip may choose on its own. Every other id is
// refused by name before anything is decoded.
var sevenZipAllowed = map[string]string{
	"\x00":             "Copy",
	"\x03\x01\x01":     "LZMA",
	"\x21":             "LZMA2",
	"\x04\x01\x08":     "Deflate",
	"\x03\x03\x01\x03": "BCJ x86 filter",
}

// sevenZipNames name the coders a 7z may declare that packs may not use,
// for the refusal; an id not here is refused by its hex digits.
var sevenZipNames = map[string]string{
	"\x03":                 "Delta filter",
	"\x03\x03\x01\x1b":     "BCJ2 filter",
	"\x03\x03\x02\x05":     "PowerPC filter",
	"\x03\x03\x04\x01":     "IA64 filter",
	"\x03\x03\x05\x01":     "ARM filter",
	"\x03\x03\x07\x01":     "ARM Thumb filter",
	"\x03\x03\x08\x05":     "SPARC filter",
	"\x0a":                 "ARM64 filter",
	"\x0b":                 "RISC-V filter",
	"\x02\x03\x02":         "Swap2 filter",
	"\x02\x03\x04":         "Swap4 filter",
	"\x04\x01\x09":         "Deflate64",
	"\x04\x02\x02":         "bzip2",
	"\x03\x04\x01":         "PPMd",
	"\x04\xf7\x11\x01":     "zstd",
	"\x04\xf7\x11\x02":     "brotli",
	"\x04\xf7\x11\x03":     "Lizard",
	"\x04\xf7\x11\x04":     "LZ4",
	"\x04\xf7\x11\x05":     "LZ5",
	"\x04\xf7\x11\x06":     "LZHAM",
	"\x06\xf1\x07\x01":     "AES-256",
	"\x06\xf1\x07\x02":     "7zAES (old)",
	"\x03\x03\x02\x05\x00": "PowerPC filter (old id)",
}

// sevenZipCoderErr is the refusal of a coder that is not on the allowlist.
func sevenZipCoderErr(id []byte) error {
	name, ok := sevenZipNames[string(id)]
	if !ok {
		name = "with an unknown method"
	}
	text := fmt.Sprintf("7z coder %s (%s) is not allowed", name, strings.ToUpper(hex.EncodeToString(id)))
	if bytes.HasPrefix(id, []byte{0x06, 0xf1, 0x07}) {
		return &coderError{RuleEncrypted, text + ": packs are never encrypted"}
	}
	return &coderError{RuleMethod, text + ": use LZMA2, LZMA, Deflate or Copy"}
}

// check7zCoders reads the header of the 7z in r and refuses the first
// coder of any folder whose id is not allowed, the folder of an encoded
// header checked before it is decoded.
func check7zCoders(r io.ReaderAt, size int64) error {
	var sig [32]byte
	if _, err := r.ReadAt(sig[:], 0); err != nil {
		return &damageError{"7z signature header: " + err.Error()}
	}
	off, n := binary.LittleEndian.Uint64(sig[12:]), binary.LittleEndian.Uint64(sig[20:])
	if off > uint64(size) || n > uint64(size)-off || 32+off+n > uint64(size) {
		return &damageError{fmt.Sprintf("7z header at %d, %d bytes, lies past the end of the archive (%d bytes)", off, n, size)}
	}
	if n == 0 {
		return nil // an empty archive
	}
	hdr := make([]byte, n)
	if _, err := r.ReadAt(hdr, int64(32+off)); err != nil {
		return &damageError{"7z header: " + err.Error()}
	}
	if crc32.ChecksumIEEE(hdr) != binary.LittleEndian.Uint32(sig[28:]) {
		return &damageError{"7z header: CRC-32 mismatch"}
	}
	for range 4 { // an encoded header may encode another; 7-Zip never nests
		if len(hdr) == 0 || hdr[0] != 0x17 {
			break
		}
		p := &sevenZipParser{b: hdr[1:]}
		si, err := p.streamsInfo()
		if err != nil {
			return err
		}
		if err := si.check(); err != nil {
			return err
		}
		if hdr, err = si.decodeHeader(r, size); err != nil {
			return err
		}
	}
	if len(hdr) == 0 || hdr[0] != 0x01 {
		return &damageError{"7z header: not a header"}
	}
	p := &sevenZipParser{b: hdr[1:]}
	for {
		id, err := p.byte()
		if err != nil {
			return err
		}
		switch id {
		case 0x02: // archive properties
			for {
				t, err := p.byte()
				if err != nil || t == 0 {
					if err != nil {
						return err
					}
					break
				}
				if err := p.skipData(); err != nil {
					return err
				}
			}
		case 0x03, 0x04: // additional and main streams
			si, err := p.streamsInfo()
			if err != nil {
				return err
			}
			if err := si.check(); err != nil {
				return err
			}
			if id == 0x04 {
				return nil // only files info follows the main streams
			}
			if si.substreams {
				return &damageError{"7z header: substreams in the additional streams"}
			}
		default: // files info or the end: no coders follow
			return nil
		}
	}
}

// sevenZipStreams is what a 7z StreamsInfo says of its folders.
type sevenZipStreams struct {
	substreams bool // the record stopped at its substreams, not read
	packPos    uint64
	packSizes  []uint64
	folders    [][]sevenZipCoder
	unpackSize [][]uint64 // per folder, per out stream
}

type sevenZipCoder struct {
	id, props []byte
}

// check refuses the first coder not on the allowlist.
func (si *sevenZipStreams) check() error {
	for _, f := range si.folders {
		for _, c := range f {
			if _, ok := sevenZipAllowed[string(c.id)]; !ok {
				return sevenZipCoderErr(c.id)
			}
		}
	}
	return nil
}

// maxSevenZipHeader bounds a decoded header: 7-Zip writes well under 200
// bytes a file, and a pack has at most a few thousand entries.
const maxSevenZipHeader = 16 << 20

// decodeHeader decodes an encoded header, whose one folder of one coder
// (checked allowed) 7-Zip writes with LZMA.
func (si *sevenZipStreams) decodeHeader(r io.ReaderAt, size int64) ([]byte, error) {
	if len(si.folders) != 1 || len(si.folders[0]) != 1 || len(si.packSizes) != 1 || len(si.unpackSize) != 1 || len(si.unpackSize[0]) != 1 {
		return nil, &coderError{RuleMethod, "7z header coded with more than one coder: use LZMA2, LZMA, Deflate or Copy"}
	}
	c, out := si.folders[0][0], si.unpackSize[0][0]
	if out > maxSevenZipHeader {
		return nil, &coderError{RuleDecoderMemory, fmt.Sprintf("7z header of %s, over %d MiB", sizeText(int64(out)), maxSevenZipHeader>>20)}
	}
	start := 32 + si.packPos
	if start > uint64(size) || si.packSizes[0] > uint64(size)-start {
		return nil, &damageError{"7z encoded header lies past the end of the archive"}
	}
	in := io.NewSectionReader(r, int64(start), int64(si.packSizes[0]))
	var dec io.Reader
	switch string(c.id) {
	case "\x00":
		dec = in
	case "\x03\x01\x01":
		rc, err := newLZMAReader(c.props, out, []io.ReadCloser{io.NopCloser(in)})
		if err != nil {
			return nil, err
		}
		dec = rc
	case "\x21":
		rc, err := newLZMA2Reader(c.props, out, []io.ReadCloser{io.NopCloser(in)})
		if err != nil {
			return nil, err
		}
		dec = rc
	case "\x04\x01\x08":
		z := inflate.NewReader(in)
		defer z.Close()
		dec = z
	default:
		return nil, &coderError{RuleMethod, "7z header coded with " + sevenZipAllowed[string(c.id)] + ": use LZMA2, LZMA, Deflate or Copy"}
	}
	hdr := make([]byte, out)
	if _, err := io.ReadFull(dec, hdr); err != nil {
		return nil, &damageError{"7z encoded header: " + err.Error()}
	}
	return hdr, nil
}

// sevenZipParser reads the numbers and records of a 7z header.
type sevenZipParser struct{ b []byte }

var errSevenZipShort = &damageError{"7z header ends early"}

func (p *sevenZipParser) byte() (byte, error) {
	if len(p.b) == 0 {
		return 0, errSevenZipShort
	}
	c := p.b[0]
	p.b = p.b[1:]
	return c, nil
}

func (p *sevenZipParser) bytes(n uint64) ([]byte, error) {
	if n > uint64(len(p.b)) {
		return nil, errSevenZipShort
	}
	b := p.b[:n]
	p.b = p.b[n:]
	return b, nil
}

// number reads a 7z variable-length number.
func (p *sevenZipParser) number() (uint64, error) {
	first, err := p.byte()
	if err != nil {
		return 0, err
	}
	var v uint64
	mask := byte(0x80)
	for i := range 8 {
		if first&mask == 0 {
			return v | uint64(first&(mask-1))<<(8*i), nil
		}
		c, err := p.byte()
		if err != nil {
			return 0, err
		}
		v |= uint64(c) << (8 * i)
		mask >>= 1
	}
	return v, nil
}

// count reads a number of records, each at least one byte long.
func (p *sevenZipParser) count() (int, error) {
	n, err := p.number()
	if err != nil {
		return 0, err
	}
	if n > uint64(len(p.b)) {
		return 0, &damageError{fmt.Sprintf("7z header: %d records in %d bytes", n, len(p.b))}
	}
	return int(n), nil
}

func (p *sevenZipParser) skipData() error {
	n, err := p.number()
	if err != nil {
		return err
	}
	_, err = p.bytes(n)
	return err
}

// digests skips the CRCs of n streams.
func (p *sevenZipParser) digests(n int) error {
	all, err := p.byte()
	if err != nil {
		return err
	}
	defined := n
	if all == 0 {
		bits, err := p.bytes(uint64(n+7) / 8)
		if err != nil {
			return err
		}
		defined = 0
		for i := range n {
			if bits[i/8]&(0x80>>(i%8)) != 0 {
				defined++
			}
		}
	}
	_, err = p.bytes(4 * uint64(defined))
	return err
}

// streamsInfo reads a StreamsInfo: pack info, then the folders; the
// substreams that follow are skipped by the caller's end.
func (p *sevenZipParser) streamsInfo() (*sevenZipStreams, error) {
	si := &sevenZipStreams{}
	for {
		id, err := p.byte()
		if err != nil {
			return nil, err
		}
		switch id {
		case 0x00:
			return si, nil
		case 0x06:
			if err := p.packInfo(si); err != nil {
				return nil, err
			}
		case 0x07:
			if err := p.unpackInfo(si); err != nil {
				return nil, err
			}
		case 0x08:
			// Substreams say nothing of coders, and come last.
			si.substreams = true
			return si, nil
		default:
			return nil, &damageError{fmt.Sprintf("7z header: property %#02x in streams info", id)}
		}
	}
}

func (p *sevenZipParser) packInfo(si *sevenZipStreams) error {
	var err error
	if si.packPos, err = p.number(); err != nil {
		return err
	}
	n, err := p.count()
	if err != nil {
		return err
	}
	for {
		id, err := p.byte()
		if err != nil {
			return err
		}
		switch id {
		case 0x00:
			return nil
		case 0x09:
			si.packSizes = make([]uint64, n)
			for i := range n {
				if si.packSizes[i], err = p.number(); err != nil {
					return err
				}
			}
		case 0x0a:
			if err := p.digests(n); err != nil {
				return err
			}
		default:
			return &damageError{fmt.Sprintf("7z header: property %#02x in pack info", id)}
		}
	}
}

func (p *sevenZipParser) unpackInfo(si *sevenZipStreams) error {
	if id, err := p.byte(); err != nil || id != 0x0b {
		if err != nil {
			return err
		}
		return &damageError{fmt.Sprintf("7z header: property %#02x where folders belong", id)}
	}
	n, err := p.count()
	if err != nil {
		return err
	}
	if ext, err := p.byte(); err != nil || ext != 0 {
		if err != nil {
			return err
		}
		return &damageError{"7z header: folders stored outside the header"}
	}
	outs := make([]int, n)
	for i := range n {
		f, out, err := p.folder()
		if err != nil {
			return err
		}
		si.folders = append(si.folders, f)
		outs[i] = out
	}
	for {
		id, err := p.byte()
		if err != nil {
			return err
		}
		switch id {
		case 0x00:
			return nil
		case 0x0c:
			si.unpackSize = make([][]uint64, n)
			for i := range n {
				si.unpackSize[i] = make([]uint64, outs[i])
				for j := range outs[i] {
					if si.unpackSize[i][j], err = p.number(); err != nil {
						return err
					}
				}
			}
		case 0x0a:
			if err := p.digests(n); err != nil {
				return err
			}
		default:
			return &damageError{fmt.Sprintf("7z header: property %#02x in unpack info", id)}
		}
	}
}

// folder reads one folder's coders and returns them with its number of
// out streams.
func (p *sevenZipParser) folder() ([]sevenZipCoder, int, error) {
	n, err := p.count()
	if err != nil {
		return nil, 0, err
	}
	if n == 0 || n > 64 {
		return nil, 0, &damageError{fmt.Sprintf("7z folder of %d coders", n)}
	}
	var coders []sevenZipCoder
	var ins, outs uint64
	for range n {
		flags, err := p.byte()
		if err != nil {
			return nil, 0, err
		}
		if flags&0xc0 != 0 {
			return nil, 0, &damageError{fmt.Sprintf("7z coder flags %#02x", flags)}
		}
		var c sevenZipCoder
		if c.id, err = p.bytes(uint64(flags & 0x0f)); err != nil {
			return nil, 0, err
		}
		in, out := uint64(1), uint64(1)
		if flags&0x10 != 0 {
			if in, err = p.number(); err != nil {
				return nil, 0, err
			}
			if out, err = p.number(); err != nil {
				return nil, 0, err
			}
			if in > 64 || out > 64 {
				return nil, 0, &damageError{fmt.Sprintf("7z coder of %d in and %d out streams", in, out)}
			}
		}
		if flags&0x20 != 0 {
			m, err := p.number()
			if err != nil {
				return nil, 0, err
			}
			if c.props, err = p.bytes(m); err != nil {
				return nil, 0, err
			}
		}
		ins += in
		outs += out
		coders = append(coders, c)
	}
	for range outs - 1 { // bind pairs
		if _, err := p.number(); err != nil {
			return nil, 0, err
		}
		if _, err := p.number(); err != nil {
			return nil, 0, err
		}
	}
	if outs-1 > ins {
		return nil, 0, &damageError{"7z folder binds more streams than it has"}
	}
	if packed := ins - (outs - 1); packed > 1 {
		for range packed {
			if _, err := p.number(); err != nil {
				return nil, 0, err
			}
		}
	}
	return coders, int(outs), nil
}
