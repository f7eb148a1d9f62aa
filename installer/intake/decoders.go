package intake

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"sync"

	"github.com/bodgit/sevenzip"
	"github.com/klauspost/compress/zip"
	"github.com/mholt/archives"
	"github.com/mjolnir-forge/forgesync/internal/inflate"
	"github.com/mjolnir-forge/forgesync/internal/lzma2"
	"github.com/mjolnir-forge/forgesync/internal/zstd"
)

// This file bounds every decoder an archive can choose, by rule, before
// it decodes a byte: which zip methods and 7z coders run at all, and how
// much memory their properties may ask for. The registrations replace the
// decoders that the zip and 7z readers would otherwise pick for the whole
// process (mholt/archives registers unbounded zstd, xz and bzip2 ones).

// maxLZMADict bounds the dictionary of a 7z LZMA or LZMA2 coder: 7-Zip's
// Ultra preset (-mx9) uses 64 MiB, the default 16 MiB.
const maxLZMADict = 64 << 20

// lzmaDictLimit is the dictionary rule in force: maxLZMADict, raised only
// by the tests that show the child's memory limit holds on its own.
var lzmaDictLimit uint64 = maxLZMADict

// Zip compression methods a pack may use.
const (
	zipStore   = 0
	zipDeflate = 8
	zipZstd    = 93
)

// zipMethodNames names the methods a zip may declare, for the rejection.
var zipMethodNames = map[uint16]string{
	1: "Shrink", 6: "Implode", 9: "Deflate64", 10: "PKWARE Implode", 12: "bzip2",
	14: "LZMA", 18: "IBM TERSE", 19: "IBM LZ77", 94: "MP3", 95: "xz", 96: "JPEG",
	97: "WavPack", 98: "PPMd", 99: "AES",
}

// zipMethodText names a zip method for a rejection.
func zipMethodText(m uint16) string {
	if n, ok := zipMethodNames[m]; ok {
		return fmt.Sprintf("method %d (%s): use Store, Deflate or zstd", m, n)
	}
	return fmt.Sprintf("method %d: use Store, Deflate or zstd", m)
}

// coderError is a 7z coder or zip stream refused by rule before decoding.
type coderError struct {
	rule  string // RuleDecoderMemory, RuleEncrypted or RuleMethod
	value string
}

func (e *coderError) Error() string { return RuleText(e.rule) + " (" + e.value + ")" }

// openZip opens a zip with our decoders: zstd with its window bounded,
// every other method than Store and Deflate refused by name. The zip
// package's process-wide decoders (mholt/archives registers unbounded
// zstd, xz and bzip2 ones) are never used.
func openZip(r io.ReaderAt, size int64) (*zip.Reader, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, err
	}
	zr.RegisterDecompressor(zipDeflate, zipDeflateReader)
	zr.RegisterDecompressor(zipZstd, zipZstdReader)
	for m := range zipMethodNames {
		zr.RegisterDecompressor(m, func(io.Reader) io.ReadCloser {
			return errReader{&coderError{RuleMethod, zipMethodText(m)}}
		})
	}
	return zr, nil
}

// zipDeflateReader inflates a Deflate entry with internal/inflate, which
// reads its compressed bytes 64 KiB at a time (the zip package's own
// inflater reads them 4 KiB at a time, one system call each) and decodes
// them in about two thirds of klauspost/compress's time.
func zipDeflateReader(r io.Reader) io.ReadCloser { return inflate.NewReader(r) }

// walkZip calls handle for every entry of zr in directory order, like
// archives.Zip.Extract but on a reader opened by openZip.
func walkZip(ctx context.Context, zr *zip.Reader, handle archives.FileHandler) error {
	for _, f := range zr.File {
		if err := ctx.Err(); err != nil {
			return err
		}
		info := f.FileInfo()
		err := handle(ctx, archives.FileInfo{
			FileInfo:      info,
			Header:        f.FileHeader,
			NameInArchive: f.Name,
			Open: func() (fs.File, error) {
				rc, err := f.Open()
				if err != nil {
					return nil, err
				}
				return zipEntry{rc, info}, nil
			},
		})
		if err != nil {
			return fmt.Errorf("%s: %w", f.Name, err)
		}
	}
	return nil
}

// zipEntry is an open zip entry as an fs.File.
type zipEntry struct {
	io.ReadCloser
	info fs.FileInfo
}

func (e zipEntry) Stat() (fs.FileInfo, error) { return e.info, nil }

// The 7z reader's decoders for LZMA and LZMA2 are replaced by bounded
// ones; every other coder's id is checked against the allowlist before
// the reader builds one (check7zCoders).
func init() {
	sevenzip.RegisterDecompressor([]byte{0x03, 0x01, 0x01}, newLZMAReader)
	sevenzip.RegisterDecompressor([]byte{0x21}, newLZMA2Reader)
	sevenzip.RegisterDecompressor([]byte{0x04, 0x01, 0x08}, newDeflateReader)
}

// newDeflateReader decodes a 7z Deflate stream with internal/inflate, the
// inflater of zip and gzip entries too: one Deflate decoder for every
// format (the 7z reader's own is klauspost's).
func newDeflateReader(_ []byte, _ uint64, in []io.ReadCloser) (io.ReadCloser, error) {
	if len(in) != 1 {
		return nil, errors.New("intake: 7z Deflate: want one input stream")
	}
	return &deflateReader{Reader: inflate.NewReader(in[0]), in: in[0]}, nil
}

// deflateReader is a 7z Deflate stream being inflated; Close ends both.
type deflateReader struct {
	*inflate.Reader
	in io.Closer
}

func (d *deflateReader) Close() error { return errors.Join(d.Reader.Close(), d.in.Close()) }

// errReader fails every read with err.
type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }
func (r errReader) Close() error             { return nil }

// zipZstdReader decodes a zip entry of method 93 with internal/zstd, the
// window bounded: the frame header is read first, so any window size gets
// the rule's message, not a decoder error. The decoder reads through the
// same buffer, with no copy of its own, and goes back to a pool when the
// entry is closed.
func zipZstdReader(r io.Reader) io.ReadCloser {
	br := bufio.NewReaderSize(r, 64<<10)
	head, _ := br.Peek(18)
	if w, ok := zstdFrameWindow(head); ok && w > maxZstdWindow {
		return errReader{&coderError{RuleDecoderMemory, zstdWindowText(w)}}
	}
	zr := zstdReaders.Get().(*zstd.Reader)
	zr.Reset(br)
	return &zipZstdEntry{zr}
}

// zstdReaders holds the decoders of zip entries between entries: each
// holds its tables and window.
var zstdReaders = sync.Pool{New: func() any { return zstd.NewReader(nil, maxZstdWindow) }}

// zipZstdEntry is a zip entry's zstd decoder until it is closed.
type zipZstdEntry struct{ r *zstd.Reader }

func (e *zipZstdEntry) Read(p []byte) (int, error) {
	if e.r == nil {
		return 0, os.ErrClosed
	}
	return e.r.Read(p)
}

// Close gives the decoder back to the pool, holding nothing of the entry.
func (e *zipZstdEntry) Close() error {
	if e.r != nil {
		e.r.Reset(nil)
		zstdReaders.Put(e.r)
		e.r = nil
	}
	return nil
}

// zstdWindowText is the value of the decoder-memory rule for a zstd window.
func zstdWindowText(w uint64) string {
	return fmt.Sprintf("zstd window of %s, over %d MiB: compress without --long or --ultra", windowText(w), maxZstdWindow>>20)
}

// firstZstdWindow reads the first zstd frame header of f.
func firstZstdWindow(f io.ReaderAt) (uint64, bool) {
	head := make([]byte, 18)
	n, _ := f.ReadAt(head, 0)
	return zstdFrameWindow(head[:n])
}

// lzmaDictText is the value of the decoder-memory rule for a 7z coder.
func lzmaDictText(coder string, dict uint64) string {
	return fmt.Sprintf("7z %s dictionary of %s, over %d MiB: compress with -mx7 or a smaller -md", coder, windowText(dict), maxLZMADict>>20)
}

// newLZMAReader is the 7z LZMA coder, its dictionary checked first. The
// raw LZMA stream is decoded by internal/lzma2, held to the size the
// folder declares and checked at its end as 7z t checks it: the range
// decoder finished, an end marker (which bsdtar writes and 7z does not)
// sound, no bytes left in the pack stream.
func newLZMAReader(p []byte, size uint64, readers []io.ReadCloser) (io.ReadCloser, error) {
	if len(readers) != 1 || len(p) != 5 {
		return nil, errors.New("lzma: bad coder properties")
	}
	if dict := uint64(binary.LittleEndian.Uint32(p[1:])); dict > lzmaDictLimit {
		return nil, &coderError{RuleDecoderMemory, lzmaDictText("LZMA", dict)}
	}
	lr, err := lzma2.NewLZMAReader(readers[0], [5]byte(p), size)
	if err != nil {
		return nil, fmt.Errorf("lzma: bad coder properties: %w", err)
	}
	return readCloser{lr, readers[0]}, nil
}

// newLZMA2Reader is the 7z LZMA2 coder, its dictionary checked first. The
// raw LZMA2 stream is decoded by internal/lzma2 (about 1.4 times the speed
// of the xz decoder, itself four times the 7z reader's own), held to the
// size the folder declares: a stream that ends early or decodes to another
// size is an error, not a short file.
func newLZMA2Reader(p []byte, size uint64, readers []io.ReadCloser) (io.ReadCloser, error) {
	if len(readers) != 1 || len(p) != 1 || p[0] > 40 {
		return nil, errors.New("lzma2: bad coder properties")
	}
	dict := uint64(2|(p[0]&1)) << (p[0]/2 + 11)
	if p[0] == 40 {
		dict = 1<<32 - 1
	}
	if dict > lzmaDictLimit {
		return nil, &coderError{RuleDecoderMemory, lzmaDictText("LZMA2", dict)}
	}
	return readCloser{lzma2.NewReader(readers[0], int(dict), size), readers[0]}, nil
}

// readCloser reads from r and closes c.
type readCloser struct {
	r io.Reader
	c io.Closer
}

func (rc readCloser) Read(p []byte) (int, error) { return rc.r.Read(p) }
func (rc readCloser) Close() error               { return rc.c.Close() }

// openStream returns the decoder of a streaming format's outer layer (the
// reader itself for a plain tar or a rar), bounded by the rules.
func openStream(kind archiveKind, r io.Reader, lim Limits) (io.Reader, func(), error) {
	switch kind {
	case kindTarGz:
		g, err := newGzipMembers(r)
		if err != nil {
			return nil, nil, err
		}
		return g, func() { g.Close() }, nil
	case kindTarXz:
		xr, err := lzma2.NewXZReader(r, maxDictBytes)
		if err != nil {
			return nil, nil, err
		}
		return xr, func() {}, nil
	case kindTarZst:
		// One goroutine: the writes run in the staging writer's and the
		// archive's hash in the parent, so a decoder goroutine of its own
		// buys no wall time (klauspost's with two: 0.86 against 0.84 s
		// for a 256 MiB pack, 8% more CPU in copies and hand-offs).
		// internal/zstd's Reader keeps the window and two blocks (at
		// most 16.3 MiB, within the child's limit) and never moves its
		// history; a frame that claims or decodes to more than a pack
		// may hold in all is refused before its bytes are read.
		zr := zstd.NewReader(r, maxZstdWindow)
		zr.LimitFrames(uint64(lim.MaxTotalBytes) + 1)
		return zr, func() {}, nil
	}
	return r, func() {}, nil
}

// zerosToEnd reads r to its end and fails unless every byte is zero.
func zerosToEnd(r io.Reader) error {
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if slices.ContainsFunc(buf[:n], func(b byte) bool { return b != 0 }) {
			return &damageError{"bytes other than zeros after the last gzip member"}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// countEntries wraps a handler to count the entries it is given.
func (x *extraction) countEntries(h archives.FileHandler) archives.FileHandler {
	return func(ctx context.Context, fi archives.FileInfo) error {
		x.entries++
		return h(ctx, fi)
	}
}
