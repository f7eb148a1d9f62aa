package intake

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/bodgit/sevenzip"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zip"
	"github.com/mholt/archives"
	"github.com/nwaples/rardecode/v2"

	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
	"github.com/mjolnir-forge/forgesync/internal/lzma2"
	"github.com/mjolnir-forge/forgesync/internal/zstd"
)

// Staged is a pack archive extracted into a private staging folder. Nothing
// in it has reached the game's folders; Remove deletes it.
type Staged struct {
	Dir    string // the private staging folder (mode 0700)
	Root   string // the pack root: Dir or its one top-level folder; holds forgepack.json
	Files  []File // the pack's files relative to Root, sorted by path; each of mode stagedPerm
	SHA256 string // hex SHA-256 of the archive's bytes, computed while reading
	Format string // the archive format by content, e.g. ".zip" or ".tar.zst"
	// Ignored are the files of OSAdded in the archive (slash paths as
	// stored): read, never extracted.
	Ignored []string

	syncFSLeft bool // the files are written, not flushed: extractOptions.leaveSyncFS
}

// stagedPerm is the mode of every staged file: the mode it is installed
// with, readable by a game running as another user. Staging's folders are
// private (0700), so nobody else reads it there; it is set when the file
// is created, so that installing each file costs a rename and no chmod
// (a pack of 3,000 files spent 60 ms of its 0.48 CPU-s in chmod). Under a
// umask that takes bits from it, and after anything a child did to a
// mode, the parent sets it again (verifyStaged finds those files).
const stagedPerm = 0o644

// Remove deletes the staging folder and everything in it.
func (s *Staged) Remove() error {
	// File by file, each retried, when a scanner holds one for a moment.
	if err := atomicfile.RemoveAll(atomicfile.Renamer{}, s.Dir); err != nil {
		return fmt.Errorf("remove staging %s: %w", s.Dir, err)
	}
	return nil
}

const (
	// copyBufferSize is the one buffer an extraction streams through; large
	// writes keep system calls few.
	copyBufferSize = 1 << 20
	// maxDictBytes bounds the xz and rar dictionary a decoder may
	// allocate, so an archive cannot make us allocate what it likes. xz -7
	// (16 MiB) is the largest preset that fits; the default, xz -6, uses
	// 8 MiB. Measured: xz -8 (32 MiB) peaks near 80 MiB resident.
	maxDictBytes = 16 << 20
	// maxZstdWindow bounds the zstd window: every level up to 19 uses at
	// most 8 MiB; --long and --ultra need more and are refused. Measured:
	// a 16 MiB window peaks near 35 MiB resident, 32 MiB near 110 MiB.
	maxZstdWindow = 16 << 20
	// readAheadSlack is added to the compressed bytes measured for an entry
	// of a compressed stream: decoders read input in blocks, so an entry's
	// first bytes may come from input read while the entry before it
	// streamed. Without it a well-compressed entry after a small one could
	// look like a bomb for its first megabytes.
	readAheadSlack = 64 << 10
)

// errStop ends an extraction early after a problem was recorded.
var errStop = errors.New("stop extraction")

// removeStaging removes a staging folder that will not be used: file by
// file, each remove retried, when a virus scanner holds one for a moment
// (os.RemoveAll gives up at the first). Tests wrap it.
var removeStaging = func(dir string) error { return atomicfile.RemoveAll(atomicfile.Renamer{}, dir) }

// newStaging creates a private staging folder under parent.
func newStaging(parent string) (string, error) {
	staging, err := os.MkdirTemp(parent, "intake-")
	if err != nil {
		return "", fmt.Errorf("create staging: %w", err)
	}
	if err := os.Chmod(staging, 0o700); err != nil {
		removeStaging(staging)
		return "", err
	}
	return staging, nil
}

// openArchive opens the archive and checks that it is a regular file.
func openArchive(archivePath string) (*os.File, int64, error) {
	f, err := os.Open(archivePath)
	if err != nil {
		return nil, 0, fmt.Errorf("extract %s: %w", archivePath, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, fmt.Errorf("extract %s: %w", archivePath, err)
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, 0, &RejectError{Archive: archivePath, Problems: []Problem{{Rule: RuleNotArchive, Value: "not a regular file"}}}
	}
	return f, st.Size(), nil
}

// extractOptions are how extractAt works.
type extractOptions struct {
	progress  func(done, total int64) // called as entry bytes are produced; may be nil
	hash      bool                    // hash the archive (a child's parent hashes it itself)
	writeback int64                   // bytes a second whose writing to disk starts while unpacking (see writeback); 0: none
	// leaveSyncFS leaves the one flush of the staging file system that a
	// pack of many files gets (see syncList.flush) to the caller, which
	// Staged.syncFSLeft then asks for: the parent of a child, which runs
	// it beside its own checks of the staged files.
	leaveSyncFS bool
}

// extractAt is Extract in this process, into the empty folder staging,
// which the caller removes on error. A rejection for the pack's files
// alone carries the manifest's bytes (see RejectError.Manifest).
func extractAt(ctx context.Context, archivePath, staging string, lim Limits, opts extractOptions) (_ *Staged, err error) {
	f, size, err := openArchive(archivePath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	defer func() {
		var re *RejectError
		if errors.As(err, &re) && !slices.ContainsFunc(re.Problems, SizeProblem) {
			// Only to name the pack in the rejection: an archive whose
			// manifest cannot be read is rejected all the same.
			re.Manifest, _ = readManifest(ctx, archivePath)
		}
	}()

	kind, why, err := identify(f)
	if err != nil {
		return nil, fmt.Errorf("extract %s: %w", archivePath, err)
	}
	if kind == kindUnknown {
		return nil, &RejectError{Archive: archivePath, Problems: []Problem{{Rule: RuleNotArchive, Value: why}}}
	}

	root, err := os.OpenRoot(staging)
	if err != nil {
		return nil, fmt.Errorf("extract %s: %w", archivePath, err)
	}
	defer root.Close()

	x := &extraction{
		ctx:      ctx,
		check:    newPackCheck(lim),
		progress: opts.progress,
		w:        newStagingWriter(root, newWritebackPace(opts.writeback), opts.leaveSyncFS),
		kind:     kind,
		hash:     opts.hash,
	}
	sum, err := x.run(f, size)
	if werr := x.w.wait(err == nil); werr != nil && (err == nil || errors.Is(err, errStop) || errors.Is(err, errRejectedRead)) {
		err = werr // our disk failed: a failure, not a rejection
	}
	stopped := errors.Is(err, errStop) || errors.Is(err, errRejectedRead)
	switch {
	case err == nil, stopped:
	case ctx.Err() != nil:
		return nil, fmt.Errorf("extract %s: %w", archivePath, ctx.Err())
	default:
		return nil, fmt.Errorf("extract %s: %w", archivePath, err)
	}
	packRoot, files, problems := x.check.finish()
	if len(problems) > 0 {
		return nil, &RejectError{Archive: archivePath, Problems: problems, Ignored: x.check.ignored}
	}
	if stopped {
		return nil, fmt.Errorf("extract %s: stopped without a recorded problem", archivePath)
	}
	return &Staged{
		Dir:        staging,
		Root:       filepath.Join(staging, filepath.FromSlash(packRoot)),
		Files:      files,
		SHA256:     sum,
		Format:     kind.String(),
		Ignored:    x.check.ignored,
		syncFSLeft: x.w.syncFSLeft,
	}, nil
}

// archiveKind is a supported archive format.
type archiveKind int

const (
	kindUnknown archiveKind = iota
	kindZip
	kind7z
	kindTar
	kindTarGz
	kindTarXz
	kindTarZst
	kindRar
)

func (k archiveKind) String() string {
	return [...]string{"unknown", ".zip", ".7z", ".tar", ".tar.gz", ".tar.xz", ".tar.zst", ".rar"}[k]
}

// streaming reports whether the format is read front to back, so that the
// bytes of an entry we skip still pass through the decompressor.
func (k archiveKind) streaming() bool { return k != kindZip && k != kind7z }

// errRejectedRead marks a read error of the archive itself (damaged data),
// recorded as a problem rather than returned as a failure.
var errRejectedRead = errors.New("archive read failed")

// extraction is the state of one Extract call. It is used by one goroutine.
type extraction struct {
	ctx      context.Context
	check    *packCheck
	progress func(done, total int64)
	w        *stagingWriter
	kind     archiveKind
	read     atomic.Int64 // archive bytes read so far, at the file
	entries  int          // entries handed to handle so far
	hash     bool         // hash the archive (the parent of a child does)
	done     int64        // entry bytes produced so far
	total    int64        // expected entry bytes, 0 when unknown
}

// run extracts the archive from f and returns the hex SHA-256 of f.
func (x *extraction) run(f *os.File, size int64) (string, error) {
	h := sha256.New()
	if !x.kind.streaming() {
		return x.runRandomAccess(f, size, h)
	}
	if x.kind == kindTarZst {
		if w, ok := firstZstdWindow(f); ok && w > maxZstdWindow {
			x.check.add("", RuleDecoderMemory, zstdWindowText(w))
			x.check.stopped = true
			return "", errRejectedRead
		}
	}
	var r io.Reader = &countingReader{r: f, n: &x.read}
	if x.hash {
		r = io.TeeReader(r, h)
	}
	src, closeSrc, err := openStream(x.kind, r, x.check.lim)
	if err != nil {
		return "", x.corrupt("", err)
	}
	defer closeSrc()
	if x.kind == kindRar {
		err = extractRar(x.ctx, src, x.handle)
	} else {
		ends := &endReader{r: src}
		err = archives.Tar{}.Extract(x.ctx, ends, x.countEntries(x.handle))
		notTar := errors.Is(err, tar.ErrHeader) || (ends.ended && errors.Is(err, io.ErrUnexpectedEOF))
		if notTar && x.entries == 0 && x.kind != kindTar {
			x.check.add("", RuleNotArchive, "a compressed file that holds no tar archive")
			x.check.stopped = true
			return "", errRejectedRead
		}
	}
	if err = x.readErr(err); err != nil {
		return "", err
	}
	// Read the decoder to its end: a gzip member's CRC-32 and length, a
	// zstd frame's checksum and an xz block's check are verified only
	// there, after the tar end marker and its padding.
	if err = x.drain(src); err != nil {
		return "", err
	}
	if !x.hash {
		return "", nil
	}
	// Hash what the decoders left unread (bytes after the last stream).
	if _, err := io.Copy(io.Discard, r); err != nil {
		return "", x.corrupt("", err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// drain reads src, the decoder of a streaming archive whose last entry
// was read, to its end, so the checks each format keeps in its trailers
// run. The bytes it yields after the archive's end marker count against
// the pack's limits like an entry's, so a stream cannot hide a bomb there.
func (x *extraction) drain(src io.Reader) error {
	if x.kind == kindTar || x.kind == kindRar {
		return nil // no decoder of our own: src is the file
	}
	buf := x.w.buffer()
	defer x.w.release(buf)
	start := x.read.Load()
	var done int64
	for {
		if err := x.ctx.Err(); err != nil {
			return err
		}
		n, rerr := fillBuffer(src, buf)
		if n > 0 {
			done += int64(n)
			packed := x.read.Load() - start + readAheadSlack
			if _, ok := x.check.grow("", -1, x.check.lim.MaxEntryBytes, done, int64(n), packed); !ok {
				return errStop
			}
		}
		if rerr == io.EOF {
			return nil
		}
		if errors.Is(rerr, io.ErrUnexpectedEOF) {
			rerr = &damageError{"the compressed stream ends early, after the tar end marker"}
		}
		if rerr != nil {
			return x.corrupt("", entryDamage(rerr, done, -1))
		}
	}
}

// runRandomAccess extracts a zip or 7z: their headers come first, so every
// name, type and declared size is checked before anything is written, and
// the archive is hashed by a second sequential reader alongside.
func (x *extraction) runRandomAccess(f *os.File, size int64, h hash.Hash) (string, error) {
	hctx, cancel := context.WithCancel(x.ctx)
	defer cancel()
	hashed := x.hashAlongside(hctx, f, size, h)
	src := inMemory(f, size)
	err := x.headerPass(f, src, size)
	if err == nil {
		// Second pass: the bytes, checked as they stream; a zip's
		// entries in parallel.
		if x.kind == kindZip {
			var zr *zip.Reader
			if zr, err = openZip(io.NewSectionReader(src, 0, size), size); err == nil {
				err = x.zipParallel(zr)
			}
		} else {
			err = x.walk(&countingSection{SectionReader: io.NewSectionReader(src, 0, size), n: &x.read}, size, x.handle, nil)
		}
		err = x.readErr(err)
	}
	if err != nil {
		cancel()
		<-hashed
		return "", err
	}
	res := <-hashed
	if res.err != nil {
		return "", fmt.Errorf("hash: %w", res.err)
	}
	return res.sum, nil
}

// hashResult is the hex SHA-256 of an archive, or why it could not be
// computed.
type hashResult struct {
	sum string
	err error
}

// hashAlongside hashes the archive f of size bytes into h in a goroutine
// of its own, when x hashes, until ctx is done, and sends the result.
func (x *extraction) hashAlongside(ctx context.Context, f *os.File, size int64, h hash.Hash) <-chan hashResult {
	hashed := make(chan hashResult, 1)
	go func() {
		if !x.hash {
			hashed <- hashResult{}
			return
		}
		_, err := io.CopyBuffer(h, &ctxReader{ctx: ctx, r: io.NewSectionReader(f, 0, size)}, make([]byte, hashBuffer))
		hashed <- hashResult{hex.EncodeToString(h.Sum(nil)), err}
	}()
	return hashed
}

// inMemory returns what the passes over the archive f read: a small
// archive is read once, into memory, as its passes read each entry's
// local header three times and the central directory twice, 22,000 reads
// of a few bytes for a zip of 3,000 small files. A read that fails leaves
// the reads to the file.
func inMemory(f *os.File, size int64) io.ReaderAt {
	if size <= inMemoryArchive {
		b := make([]byte, size)
		if _, err := io.ReadFull(io.NewSectionReader(f, 0, size), b); err == nil {
			return bytes.NewReader(b)
		}
	}
	return f
}

// headerPass is the first pass over a zip or 7z read from src: headers
// only, and the coders of every 7z folder (in f), their ids checked
// against the allowlist before the 7z reader builds any. A problem it
// finds ends the extraction: x.check becomes its check, and it returns
// errStop.
func (x *extraction) headerPass(f *os.File, src io.ReaderAt, size int64) error {
	pre := newPackCheck(x.check.lim)
	if x.kind == kind7z {
		if err := x.readErr(check7zCoders(f, size)); err != nil {
			return err
		}
	}
	var first archives.FileHandler // nil: a zip's first pass, which checks its headers
	if x.kind == kind7z {
		first = x.headerCheck(pre)
	}
	err := x.walk(&countingSection{SectionReader: io.NewSectionReader(src, 0, size), n: new(atomic.Int64)}, size, first, pre)
	if errors.Is(err, errStop) {
		x.check = pre
	}
	if err = x.readErr(err); err != nil {
		return err
	}
	if _, _, problems := pre.finish(); len(problems) > 0 {
		x.check = pre
		return errStop
	}
	return nil
}

// walk hands every entry of the zip or 7z in r, of size bytes, to handle.
// A nil handle is a zip's first pass: what the zip says twice must agree,
// then the names, into pre.
func (x *extraction) walk(r *countingSection, size int64, handle archives.FileHandler, pre *packCheck) error {
	if x.kind == kind7z {
		return archives.SevenZip{}.Extract(x.ctx, r, handle)
	}
	zr, err := openZip(r, size)
	if err != nil {
		return err
	}
	if handle == nil {
		pre.problems = append(pre.problems, zipHeaderProblems(r, size, zr)...)
		handle = x.headerCheck(pre)
	}
	return walkZip(x.ctx, zr, handle)
}

// headerCheck returns the first pass's handler: every entry's name, type
// and declared size admitted by pre, and the coders of every 7z folder
// built (opening a folder's first file checks their properties; nothing is
// decoded).
func (x *extraction) headerCheck(pre *packCheck) archives.FileHandler {
	folders := map[int]bool{}
	return func(ctx context.Context, fi archives.FileInfo) error {
		typ := entryTypeOf(fi)
		if isEncrypted(fi) {
			pre.add(fi.NameInArchive, RuleEncrypted, "")
		}
		if zh, ok := fi.Header.(zip.FileHeader); ok && zh.Method != zipStore && zh.Method != zipDeflate && zh.Method != zipZstd {
			pre.add(fi.NameInArchive, RuleMethod, zipMethodText(zh.Method))
		}
		var declared int64
		if typ == typeFile {
			declared = fi.Size()
			x.total += declared
		}
		if _, _, _, _, ok := pre.admit(fi.NameInArchive, typ, declared); !ok {
			return errStop
		}
		if sh, ok := fi.Header.(sevenzip.FileHeader); ok && typ == typeFile && declared > 0 && !folders[sh.Stream] {
			// Opening the folder's first file builds its coders,
			// which check their properties; nothing is decoded.
			folders[sh.Stream] = true
			rc, err := fi.Open()
			if err != nil {
				return err
			}
			rc.Close()
		}
		return nil
	}
}

// extractRar walks a rar archive like archives.Rar does, but with the
// decoder's dictionary bounded: rar 5 allows dictionaries of gigabytes.
func extractRar(ctx context.Context, r io.Reader, handle archives.FileHandler) error {
	rr, err := rardecode.NewReader(r, rardecode.MaxDictionarySize(maxDictBytes))
	if err != nil {
		return err
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		h, err := rr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		info := rarInfo{h}
		err = handle(ctx, archives.FileInfo{
			FileInfo:      info,
			Header:        h,
			NameInArchive: h.Name,
			Open:          func() (fs.File, error) { return rarFile{rr, info}, nil },
		})
		if err != nil {
			return fmt.Errorf("%s: %w", h.Name, err)
		}
	}
}

// rarInfo is the fs.FileInfo of a rar entry.
type rarInfo struct{ h *rardecode.FileHeader }

func (i rarInfo) Name() string       { return path.Base(i.h.Name) }
func (i rarInfo) Size() int64        { return i.h.UnPackedSize }
func (i rarInfo) Mode() fs.FileMode  { return i.h.Mode() }
func (i rarInfo) ModTime() time.Time { return i.h.ModificationTime }
func (i rarInfo) IsDir() bool        { return i.h.IsDir }
func (i rarInfo) Sys() any           { return nil }

// rarFile reads the current rar entry.
type rarFile struct {
	r    io.Reader
	info rarInfo
}

func (f rarFile) Read(p []byte) (int, error) { return f.r.Read(p) }
func (f rarFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f rarFile) Close() error               { return nil }

// readErr sorts an error from an archives Extract call: our own stop and
// write failures pass through; anything else is damage in the archive.
func (x *extraction) readErr(err error) error {
	var we *writeError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, errStop), errors.Is(err, errRejectedRead), errors.As(err, &we):
		return err
	case x.ctx.Err() != nil:
		return x.ctx.Err()
	}
	return x.corrupt("", err)
}

// corrupt records damage in the archive, or a decoder that would need
// more memory than we allow, and returns errRejectedRead.
func (x *extraction) corrupt(entry string, err error) error {
	var ce *coderError
	var de *damageError
	var xf *lzma2.FilterError
	var ze *zstd.Error
	switch {
	case errors.As(err, &ce):
		x.check.add(entry, ce.rule, ce.value)
	case errors.As(err, &de):
		x.check.add(entry, RuleCorrupt, de.value)
	case errors.As(err, &ze) && errors.Is(err, zstd.ErrCorrupt):
		x.check.add(entry, RuleCorrupt, "zstd stream damaged in "+ze.Where()+": "+ze.What)
	case errors.As(err, &ze) && errors.Is(err, zstd.ErrDictionary):
		x.check.add(entry, RuleMethod, "zstd "+ze.Where()+" needs a dictionary: compress without --dict")
	case errors.Is(err, zstd.ErrSize):
		// A frame that says or makes more than the pack may hold in all
		// (the decoder's memory is bounded by that limit).
		x.check.add(entry, RuleTotalTooLarge, "a zstd frame of more than the "+sizeText(x.check.lim.MaxTotalBytes)+" a pack may hold in all")
	case errors.Is(err, zstd.ErrWindow):
		x.check.add(entry, RuleDecoderMemory, fmt.Sprintf("zstd window over %d MiB: compress without --long or --ultra", maxZstdWindow>>20))
	case errors.As(err, &xf):
		x.check.add(entry, RuleMethod, "xz filter "+xf.Name+": use xz without a filter option, or with --x86 or --delta")
	case errors.Is(err, lzma2.ErrDictTooLarge):
		x.check.add(entry, RuleDecoderMemory, fmt.Sprintf("xz dictionary over %d MiB: compress with xz -6", maxDictBytes>>20))
	case errors.Is(err, rardecode.ErrDictionaryTooLarge):
		x.check.add(entry, RuleDecoderMemory, fmt.Sprintf("rar dictionary over %d MiB: use a smaller dictionary", maxDictBytes>>20))
	default:
		x.check.add(entry, RuleCorrupt, err.Error())
	}
	x.check.stopped = true
	return errRejectedRead
}

// writeError is a failure to write into staging: our disk, not the archive.
type writeError struct{ err error }

func (e *writeError) Error() string { return e.err.Error() }
func (e *writeError) Unwrap() error { return e.err }

// handle is the archives.FileHandler of the second pass.
func (x *extraction) handle(ctx context.Context, fi archives.FileInfo) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	typ := entryTypeOf(fi)
	var declared int64
	if typ == typeFile {
		declared = fi.Size()
	}
	name, act, max, idx, ok := x.check.admit(fi.NameInArchive, typ, declared)
	if !ok {
		return errStop
	}
	if isSparse(fi) {
		// Holes would expand from nothing; the tar reader skips the
		// entry's stored bytes without expanding them.
		x.check.add(name, RuleSparse, "")
		return nil
	}
	if isEncrypted(fi) {
		x.check.add(name, RuleEncrypted, "")
		act = actSkip
		if x.kind == kindRar {
			return errStop // rar cannot skip what it cannot decrypt
		}
	}
	switch act {
	case actMkdir:
		return x.w.send(writeOp{kind: opMkdir, name: name})
	case actWrite:
		return x.copy(fi, name, idx, max, true)
	}
	if typ == typeFile && x.kind.streaming() {
		// The decoder must produce these bytes to reach the next entry:
		// count them against the limits without writing them.
		return x.copy(fi, name, -1, max, false)
	}
	return nil
}

// copy streams one entry through the limits and, when write is set, into
// a new file in staging through the writer goroutine.
func (x *extraction) copy(fi archives.FileInfo, name string, idx int, max int64, write bool) error {
	rc, err := fi.Open()
	if err != nil {
		return x.corrupt(name, err)
	}
	defer rc.Close()
	if write {
		if err := x.w.send(writeOp{kind: opCreate, name: name}); err != nil {
			return err
		}
	}
	c := entryCopy{x: x, name: name, idx: idx, max: max, write: write, packed: x.packedSize(fi)}
	// A 7z stores the CRC-32 of each file (0 when it stores none); its
	// reader neither compares it nor notices a folder that ends early.
	var sum hash.Hash32
	sh, is7z := fi.Header.(sevenzip.FileHeader)
	if is7z && sh.CRC32 != 0 {
		sum = crc32.NewIEEE()
	}
	for {
		if err := x.ctx.Err(); err != nil {
			return err
		}
		buf := x.w.buffer()
		n, rerr := fillBuffer(rc, buf)
		if sum != nil {
			sum.Write(buf[:n])
		}
		if n == 0 {
			x.w.release(buf)
		} else if more, err := c.take(buf, n); err != nil || !more {
			return err
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return x.corrupt(name, entryDamage(rerr, c.done, fi.Size()))
		}
	}
	if is7z {
		if c.done != int64(sh.UncompressedSize) {
			return x.corrupt(name, entryDamage(io.ErrUnexpectedEOF, c.done, int64(sh.UncompressedSize)))
		}
		if sum != nil && sum.Sum32() != sh.CRC32 {
			return x.corrupt(name, crcMismatch(sh.CRC32, sum.Sum32()))
		}
	}
	if c.write {
		return x.w.send(writeOp{kind: opClose})
	}
	return nil
}

// packedSize returns the function that gives the compressed size of the
// entry fi so far, for the ratio rule, or -1 when there is nothing to
// check. It is called as the entry streams.
func (x *extraction) packedSize(fi archives.FileInfo) func() int64 {
	if zh, ok := fi.Header.(zip.FileHeader); ok {
		packed := zipPacked(zh.Method, zh.CompressedSize64)
		return func() int64 { return packed }
	}
	// The archive bytes the decoder consumed meanwhile, plus slack for
	// what it read ahead before this entry began. A plain tar counts too:
	// a sparse entry (rejected, but drained) or a decoder that makes bytes
	// from nothing shows as a ratio.
	start := x.read.Load()
	return func() int64 { return x.read.Load() - start + readAheadSlack }
}

// zipPacked is the compressed size of a zip entry of method and
// compressed bytes, for the ratio rule: the reader never reads past it;
// -1 for a stored entry, whose ratio is 1.
func zipPacked(method uint16, compressed uint64) int64 {
	if method == zip.Store {
		return -1
	}
	return int64(compressed)
}

// entryCopy is one entry of copy as it streams: its bytes so far (done)
// and whether they are still written.
type entryCopy struct {
	x      *extraction
	name   string
	idx    int
	max    int64
	write  bool
	packed func() int64
	done   int64
}

// take hands the entry's next n bytes, read into buf, to the limits and,
// while the entry is written, to the writer, which then owns buf. It
// reports whether to read on: not past a limit (errStop), nor once an
// entry of a zip or 7z is over its own cap, as nothing forces us to read
// its bytes.
func (c *entryCopy) take(buf []byte, n int) (bool, error) {
	x := c.x
	c.done += int64(n)
	keep, ok := x.check.grow(c.name, c.idx, c.max, c.done, int64(n), c.packed())
	if !ok {
		x.w.release(buf)
		return false, errStop
	}
	if !keep && c.write {
		c.write = false
		if err := x.w.send(writeOp{kind: opDiscard}); err != nil {
			x.w.release(buf)
			return false, err
		}
		if !x.kind.streaming() {
			x.w.release(buf)
			return false, nil
		}
	}
	if c.write {
		if err := x.w.send(writeOp{kind: opWrite, buf: buf[:n]}); err != nil {
			return false, err
		}
	} else {
		x.w.release(buf)
	}
	x.produced(n)
	return true, nil
}

// produced counts n more entry bytes and reports the progress.
func (x *extraction) produced(n int) {
	x.done += int64(n)
	if x.progress != nil {
		x.progress(x.done, x.total)
	}
}

// fillBuffer reads from r until buf is full or r ends. Unlike io.ReadFull
// it returns io.EOF whenever r ends cleanly, after a partial buffer too,
// and every other error of r unchanged: an io.ErrUnexpectedEOF from a
// decoder is a stream cut short, never the end of an entry.
func fillBuffer(r io.Reader, buf []byte) (int, error) {
	n, idle := 0, 0
	for n < len(buf) {
		m, err := r.Read(buf[n:])
		n += m
		if err != nil {
			return n, err
		}
		if m > 0 {
			idle = 0
		} else if idle++; idle >= 100 {
			return n, io.ErrNoProgress
		}
	}
	return n, nil
}

// damageError is damage found in one entry's bytes, as the value of a
// RuleCorrupt problem.
type damageError struct{ value string }

func (e *damageError) Error() string { return e.value }

// entryDamage says what err, met after done bytes of an entry that
// declared declared, means: a stream or entry cut short, or bytes that
// fail their CRC-32. Other errors are returned as they are.
func entryDamage(err error, done, declared int64) error {
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) && declared > 0 && done < declared:
		return &damageError{fmt.Sprintf("data ends after %d of %d bytes declared", done, declared)}
	case errors.Is(err, io.ErrUnexpectedEOF):
		return &damageError{fmt.Sprintf("the stream ends early, cut after %d bytes", done)}
	case errors.Is(err, zip.ErrChecksum):
		return &damageError{"CRC-32 mismatch: the bytes are not the ones stored"}
	case errors.Is(err, gzip.ErrChecksum):
		return &damageError{"gzip CRC-32 or length mismatch: the bytes are not the ones stored"}
	case errors.Is(err, zstd.ErrChecksum):
		return &damageError{"zstd checksum mismatch: the bytes are not the ones stored"}
	case errors.Is(err, zip.ErrFormat):
		// What a zip entry's reader says of data past the declared size.
		return &damageError{fmt.Sprintf("data runs on past the %d bytes declared", declared)}
	}
	return err
}

// crcMismatch is the damage of bytes whose CRC-32 is not the stored one.
func crcMismatch(stored, got uint32) error {
	return &damageError{fmt.Sprintf("CRC-32 mismatch: stored %08x, the bytes give %08x", stored, got)}
}

// entryTypeOf reads the entry type from the format's own header where the
// generic mode loses it (a tar hard link looks like a regular file).
func entryTypeOf(fi archives.FileInfo) entryType {
	if h, ok := fi.Header.(*tar.Header); ok {
		switch h.Typeflag {
		case tar.TypeReg: // archive/tar reads the old TypeRegA as TypeReg (or TypeDir)
			return typeFile
		case tar.TypeDir:
			return typeDir
		case tar.TypeSymlink:
			return typeSymlink
		case tar.TypeLink:
			return typeHardLink
		case tar.TypeGNUSparse:
			return typeFile // rejected by isSparse, with its own rule
		case tar.TypeChar, tar.TypeBlock:
			return typeDevice
		case tar.TypeFifo:
			return typeFIFO
		}
		return typeOther
	}
	return modeType(fi.Mode())
}

// isSparse reports whether the entry is a sparse tar file, in the old GNU
// form or the PAX one (which archive/tar expands silently).
func isSparse(fi archives.FileInfo) bool {
	h, ok := fi.Header.(*tar.Header)
	if !ok {
		return false
	}
	if h.Typeflag == tar.TypeGNUSparse {
		return true
	}
	for k := range h.PAXRecords {
		if strings.HasPrefix(k, "GNU.sparse.") {
			return true
		}
	}
	return false
}

// isEncrypted reports whether the entry's data is encrypted.
func isEncrypted(fi archives.FileInfo) bool {
	switch h := fi.Header.(type) {
	case zip.FileHeader:
		return h.Flags&0x1 != 0
	case *rardecode.FileHeader:
		return h.Encrypted
	}
	return false
}

// modeType maps file mode bits to an entry type.
func modeType(m fs.FileMode) entryType {
	switch {
	case m&fs.ModeSymlink != 0:
		return typeSymlink
	case m&fs.ModeDevice != 0, m&fs.ModeCharDevice != 0:
		return typeDevice
	case m&fs.ModeNamedPipe != 0:
		return typeFIFO
	case m&fs.ModeSocket != 0:
		return typeSocket
	case m.IsDir():
		return typeDir
	case m.IsRegular():
		return typeFile
	}
	return typeOther
}

// endReader notes whether r ended cleanly: a compressed stream that
// decoded whole but held no tar header is not a tar, not a damaged one.
type endReader struct {
	r     io.Reader
	ended bool
}

func (e *endReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	e.ended = e.ended || err == io.EOF
	return n, err
}

// countingReader counts the bytes read from r into n.
type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// inMemoryArchive is the largest zip or 7z archive read into memory whole
// (see runRandomAccess); a variable for the tests of the other path.
var inMemoryArchive int64 = 4 << 20

// countingSection is a SectionReader that counts the bytes read through
// ReadAt and Read into n: the compressed bytes consumed so far.
type countingSection struct {
	*io.SectionReader
	n *atomic.Int64
}

func (c *countingSection) Read(p []byte) (int, error) {
	n, err := c.SectionReader.Read(p)
	c.n.Add(int64(n))
	return n, err
}

func (c *countingSection) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.SectionReader.ReadAt(p, off)
	c.n.Add(int64(n))
	return n, err
}

// ctxReader stops reading when ctx is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
