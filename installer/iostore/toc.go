// Package iostore owns reading Unreal Engine IoStore tables of contents
// (.utoc files) and computing Unreal package IDs, as SPEC §5 and IOSTORE.md
// describe them. It reads only a TOC's 144-byte header and its chunk-id
// array, never a .ucas, and it knows nothing of packs: callers say which
// long package names they require and where the containers are.
package iostore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/bits"
	"strconv"
	"strings"

	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
)

// HeaderSize is the size in bytes of a .utoc header; the chunk-id array
// starts right after it.
const HeaderSize = 144

// chunkIDSize is the size in bytes of one entry of the chunk-id array.
const chunkIDSize = 12

// maxChunks is the largest entry count a TOC may declare. Real containers
// hold at most a few hundred thousand chunks; a count above this is treated
// as corrupt rather than allocated for.
const maxChunks = 1 << 24

// Magic is the first 16 bytes of every .utoc file.
const Magic = "-==--==--==--==-"

// compressedBlockEntrySize is the only compressed-block entry size the
// engine writes or accepts.
const compressedBlockEntrySize = 12

// TOC versions whose layout the size check knows.
const (
	versionPerfectHash             = 4
	versionPerfectHashWithOverflow = 5
	versionIoHash                  = 8 // ReplaceIoChunkHashWithIoHash
	versionLatestKnown             = 8
)

// offsetLengthSize is the size of one FIoOffsetAndLength entry, which
// follows the chunk-id array (N of them).
const offsetLengthSize = 10

var (
	// errTruncated is returned when a file is shorter than a header, or
	// ends inside its header or chunk ids although its size said otherwise
	// (it shrank while being read).
	errTruncated = errors.New("iostore: truncated table of contents")
	// errBadMagic is returned when a file does not start with [Magic].
	errBadMagic = errors.New("iostore: not a .utoc (bad magic)")
	// errBadHeader is returned when a header field holds a value the
	// engine never writes (header size other than 144, version 0, a
	// compressed block entry size other than 12).
	errBadHeader = errors.New("iostore: malformed .utoc header")
	// errPastEnd is returned when the header's counts describe sections
	// that run past the end of the file: the file is truncated, or the
	// counts are corrupt.
	errPastEnd = errors.New("iostore: table of contents runs past end of file")
	// errTooManyChunks is returned when the entry count exceeds [maxChunks].
	errTooManyChunks = errors.New("iostore: absurd chunk count")
)

// TOCError is the error for a table of contents that cannot be read. It
// says which file, which field or rule, and the offending value, in the
// manner of [fs.PathError]; Err is one of the package's sentinel errors or
// the underlying I/O error.
type TOCError struct {
	Path  string // the .utoc file as the caller named it
	What  string // the field or rule, e.g. "header size"
	Value string // the offending value, e.g. "160"
	Err   error
}

// Error returns "path: what value: reason", with a hint for cut files.
func (e *TOCError) Error() string {
	var b strings.Builder
	b.WriteString(e.Path)
	if e.What != "" {
		b.WriteString(": ")
		b.WriteString(e.What)
		if e.Value != "" {
			b.WriteString(" ")
			b.WriteString(e.Value)
		}
	}
	b.WriteString(": ")
	b.WriteString(e.Err.Error())
	if errors.Is(e.Err, errTruncated) || errors.Is(e.Err, errPastEnd) {
		b.WriteString(" (copy the .utoc again from the cooked build)")
	}
	return b.String()
}

// Unwrap returns the sentinel or I/O error, for errors.Is.
func (e *TOCError) Unwrap() error { return e.Err }

func tocErr(path, what string, value any, err error) *TOCError {
	v := ""
	if value != nil {
		v = fmt.Sprint(value)
	}
	return &TOCError{Path: path, What: what, Value: v, Err: err}
}

// Version is a TOC format version (EIoStoreTocVersion). Version 3
// (PartitionSize) is the newest UE 4.27 writes; UE 5.5–5.7 write 8.
type Version uint8

// Flags are a container's EIoContainerFlags.
type Flags uint8

// The container flags.
const (
	FlagCompressed Flags = 1 << iota
	FlagEncrypted
	FlagSigned
	FlagIndexed
	FlagOnDemand
)

var flagNames = [...]string{"Compressed", "Encrypted", "Signed", "Indexed", "OnDemand"}

// Has reports whether every flag in x is set in f.
func (f Flags) Has(x Flags) bool { return f&x == x }

// String returns the set flags joined by "|", "None" when there are none;
// unknown bits show as a hex number.
func (f Flags) String() string {
	if f == 0 {
		return "None"
	}
	var parts []string
	for i, n := range flagNames {
		if f&(1<<i) != 0 {
			parts = append(parts, n)
		}
	}
	if rest := f &^ (1<<len(flagNames) - 1); rest != 0 {
		parts = append(parts, fmt.Sprintf("0x%02x", uint8(rest)))
	}
	return strings.Join(parts, "|")
}

// MarshalText renders f as [Flags.String] does.
func (f Flags) MarshalText() ([]byte, error) { return []byte(f.String()), nil }

// ChunkID is a 64-bit chunk or container id (a package id for package
// chunks). Its text form is 16 upper-case hex digits, as in
// testdata/package_ids.tsv.
type ChunkID uint64

// String returns id as 16 upper-case hex digits.
func (id ChunkID) String() string { return fmt.Sprintf("%016X", uint64(id)) }

// MarshalText renders id as [ChunkID.String] does.
func (id ChunkID) MarshalText() ([]byte, error) { return []byte(id.String()), nil }

// UnmarshalText parses 16 hex digits, with or without a "0x" prefix.
func (id *ChunkID) UnmarshalText(b []byte) error {
	s := strings.TrimPrefix(strings.TrimPrefix(string(b), "0x"), "0X")
	if len(s) == 0 || len(s) > 16 {
		return fmt.Errorf("iostore: chunk id %q: want up to 16 hex digits", b)
	}
	v, err := strconv.ParseUint(s, 16, 64)
	if err != nil {
		return fmt.Errorf("iostore: chunk id %q: want up to 16 hex digits", b)
	}
	*id = ChunkID(v)
	return nil
}

// Header is the part of a .utoc header the reader uses.
type Header struct {
	Version                  Version  `json:"version"`
	HeaderSize               uint32   `json:"headerSize"`
	EntryCount               uint32   `json:"entryCount"`
	CompressedBlockCount     uint32   `json:"compressedBlockCount"`
	CompressedBlockEntrySize uint32   `json:"compressedBlockEntrySize"`
	CompressionMethodCount   uint32   `json:"compressionMethodCount"`
	CompressionMethodLength  uint32   `json:"compressionMethodLength"`
	CompressionBlockSize     uint32   `json:"compressionBlockSize"`
	DirectoryIndexSize       uint32   `json:"directoryIndexSize"`
	PartitionCount           uint32   `json:"partitionCount"`
	ContainerID              ChunkID  `json:"containerId"`
	EncryptionKeyGUID        [16]byte `json:"-"`
	Flags                    Flags    `json:"flags"`
	// PerfectHashSeedsCount is the number of perfect-hash seeds, from
	// version 4 (PerfectHash); 0 before.
	PerfectHashSeedsCount uint32 `json:"perfectHashSeedsCount,omitempty"`
	// ChunksWithoutPerfectHashCount is the number of chunks outside the
	// perfect hash, from version 5 (PerfectHashWithOverflow); 0 before.
	ChunksWithoutPerfectHashCount uint32 `json:"chunksWithoutPerfectHashCount,omitempty"`
}

// Chunk is one entry of a TOC's chunk-id array.
type Chunk struct {
	ID ChunkID `json:"id"`
	// Index is the chunk index (0 for a package's main export data),
	// decoded little-endian under UE 4.27 and big-endian under UE5, as each
	// engine writes it.
	Index uint16 `json:"index"`
	// Type is the raw chunk type byte; its meaning depends on the layout.
	Type uint8 `json:"type"`
	// Kind is what Type means under the TOC's layout.
	Kind Kind `json:"kind"`
}

// TypeName returns the name of c's chunk type, such as "ExportBundleData",
// or "Type(N)" for a number the layout does not name.
func (c Chunk) TypeName() string {
	if c.Kind == kindUnknown {
		return fmt.Sprintf("Type(%d)", c.Type)
	}
	return c.Kind.String()
}

// IsPackageExport reports whether c is the chunk that satisfies a required
// package: type ExportBundleData and index 0.
func (c Chunk) IsPackageExport() bool {
	return c.Kind == KindExportBundleData && c.Index == 0
}

// TOC is what a .utoc tells about its container: its header, the chunk-type
// layout in use and every chunk id.
type TOC struct {
	Path string `json:"path"`
	Header
	Layout Layout  `json:"layout"`
	Chunks []Chunk `json:"chunks"`
}

// ReadFile reads the header and chunk ids of the .utoc at path.
func ReadFile(path string) (*TOC, error) {
	f, err := atomicfile.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readFile(f, path)
}

// ReadFS reads the header and chunk ids of the .utoc name in fsys.
func ReadFS(fsys fs.FS, name string) (*TOC, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readFile(f, name)
}

func readFile(f fs.File, path string) (*TOC, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, &TOCError{Path: path, What: "stat", Err: err}
	}
	if !fi.Mode().IsRegular() {
		return nil, &TOCError{Path: path, What: "file mode", Value: fi.Mode().String(), Err: fs.ErrInvalid}
	}
	return read(f, fi.Size(), path)
}

func read(r io.Reader, size int64, path string) (*TOC, error) {
	t := &TOC{Path: path}
	var layout layoutFinder
	err := scan(r, size, path, &t.Header, func(ids []byte) {
		if t.Chunks == nil {
			t.Chunks = make([]Chunk, 0, t.EntryCount)
		}
		for ; len(ids) >= chunkIDSize; ids = ids[chunkIDSize:] {
			layout.see(t.ContainerID, ids)
			t.Chunks = append(t.Chunks, Chunk{
				ID: ChunkID(binary.LittleEndian.Uint64(ids)),
				// File order for now; fixed below once the layout is known.
				Index: binary.BigEndian.Uint16(ids[8:10]),
				Type:  ids[11],
			})
		}
	})
	if err != nil {
		return nil, err
	}
	t.Layout = layout.decide(t.Version)
	for i := range t.Chunks {
		c := &t.Chunks[i]
		if t.Layout == LayoutUE4 {
			c.Index = bits.ReverseBytes16(c.Index)
		}
		c.Kind = t.Layout.KindOf(c.Type)
	}
	return t, nil
}

// layoutFinder watches the chunk-id array for the container header chunk.
type layoutFinder struct {
	found   bool
	rawType uint8
}

func (l *layoutFinder) see(container ChunkID, raw []byte) {
	if !l.found && ChunkID(binary.LittleEndian.Uint64(raw)) == container {
		t := raw[11]
		if t == ue4ContainerHeader || t == ue5ContainerHeader {
			l.found, l.rawType = true, t
		}
	}
}

// decide applies IOSTORE.md's rule: the container header chunk's type
// decides; without it, version ≤ 3 is UE 4.27 and later versions UE5.
func (l *layoutFinder) decide(v Version) Layout {
	if l.found {
		if l.rawType == ue4ContainerHeader {
			return LayoutUE4
		}
		return LayoutUE5
	}
	if v <= 3 {
		return LayoutUE4
	}
	return LayoutUE5
}

// scan validates the header and calls visit with the raw chunk-id array in
// file order, a whole number of 12-byte ids at a time (the slice is reused
// between calls). It reads r strictly sequentially and never more than the
// header and the id array.
func scan(r io.Reader, size int64, path string, h *Header, visit func(ids []byte)) error {
	var hb [HeaderSize]byte
	if size < HeaderSize {
		return tocErr(path, "file size", size, errTruncated)
	}
	if _, err := io.ReadFull(r, hb[:]); err != nil {
		return readErr(path, "header", err)
	}
	if err := parseHeader(hb[:], size, path, h); err != nil {
		return err
	}
	const batch = 4096 // ids per read: 48 KiB
	buf := make([]byte, min(int(h.EntryCount), batch)*chunkIDSize)
	left := int(h.EntryCount)
	for left > 0 {
		n := min(left, batch)
		b := buf[:n*chunkIDSize]
		if _, err := io.ReadFull(r, b); err != nil {
			return readErr(path, "chunk id array", err)
		}
		visit(b)
		left -= n
	}
	return nil
}

func readErr(path, what string, err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return tocErr(path, what, nil, errTruncated)
	}
	return &TOCError{Path: path, What: "read " + what, Err: err}
}

func parseHeader(b []byte, size int64, path string, h *Header) error {
	if string(b[:16]) != Magic {
		return tocErr(path, "magic", strconv.Quote(string(b[:16])), errBadMagic)
	}
	le := binary.LittleEndian
	*h = Header{
		Version:                  Version(b[16]),
		HeaderSize:               le.Uint32(b[20:]),
		EntryCount:               le.Uint32(b[24:]),
		CompressedBlockCount:     le.Uint32(b[28:]),
		CompressedBlockEntrySize: le.Uint32(b[32:]),
		CompressionMethodCount:   le.Uint32(b[36:]),
		CompressionMethodLength:  le.Uint32(b[40:]),
		CompressionBlockSize:     le.Uint32(b[44:]),
		DirectoryIndexSize:       le.Uint32(b[48:]),
		PartitionCount:           le.Uint32(b[52:]),
		ContainerID:              ChunkID(le.Uint64(b[56:])),
		Flags:                    Flags(b[80]),
	}
	if h.Version >= versionPerfectHash {
		h.PerfectHashSeedsCount = le.Uint32(b[84:])
	}
	if h.Version >= versionPerfectHashWithOverflow {
		h.ChunksWithoutPerfectHashCount = le.Uint32(b[96:])
	}
	copy(h.EncryptionKeyGUID[:], b[64:80])
	if h.Version == 0 {
		return tocErr(path, "version", 0, errBadHeader)
	}
	if h.HeaderSize != HeaderSize {
		return tocErr(path, "header size", h.HeaderSize, errBadHeader)
	}
	if h.CompressedBlockEntrySize != compressedBlockEntrySize {
		return tocErr(path, "compressed block entry size", h.CompressedBlockEntrySize, errBadHeader)
	}
	if h.EntryCount > maxChunks {
		return tocErr(path, "entry count", h.EntryCount, errTooManyChunks)
	}
	// All in uint64 so that no count can overflow.
	rest := uint64(size) - HeaderSize
	ids := uint64(h.EntryCount) * chunkIDSize
	if ids > rest {
		return tocErr(path, "entry count", fmt.Sprintf("%d (%d bytes of chunk ids, %d after the header)", h.EntryCount, ids, rest), errPastEnd)
	}
	if need := sectionBytes(h); need > rest {
		return tocErr(path, "section sizes", fmt.Sprintf("%d entries, %d blocks, %d×%d method names, %d-byte directory index, %d hash seeds (%d bytes, %d after the header)",
			h.EntryCount, h.CompressedBlockCount, h.CompressionMethodCount, h.CompressionMethodLength, h.DirectoryIndexSize,
			uint64(h.PerfectHashSeedsCount)+uint64(h.ChunksWithoutPerfectHashCount), need, rest), errPastEnd)
	}
	return nil
}

// sectionBytes returns the least number of bytes that follow the header of
// a TOC with header h: the sections the engine writes after it, in order —
// chunk ids, offsets and lengths, perfect-hash seeds and chunks without a
// perfect hash, compressed blocks, compression method names, signatures
// when Signed (at least the hash size field and one SHA-1 per block),
// directory index, chunk metadata. Chunk metadata is counted only for the
// versions whose entry size is known (33 bytes up to version 7, 24 from
// version 8), so a newer engine's file is never rejected for a section
// that changed.
func sectionBytes(h *Header) uint64 {
	n := uint64(h.EntryCount)
	need := n*chunkIDSize +
		n*offsetLengthSize +
		(uint64(h.PerfectHashSeedsCount)+uint64(h.ChunksWithoutPerfectHashCount))*4 +
		uint64(h.CompressedBlockCount)*compressedBlockEntrySize +
		uint64(h.CompressionMethodCount)*uint64(h.CompressionMethodLength) +
		uint64(h.DirectoryIndexSize)
	if h.Flags.Has(FlagSigned) {
		need += 4 + uint64(h.CompressedBlockCount)*20
	}
	switch {
	case h.Version < versionIoHash:
		need += n * 33
	case h.Version <= versionLatestKnown:
		need += n * 24
	}
	return need
}
