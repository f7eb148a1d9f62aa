// Package zstd owns decoding Zstandard streams (RFC 8878), as .tar.zst
// packs, zip entries of method 93 and casync chunks carry them: frames of
// raw, RLE and compressed blocks (Huffman-coded literals, FSE-coded
// sequences, repeat offsets), skippable frames, the content checksum, any
// number of frames in a row. Frames that need a dictionary are refused.
// Input is hostile: a malformed stream is an error that says where (frame,
// block, byte offset) and what, never a panic or a loop; the window is
// bounded by a limit the caller gives, and no buffer is sized by what a
// frame claims beyond that limit.
package zstd

import (
	"errors"
	"fmt"
)

// Errors returned by a Reader and DecodeAll, wrapped in an *Error that
// says where they arose.
var (
	// ErrCorrupt is returned when the stream is not valid Zstandard: a
	// bad magic number, a reserved bit or block type, a table or stream
	// that does not decode, a match before the frame's start, a block
	// over its maximum, a frame whose content size differs from its
	// header's, or a stream cut short.
	ErrCorrupt = errors.New("zstd: corrupt stream")
	// ErrChecksum is returned when a frame's content checksum does not
	// match its decoded bytes.
	ErrChecksum = errors.New("zstd: content checksum mismatch")
	// ErrWindow is returned when a frame asks for a window over the
	// caller's limit.
	ErrWindow = errors.New("zstd: window over the limit")
	// ErrDictionary is returned when a frame names a dictionary: this
	// decoder has none.
	ErrDictionary = errors.New("zstd: frame needs a dictionary")
	// ErrSize is returned by DecodeAll when the stream decodes to more
	// than the caller's limit, and by a Reader when a frame claims or
	// decodes to more than Reader.LimitFrames allows.
	ErrSize = errors.New("zstd: decoded size over the limit")
)

// Error says where in a stream decoding failed: the frame (from 0), the
// block within it (from 0; -1 for the frame header or its checksum), the
// offset in the input of the part that failed, and what was wrong.
type Error struct {
	Frame, Block int
	Offset       int64
	What         string
	Err          error
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %s: %s", e.Err, e.Where(), e.What) }

// Where says where the error arose: "frame 1, block 3 at byte 5000", or
// "frame 1 at byte 4" for a frame's header or checksum.
func (e *Error) Where() string {
	if e.Block < 0 {
		return fmt.Sprintf("frame %d at byte %d", e.Frame, e.Offset)
	}
	return fmt.Sprintf("frame %d, block %d at byte %d", e.Frame, e.Block, e.Offset)
}

// Unwrap returns the sentinel error.
func (e *Error) Unwrap() error { return e.Err }

// Magic numbers (RFC 8878 sections 3.1.1 and 3.1.2).
const (
	frameMagic     = 0xFD2FB528
	skippableMagic = 0x184D2A50
	skippableMask  = 0xFFFFFFF0
)

// header is a frame header (RFC 8878 section 3.1.1.1).
type header struct {
	window   uint64
	size     uint64
	hasSize  bool
	checksum bool
}

// headerLen returns the length of a frame header after the magic number,
// given its descriptor byte.
func headerLen(fhd byte) int {
	n := 1
	single := fhd&0x20 != 0
	if !single {
		n++
	}
	n += [4]int{0, 1, 2, 4}[fhd&3]
	n += [4]int{0, 2, 4, 8}[fhd>>6]
	if single && fhd>>6 == 0 {
		n++
	}
	return n
}

// parseHeader reads a frame header after the magic number; h holds
// exactly headerLen(h[0]) bytes.
func parseHeader(h []byte, maxWindow uint64) (header, string, error) {
	fhd := h[0]
	var f header
	if fhd&0x08 != 0 {
		return f, "reserved bit set in the frame header", ErrCorrupt
	}
	f.checksum = fhd&0x04 != 0
	single := fhd&0x20 != 0
	i := 1
	if !single {
		exp, mant := uint64(h[1]>>3), uint64(h[1]&7)
		base := uint64(1) << (10 + exp)
		f.window = base + base/8*mant
		i++
	}
	dn := [4]int{0, 1, 2, 4}[fhd&3]
	var dict uint64
	for k := dn - 1; k >= 0; k-- {
		dict = dict<<8 | uint64(h[i+k])
	}
	i += dn
	if dict != 0 {
		return f, fmt.Sprintf("dictionary %d named, and dictionaries are not supported", dict), ErrDictionary
	}
	if sn := len(h) - i; sn > 0 {
		for k := sn - 1; k >= 0; k-- {
			f.size = f.size<<8 | uint64(h[i+k])
		}
		if sn == 2 {
			f.size += 256
		}
		f.hasSize = true
	}
	if single {
		f.window = f.size
	}
	if f.window > maxWindow {
		return f, fmt.Sprintf("window of %d bytes, over the limit of %d", f.window, maxWindow), ErrWindow
	}
	return f, "", nil
}
