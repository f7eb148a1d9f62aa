package intake

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"strconv"
)

// identifyBytes is how much of a file identify reads: a tar header and the
// first frame header of a compressed stream fit, nothing more is read.
const identifyBytes = 512

// magic is a signature at the start of a file.
type magic struct {
	sig  []byte
	kind archiveKind
	name string // for a format packs do not use: what the user is told
}

// magics are the signatures identify knows, pack formats first. Formats
// that are not pack formats are named so the rejection says what the file
// is; their decoders are never run.
var magics = []magic{
	{sig: []byte("PK\x03\x04"), kind: kindZip},
	{sig: []byte("PK\x05\x06"), kind: kindZip}, // an empty zip
	{sig: []byte{'7', 'z', 0xbc, 0xaf, 0x27, 0x1c}, kind: kind7z},
	{sig: []byte("Rar!\x1a\x07\x00"), kind: kindRar},
	{sig: []byte("Rar!\x1a\x07\x01\x00"), kind: kindRar},
	{sig: []byte{0x1f, 0x8b}, kind: kindTarGz},
	{sig: []byte{0xfd, '7', 'z', 'X', 'Z', 0x00}, kind: kindTarXz},
	{sig: []byte{0x28, 0xb5, 0x2f, 0xfd}, kind: kindTarZst},
	{sig: []byte("BZh"), name: "bzip2"},
	{sig: []byte("LZIP"), name: "lzip"},
	{sig: []byte{0x04, 0x22, 0x4d, 0x18}, name: "lz4"},
	{sig: []byte("\xff\x06\x00\x00sNaPpY"), name: "snappy"},
	{sig: []byte("MSCF"), name: "cab"},
	{sig: []byte("!<arch>\n"), name: "ar"},
	{sig: []byte{0x1f, 0x9d}, name: "compress (.Z)"},
}

// identify recognises the format by the first bytes of the file (never by
// its name), reading at most identifyBytes of it with ReadAt. A file in no
// pack format returns kindUnknown and a Problem value saying what it is.
// A compressed stream is taken for a tar inside it; the tar reader finds
// out whether it is one, with the decoder's bounds in force.
func identify(r io.ReaderAt) (archiveKind, string, error) {
	buf := make([]byte, identifyBytes)
	n, err := r.ReadAt(buf, 0)
	if err != nil && err != io.EOF {
		return kindUnknown, "", err
	}
	buf = buf[:n]
	for _, m := range magics {
		if bytes.HasPrefix(buf, m.sig) {
			if m.kind == kindUnknown {
				return kindUnknown, m.name + " is not a pack archive format: a pack is a zip, 7z, tar, tar.gz, tar.xz, tar.zst or rar archive", nil
			}
			return m.kind, "", nil
		}
	}
	if isTarHeader(buf) {
		return kindTar, "", nil
	}
	return kindUnknown, "format not recognised: a pack is a zip, 7z, tar, tar.gz, tar.xz, tar.zst or rar archive", nil
}

// NotArchive reports why the file r reads is in no pack format, reading
// at most its first 512 bytes in this process, or "" when it starts like a
// pack archive. Only signatures are compared (no decoder runs), so a
// caller may judge a stray file without the isolated unpacker; an archive
// it does not refuse is unpacked as ever, and may still prove no archive.
func NotArchive(r io.ReaderAt) (string, error) {
	kind, why, err := identify(r)
	if err != nil || kind != kindUnknown {
		return "", err
	}
	return why, nil
}

// isTarHeader reports whether b starts with a tar header: the ustar magic,
// or (an old V7 tar) a header whose checksum is right.
func isTarHeader(b []byte) bool {
	if len(b) < 512 {
		return false
	}
	if bytes.Equal(b[257:262], []byte("ustar")) {
		return true
	}
	field := bytes.TrimRight(bytes.TrimLeft(b[148:156], " "), " \x00")
	want, err := strconv.ParseUint(string(field), 8, 32)
	if err != nil || len(field) == 0 {
		return false
	}
	var sum uint64
	for i, c := range b[:512] {
		if i >= 148 && i < 156 {
			c = ' '
		}
		sum += uint64(c)
	}
	return sum == want && b[0] != 0
}

// zstdFrameWindow returns the window a zstd frame header at the start of b
// asks for, and false when b holds no frame header. A skippable frame
// asks for nothing.
func zstdFrameWindow(b []byte) (uint64, bool) {
	if len(b) < 5 {
		return 0, false
	}
	switch m := binary.LittleEndian.Uint32(b); {
	case m&0xfffffff0 == 0x184d2a50:
		return 0, true // skippable frame
	case m != 0xfd2fb528:
		return 0, false
	}
	fhd := b[4]
	single := fhd&0x20 != 0
	if !single {
		wd := b[5]
		exp, mant := uint64(wd>>3), uint64(wd&7)
		base := uint64(1) << (10 + exp)
		return base + base/8*mant, true
	}
	// Single segment: the window is the content size.
	var fcsBytes int
	switch fhd >> 6 {
	case 0:
		fcsBytes = 1
	case 1:
		fcsBytes = 2
	case 2:
		fcsBytes = 4
	case 3:
		fcsBytes = 8
	}
	did := [...]int{0, 1, 2, 4}[fhd&3]
	off := 5 + did
	if len(b) < off+fcsBytes {
		return 0, false
	}
	var fcs uint64
	for i := fcsBytes - 1; i >= 0; i-- {
		fcs = fcs<<8 | uint64(b[off+i])
	}
	if fcsBytes == 2 {
		fcs += 256
	}
	return fcs, true
}

// windowText says how large a decoder window is, for a rejection.
func windowText(n uint64) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}
