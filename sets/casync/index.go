// Package casync owns casync's chunk formats: the chunk index (.caibx),
// content-defined chunking (casync's buzhash, with the boundaries desync
// makes), chunk files (.cacnk: zstd, made by klauspost/compress, read by
// internal/zstd) in casync's store layout (xxxx/<id>.cacnk), and assembling
// a file from seeds plus a store. It knows no HTTP and no packs: callers
// bring a [Store] that fetches chunks and decide what a file is for.
package casync

import (
	"bufio"
	"crypto/sha512"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
)

// The casync format's constants (casync's src/caformat.h).
const (
	formatIndex           = 0x96824d9c7b129ff9 // CA_FORMAT_INDEX
	formatTable           = 0xe75b9e112f17417d // CA_FORMAT_TABLE
	formatTableTailMarker = 0x4b4f050e5549ecd1 // CA_FORMAT_TABLE_TAIL_MARKER

	// flagSHA512256 is the index feature flag that says chunk ids are
	// SHA-512/256 digests (casync's CA_FORMAT_SHA512_256); an index
	// without it names chunks by SHA-256, which this package does not read.
	flagSHA512256 = 0x2000000000000000
	// flagExcludeNoDump is casync's CA_FORMAT_EXCLUDE_NODUMP, which desync
	// sets in every index it makes.
	flagExcludeNoDump = 0x8000000000000000
	// defaultFlags are the feature flags `desync make` writes for a plain
	// file (not a catar archive).
	defaultFlags = flagExcludeNoDump | flagSHA512256

	indexHeaderSize = 48 // CaFormatIndex: header (16) and four uint64
	tableHeaderSize = 16 // CaFormatTable's header; its size field is MaxUint64
	tableItemSize   = 40 // offset (8) and chunk id (32); the tail is as long
)

// Desync's default chunk size bounds (`desync make -m 16:64:256`).
const (
	DefaultMin = 16 << 10
	DefaultAvg = 64 << 10
	DefaultMax = 256 << 10
)

// The default [Limits].
const (
	// defaultMaxChunks bounds the chunks of an index read with zero
	// Limits: 2^20 chunks of the default average size describe 64 GiB, and
	// hold about 48 MiB of [Chunk] values.
	defaultMaxChunks = 1 << 20
	// defaultMaxLength bounds the length of the file an index describes.
	defaultMaxLength = 1 << 40
	// DefaultMaxChunkSize bounds the maximum chunk size an index may
	// declare: a chunk is held in memory whole while it is checked.
	DefaultMaxChunkSize = 4 << 20
)

// Errors callers can test for with errors.Is.
var (
	// errIndexInvalid is returned by ReadIndex for bytes that are not a
	// well-formed casync index (bad magic, sizes outside the declared
	// bounds, offsets that do not increase, a bad tail, trailing bytes).
	errIndexInvalid = errors.New("invalid casync index")
	// errIndexLimit is returned by ReadIndex for a well-formed index over
	// the caller's Limits (too many chunks, too long, chunks too large).
	errIndexLimit = errors.New("casync index over the limits")
	// ErrChunkInvalid is returned for a chunk whose bytes are not what its
	// id and size say: not zstd, larger than allowed, another digest.
	ErrChunkInvalid = errors.New("invalid casync chunk")
	// ErrChunkMissing is returned by a Store that does not have a chunk.
	ErrChunkMissing = errors.New("casync chunk missing")
)

// ChunkID names a chunk: the SHA-512/256 digest of its uncompressed bytes
// (casync's default digest).
type ChunkID [32]byte

// String returns the id as 64 lowercase hex digits, as casync names chunk
// files.
func (id ChunkID) String() string { return hex.EncodeToString(id[:]) }

// ParseChunkID reads 64 lowercase hex digits, the form String returns.
func ParseChunkID(s string) (ChunkID, error) {
	var id ChunkID
	if len(s) != 2*len(id) {
		return id, fmt.Errorf("parse chunk id %q: %d characters, want %d: %w", clip(s), len(s), 2*len(id), ErrChunkInvalid)
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return id, fmt.Errorf("parse chunk id %q: character %d is %q, want a lowercase hex digit: %w", s, i, c, ErrChunkInvalid)
		}
	}
	if _, err := hex.Decode(id[:], []byte(s)); err != nil {
		return id, fmt.Errorf("parse chunk id %q: %w", s, err)
	}
	return id, nil
}

// Sum returns the id of a chunk with these uncompressed bytes.
func Sum(data []byte) ChunkID { return sha512.Sum512_256(data) }

// clip shortens a string that goes into an error message.
func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// Chunk is one entry of an index: the chunk's place in the file and its id.
type Chunk struct {
	Start, Size uint64
	ID          ChunkID
}

// Index is a chunk index (.caibx) of one file: its chunks in order, each
// starting where the one before ends, and the chunk size bounds from the
// header.
type Index struct {
	// Flags are the header's feature flags; zero writes [defaultFlags].
	Flags         uint64
	Min, Avg, Max uint64
	Chunks        []Chunk
}

// Length returns the length of the file the index describes.
func (ix *Index) Length() uint64 {
	if len(ix.Chunks) == 0 {
		return 0
	}
	c := ix.Chunks[len(ix.Chunks)-1]
	return c.Start + c.Size
}

// Limits are a caller's bounds on an index it reads; zero fields take the
// defaults (DefaultMaxChunks, DefaultMaxLength, DefaultMaxChunkSize).
type Limits struct {
	MaxChunks int
	MaxLength uint64
	// MaxChunkSize bounds the header's maximum chunk size.
	MaxChunkSize uint64
}

// IndexExt is the file name extension of a chunk index.
const IndexExt = ".caibx"

// MinChunkFloor is the smallest average chunk that [LimitsFor] lets an
// index imply: an index of a file of n bytes may list at most
// n/MinChunkFloor+2 chunks. casync's and desync's defaults chunk at 16 KiB
// or more.
const MinChunkFloor = 4 << 10

// indexOverhead is more than an index's header and table tail take.
const indexOverhead = 1 << 10

// LimitsFor returns the Limits of an index of a file of length bytes, and
// the most bytes such an index file may have: one table item per chunk
// beside its header and tail.
func LimitsFor(length int64) (Limits, uint64) {
	n := length/MinChunkFloor + 2
	return Limits{MaxChunks: int(n), MaxLength: uint64(length)}, uint64(indexOverhead + tableItemSize*n)
}

func (l Limits) withDefaults() Limits {
	if l.MaxChunks <= 0 {
		l.MaxChunks = defaultMaxChunks
	}
	if l.MaxLength == 0 {
		l.MaxLength = defaultMaxLength
	}
	if l.MaxChunkSize == 0 {
		l.MaxChunkSize = DefaultMaxChunkSize
	}
	return l
}

// ReadIndex reads a casync chunk index from r and checks it whole: the
// header's magic and sizes, chunk size bounds with 1 <= Min <= Avg <= Max
// <= lim.MaxChunkSize, SHA-512/256 ids, every chunk within Min..Max (the
// last may be smaller than Min), strictly increasing offsets, at most
// lim.MaxChunks chunks, a length of at most lim.MaxLength, the table's tail,
// and nothing after it. It reads the table as it goes and never allocates by
// a count the input claims, so hostile input costs only its own bytes up to
// the limits. Errors name the byte offset, the chunk number and the value,
// and wrap ErrIndexInvalid or ErrIndexLimit.
func ReadIndex(r io.Reader, lim Limits) (*Index, error) {
	lim = lim.withDefaults()
	br := bufio.NewReaderSize(r, 64<<10)
	var hdr [indexHeaderSize + tableHeaderSize]byte
	if n, err := io.ReadFull(br, hdr[:]); err != nil {
		return nil, indexErr(int64(n), -1, errIndexInvalid, "truncated header: %d of %d bytes", n, len(hdr))
	}
	le := binary.LittleEndian
	u := func(off int) uint64 { return le.Uint64(hdr[off:]) }
	if v := u(0); v != indexHeaderSize {
		return nil, indexErr(0, -1, errIndexInvalid, "index header size %d, want %d", v, indexHeaderSize)
	}
	if v := u(8); v != formatIndex {
		return nil, indexErr(8, -1, errIndexInvalid, "index header type %#x, want %#x (not a casync index)", v, uint64(formatIndex))
	}
	ix := &Index{Flags: u(16), Min: u(24), Avg: u(32), Max: u(40)}
	if ix.Flags&flagSHA512256 == 0 {
		return nil, indexErr(16, -1, errIndexInvalid, "feature flags %#x name SHA-256 chunk ids; only SHA-512/256 is read", ix.Flags)
	}
	if ix.Min < 1 || ix.Min > ix.Avg || ix.Avg > ix.Max {
		return nil, indexErr(24, -1, errIndexInvalid, "chunk size bounds min %d, avg %d, max %d do not satisfy 1 <= min <= avg <= max", ix.Min, ix.Avg, ix.Max)
	}
	if ix.Max > lim.MaxChunkSize {
		return nil, indexErr(40, -1, errIndexLimit, "maximum chunk size %d is over the limit %d", ix.Max, lim.MaxChunkSize)
	}
	if v := u(48); v != math.MaxUint64 {
		return nil, indexErr(48, -1, errIndexInvalid, "table header size %#x, want %#x", v, uint64(math.MaxUint64))
	}
	if v := u(56); v != formatTable {
		return nil, indexErr(56, -1, errIndexInvalid, "table header type %#x, want %#x", v, uint64(formatTable))
	}

	var item [tableItemSize]byte
	var end uint64 // where the last chunk read ends
	pos := int64(len(hdr))
	for n := 0; ; n++ {
		if k, err := io.ReadFull(br, item[:]); err != nil {
			return nil, indexErr(pos+int64(k), n, errIndexInvalid, "truncated table: the entry or tail at byte %d has %d of %d bytes", pos, k, tableItemSize)
		}
		offset := le.Uint64(item[:])
		if offset == 0 {
			if err := checkTail(item[:], n, pos); err != nil {
				return nil, err
			}
			pos += tableItemSize
			break
		}
		if n >= lim.MaxChunks {
			return nil, indexErr(pos, n, errIndexLimit, "more than %d chunks", lim.MaxChunks)
		}
		if offset <= end {
			return nil, indexErr(pos, n, errIndexInvalid, "offset %d does not increase past %d", offset, end)
		}
		if offset > lim.MaxLength {
			return nil, indexErr(pos, n, errIndexLimit, "offset %d is past the length limit %d", offset, lim.MaxLength)
		}
		size := offset - end
		if size > ix.Max {
			return nil, indexErr(pos, n, errIndexInvalid, "size %d is over the maximum %d", size, ix.Max)
		}
		// Only the last chunk may be smaller than Min: a small chunk is
		// refused as soon as another one follows it.
		if n > 0 {
			if prev := ix.Chunks[n-1]; prev.Size < ix.Min {
				return nil, indexErr(pos-tableItemSize, n-1, errIndexInvalid, "size %d is under the minimum %d and it is not the last chunk", prev.Size, ix.Min)
			}
		}
		c := Chunk{Start: end, Size: size}
		copy(c.ID[:], item[8:])
		ix.Chunks = append(ix.Chunks, c)
		end = offset
		pos += tableItemSize
	}
	var one [1]byte
	if k, _ := io.ReadFull(br, one[:]); k != 0 {
		return nil, indexErr(pos, -1, errIndexInvalid, "trailing bytes after the table's tail (first %#02x)", one[0])
	}
	return ix, nil
}

// checkTail checks the table's tail: after the zero offset that ends the
// items, a second zero, the index header's offset from the table, the
// table's size and the tail marker.
func checkTail(tail []byte, n int, pos int64) error {
	le := binary.LittleEndian
	if v := le.Uint64(tail[8:]); v != 0 {
		return indexErr(pos+8, n, errIndexInvalid, "table tail: second zero fill is %#x", v)
	}
	if v := le.Uint64(tail[16:]); v != indexHeaderSize {
		return indexErr(pos+16, n, errIndexInvalid, "table tail: index offset %d, want %d", v, indexHeaderSize)
	}
	want := uint64(tableHeaderSize + tableItemSize*n + tableItemSize)
	if v := le.Uint64(tail[24:]); v != want {
		return indexErr(pos+24, n, errIndexInvalid, "table tail: table size %d, want %d for %d chunks", v, want, n)
	}
	if v := le.Uint64(tail[32:]); v != formatTableTailMarker {
		return indexErr(pos+32, n, errIndexInvalid, "table tail: marker %#x, want %#x", v, uint64(formatTableTailMarker))
	}
	return nil
}

// indexErr says where in an index what is wrong; chunk < 0 when the place
// is not a chunk's entry.
func indexErr(pos int64, chunk int, kind error, format string, args ...any) error {
	where := fmt.Sprintf("read casync index: byte %d", pos)
	if chunk >= 0 {
		where += fmt.Sprintf(", chunk %d", chunk)
	}
	return fmt.Errorf("%s: %s: %w", where, fmt.Sprintf(format, args...), kind)
}

// WriteTo writes the index in casync's format, byte for byte what `desync
// make` writes for the same chunks and bounds. It writes the chunks as they
// are: Start is implied by the sizes before it.
func (ix *Index) WriteTo(w io.Writer) (int64, error) {
	bw := bufio.NewWriterSize(w, 64<<10)
	le := binary.LittleEndian
	var buf [indexHeaderSize + tableHeaderSize]byte
	flags := ix.Flags
	if flags == 0 {
		flags = defaultFlags
	}
	for i, v := range []uint64{indexHeaderSize, formatIndex, flags, ix.Min, ix.Avg, ix.Max, math.MaxUint64, formatTable} {
		le.PutUint64(buf[8*i:], v)
	}
	var written int64
	n, err := bw.Write(buf[:])
	written += int64(n)
	if err != nil {
		return written, fmt.Errorf("write casync index: %w", err)
	}
	var item [tableItemSize]byte
	var offset uint64
	for _, c := range ix.Chunks {
		offset += c.Size
		le.PutUint64(item[:], offset)
		copy(item[8:], c.ID[:])
		n, err := bw.Write(item[:])
		written += int64(n)
		if err != nil {
			return written, fmt.Errorf("write casync index: %w", err)
		}
	}
	for i, v := range []uint64{0, 0, indexHeaderSize, uint64(tableHeaderSize + tableItemSize*len(ix.Chunks) + tableItemSize), formatTableTailMarker} {
		le.PutUint64(item[8*i:], v)
	}
	n, err = bw.Write(item[:])
	written += int64(n)
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		return written, fmt.Errorf("write casync index: %w", err)
	}
	return written, nil
}
