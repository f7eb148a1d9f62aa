package intake

import (
	"archive/zip"
	"compress/flate"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"
)

// packTime is the modification time written for every entry of a packed
// zip, so that the same folder always packs to the same bytes.
var packTime = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// packStoredExt are the extensions whose entries are always stored: the
// Unreal containers a game reads in place. Their blocks are compressed by
// the cooker (Oodle or zlib per block, in a .pak or a .ucas); Deflate over
// them saves little and, worse, turns an insert of a few bytes into a
// different stream from there to the entry's end, which defeats delta
// updates (SPEC §10.2a). A .utoc is a table (chunk ids, offsets, block
// sizes, a directory of names) that the cooker does not compress, and a
// .sig is a list of hashes: both go through the 5% rule like any other
// entry.
var packStoredExt = map[string]bool{".pak": true, ".ucas": true}

// The 5% rule: an entry is deflated only when Deflate makes it at least
// packMinSavingPercent smaller. A file of up to packSampleWindows ×
// packSampleWindow bytes is compressed whole to decide; a larger one by
// packSampleWindows windows of packSampleWindow bytes spread evenly from
// its first byte to its last, each compressed on its own, so that deciding
// costs at most 1 MiB of Deflate whatever the size.
const (
	packMinSavingPercent = 5
	packSampleWindow     = 64 << 10
	packSampleWindows    = 16
	packDeflateLevel     = 5 // what archive/zip's Deflate compressor uses
)

// WritePackZip writes the files of a pack (slash paths in fsys, as a
// Listing gives them relative to its Root) as a reproducible zip: entries
// sorted by path, no directory entries, one fixed timestamp, no owner,
// permission or OS-specific attributes. The same files give the same
// bytes, and an entry's bytes depend only on its own path and content, so
// a changed file never moves the entries sorted before it.
//
// An entry is stored (method 0, its sizes and CRC-32 in the local header,
// no data descriptor) when it is a .pak or .ucas, when Deflate would not
// shrink it by 5%, or when it is over [ratioFloor] and Deflate would
// shrink it past the default limits' compression ratio (see packMethod):
// what the packer writes, the scanner admits. Every other entry is
// deflated.
func WritePackZip(w io.Writer, fsys fs.FS, files []File) error {
	return WritePackZipWithin(w, fsys, files, DefaultLimits().MaxRatio)
}

// WritePackZipWithin is [WritePackZip] for an archive checked with a
// compression ratio limit of maxRatio ([Limits.MaxRatio]).
func WritePackZipWithin(w io.Writer, fsys fs.FS, files []File, maxRatio int64) error {
	sorted := slices.Clone(files)
	slices.SortFunc(sorted, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	zw := zip.NewWriter(w)
	var fw *flate.Writer // reused by packMethod's trials
	for _, f := range sorted {
		method, err := packMethod(fsys, f, &fw, maxRatio)
		if err != nil {
			return err
		}
		if method == zip.Store {
			err = packStored(zw, fsys, f)
		} else {
			err = packDeflated(zw, fsys, f)
		}
		if err != nil {
			return err
		}
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("pack: %w", err)
	}
	return nil
}

// packMethod is the zip method [WritePackZip] gives the file f of fsys:
// [zip.Store] for a .pak or .ucas (any case), an empty file, a file that
// Deflate (at archive/zip's level) would not make at least 5% smaller,
// judged on the whole file up to 1 MiB and on 16 windows of 64 KiB spread
// over a larger one, and a file over [ratioFloor] that Deflate would make
// more than maxRatio times smaller, judged on the whole file (the
// scanner's ratio rule, which a repetitive 4 MB CHANGELOG.md breaks);
// [zip.Deflate] otherwise. It depends only on the file's name and bytes
// and maxRatio. *fw is the compressor it reuses.
func packMethod(fsys fs.FS, f File, fw **flate.Writer, maxRatio int64) (uint16, error) {
	if packStoredExt[strings.ToLower(path.Ext(f.Path))] || f.Size <= 0 {
		return zip.Store, nil
	}
	src, err := fsys.Open(f.Path)
	if err != nil {
		return 0, fmt.Errorf("pack: %w", err)
	}
	defer src.Close()
	if *fw == nil {
		*fw, _ = flate.NewWriter(io.Discard, packDeflateLevel) // the level is valid
	}
	var in, out countWriter
	trial := func(r io.Reader) error {
		(*fw).Reset(&out)
		n, err := io.Copy(*fw, r)
		in.n += n
		if err != nil {
			return fmt.Errorf("pack %s: read: %w", f.Path, err)
		}
		return (*fw).Close()
	}
	const whole = packSampleWindows * packSampleWindow
	if f.Size <= whole {
		// One byte more than listed shows a file that grew.
		if err := trial(io.LimitReader(src, f.Size+1)); err != nil {
			return 0, err
		}
		if in.n != f.Size {
			return 0, fmt.Errorf("pack %s: file changed while packing (%d bytes, listed %d)", f.Path, in.n, f.Size)
		}
	} else {
		// Windows from offset 0 to Size-window, evenly spaced: the first
		// and the last bytes of the file are always looked at.
		step := (f.Size - packSampleWindow) / (packSampleWindows - 1)
		ra, seekable := src.(io.ReaderAt)
		var pos int64 // where a sequential reader is
		for i := range int64(packSampleWindows) {
			off := i * step
			var r io.Reader
			if seekable {
				r = io.NewSectionReader(ra, off, packSampleWindow)
			} else {
				if _, err := io.CopyN(io.Discard, src, off-pos); err != nil {
					return 0, fmt.Errorf("pack %s: file changed while packing (read: %w)", f.Path, err)
				}
				r, pos = io.LimitReader(src, packSampleWindow), off+packSampleWindow
			}
			before := in.n
			if err := trial(r); err != nil {
				return 0, err
			}
			if in.n-before != packSampleWindow {
				return 0, fmt.Errorf("pack %s: file changed while packing (shorter than the %d bytes listed)", f.Path, f.Size)
			}
		}
	}
	if out.n*100 > in.n*(100-packMinSavingPercent) {
		return zip.Store, nil
	}
	if f.Size <= ratioFloor {
		return zip.Deflate, nil
	}
	return packRatioMethod(fsys, f, *fw, maxRatio)
}

// packRatioMethod is [zip.Store] for the file f of fsys, over RatioFloor,
// when Deflate would make it more than maxRatio times smaller, else
// [zip.Deflate]. It deflates the whole file with fw as archive/zip will
// (the same level, so the same bytes) and counts what comes out: the
// entry's compressed size, which the scanner's ratio rule divides by.
func packRatioMethod(fsys fs.FS, f File, fw *flate.Writer, maxRatio int64) (uint16, error) {
	src, err := fsys.Open(f.Path)
	if err != nil {
		return 0, fmt.Errorf("pack: %w", err)
	}
	defer src.Close()
	var out countWriter
	fw.Reset(&out)
	n, err := io.Copy(fw, io.LimitReader(src, f.Size+1))
	if err != nil {
		return 0, fmt.Errorf("pack %s: read: %w", f.Path, err)
	}
	if n != f.Size {
		return 0, fmt.Errorf("pack %s: file changed while packing (%d bytes, listed %d)", f.Path, n, f.Size)
	}
	if err := fw.Close(); err != nil {
		return 0, err
	}
	if f.Size > maxRatio*max(out.n, 1) {
		return zip.Store, nil
	}
	return zip.Deflate, nil
}

// countWriter counts what is written to it and keeps nothing.
type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return len(p), nil
}

// packDeflated writes f as a deflated entry; archive/zip streams it and
// writes the sizes and CRC-32 in a data descriptor after the data.
func packDeflated(zw *zip.Writer, fsys fs.FS, f File) error {
	hdr := &zip.FileHeader{Name: f.Path, Method: zip.Deflate, Modified: packTime}
	dst, err := zw.CreateHeader(hdr)
	if err != nil {
		return fmt.Errorf("pack %s: %w", f.Path, err)
	}
	src, err := fsys.Open(f.Path)
	if err != nil {
		return fmt.Errorf("pack: %w", err)
	}
	n, err := io.Copy(dst, src)
	src.Close()
	if err != nil {
		return fmt.Errorf("pack %s: %w", f.Path, err)
	}
	if n != f.Size {
		return fmt.Errorf("pack %s: file changed while packing (%d bytes, listed %d)", f.Path, n, f.Size)
	}
	return nil
}

// packStored writes f as a stored entry whose local header carries its
// CRC-32 and sizes, so that a reader streaming the zip (no central
// directory) finds where the entry ends without guessing at a data
// descriptor in bytes that may hold anything. That takes two reads of the
// file: one for the CRC-32, one to copy; the copy is checked against the
// first read.
func packStored(zw *zip.Writer, fsys fs.FS, f File) error {
	sum, n, err := packCRC(fsys, f.Path, nil)
	if err != nil {
		return err
	}
	if n != f.Size {
		return fmt.Errorf("pack %s: file changed while packing (%d bytes, listed %d)", f.Path, n, f.Size)
	}
	hdr := &zip.FileHeader{
		Name:               f.Path,
		Method:             zip.Store,
		CRC32:              sum,
		CompressedSize64:   uint64(n),
		UncompressedSize64: uint64(n),
		Extra:              packTimeExtra(),
	}
	// CreateRaw writes the MS-DOS fields as they are (only CreateHeader
	// derives them from Modified), so they are set here.
	//lint:ignore SA1019 CreateRaw reads these fields, not Modified
	hdr.ModifiedDate, hdr.ModifiedTime = packDOSTime()
	// What CreateHeader sets and CreateRaw leaves to its caller: version
	// 2.0 made by and needed, and the UTF-8 flag for a name that is not
	// CP-437 (a listed path is valid UTF-8).
	hdr.CreatorVersion, hdr.ReaderVersion = 20, 20
	if strings.ContainsFunc(f.Path, func(r rune) bool { return r < 0x20 || r > 0x7d || r == 0x5c }) {
		hdr.Flags |= 0x800
	}
	dst, err := zw.CreateRaw(hdr)
	if err != nil {
		return fmt.Errorf("pack %s: %w", f.Path, err)
	}
	again, m, err := packCRC(fsys, f.Path, dst)
	if err != nil {
		return err
	}
	if m != n || again != sum {
		return fmt.Errorf("pack %s: file changed while packing (%d bytes, CRC-32 %08x; read before as %d bytes, %08x)", f.Path, m, again, n, sum)
	}
	return nil
}

// packCRC reads the file name of fsys to its end, copying it to w when w
// is not nil, and returns its CRC-32 and size.
func packCRC(fsys fs.FS, name string, w io.Writer) (uint32, int64, error) {
	src, err := fsys.Open(name)
	if err != nil {
		return 0, 0, fmt.Errorf("pack: %w", err)
	}
	defer src.Close()
	h := crc32.NewIEEE()
	dst := io.Writer(h)
	if w != nil {
		dst = io.MultiWriter(w, h)
	}
	n, err := io.Copy(dst, src)
	if err != nil {
		return 0, 0, fmt.Errorf("pack %s: %w", name, err)
	}
	return h.Sum32(), n, nil
}

// packTimeExtra is the extended-timestamp extra field (0x5455, the
// modification time only) that archive/zip's CreateHeader writes for
// [packTime], so that stored and deflated entries carry the same one.
func packTimeExtra() []byte {
	var b [9]byte
	binary.LittleEndian.PutUint16(b[0:], 0x5455)
	binary.LittleEndian.PutUint16(b[2:], 5)
	b[4] = 1 // the modification time is present
	binary.LittleEndian.PutUint32(b[5:], uint32(packTime.Unix()))
	return b[:]
}

// packDOSTime is [packTime] in MS-DOS date and time fields.
func packDOSTime() (date, tm uint16) {
	t := packTime
	date = uint16(t.Day() + int(t.Month())<<5 + (t.Year()-1980)<<9)
	tm = uint16(t.Second()/2 + t.Minute()<<5 + t.Hour()<<11)
	return date, tm
}
