package intake

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"

	"github.com/klauspost/compress/zip"
	"golang.org/x/sync/errgroup"
)

// zipParallel is the second pass of a zip: the entries are independent,
// so they are inflated and written by one worker per core, each with its
// own buffer and file, every byte written once. The buffers are the
// workers', not the entries': a pack of 3,000 small files allocated (and
// cleared) 3 GiB when each entry had a buffer of its own. Names are
// admitted in directory order, as the first pass checked them; the limits
// are applied to every chunk under one lock, so the first limit crossed
// stops all.
//
// An entry of at most inlineEntry bytes is unpacked by the loop itself,
// not handed to a worker: creating a file takes its folder's lock in the
// kernel, and threads that create files in one folder at once spin on it.
// A pack of 3,000 small files cost 1.6 times the processor time unpacked
// by two workers (scripts/bench-extract.sh, small.zip), where inflating
// one such entry costs less than creating its file.
func (x *extraction) zipParallel(zr *zip.Reader) error {
	var mu sync.Mutex // guards x.check, x.done and progress calls
	g, ctx := errgroup.WithContext(x.ctx)
	workers := runtime.GOMAXPROCS(0)
	g.SetLimit(workers)
	bufs := make(chan []byte, workers) // the free buffers; at most one per worker is made
	for range workers {
		bufs <- nil
	}
	root := x.w.root
	var inlineBuf []byte // the loop's own buffer, for small entries
	for _, f := range zr.File {
		if ctx.Err() != nil {
			break
		}
		fi := f.FileInfo()
		typ := modeType(fi.Mode())
		var declared int64
		if typ == typeFile {
			declared = int64(f.UncompressedSize64)
		}
		mu.Lock()
		name, act, max, idx, ok := x.check.admit(f.Name, typ, declared)
		mu.Unlock()
		if !ok {
			g.Go(func() error { return errStop })
			break
		}
		switch act {
		case actMkdir:
			if err := x.w.dirs.mkdirAll(root, name); err != nil {
				g.Go(func() error { return &writeError{err} })
			}
		case actWrite:
			if f.UncompressedSize64 <= inlineEntry {
				if inlineBuf == nil {
					// Entries of up to inlineEntry bytes, read whole (a larger
					// one, which its header hid, in as many reads as it takes).
					inlineBuf = make([]byte, inlineEntry)
				}
				if err := x.zipEntry(ctx, &mu, root, f, name, idx, max, inlineBuf); err != nil {
					g.Go(func() error { return err })
				}
				continue
			}
			g.Go(func() error {
				buf := <-bufs
				if buf == nil {
					buf = make([]byte, copyBufferSize)
				}
				defer func() { bufs <- buf }()
				return x.zipEntry(ctx, &mu, root, f, name, idx, max, buf)
			})
		}
	}
	return g.Wait()
}

// inlineEntry is the size (declared; the limits still count every byte
// read) up to which zipParallel unpacks an entry itself.
const inlineEntry = 64 << 10

// zipEntry inflates one entry into a new file of its own, through buf.
func (x *extraction) zipEntry(ctx context.Context, mu *sync.Mutex, root *os.Root, f *zip.File, name string, idx int, max int64, buf []byte) error {
	rc, err := f.Open()
	if err != nil {
		return x.corruptLocked(mu, name, err)
	}
	defer rc.Close()
	out, err := x.w.dirs.create(root, name)
	if err != nil {
		return &writeError{err}
	}
	keep, handed := true, false
	defer func() {
		if !handed {
			out.Close() // here only on the way out of a failure
		}
		if !keep {
			root.Remove(filepath.FromSlash(name))
		}
	}()
	packed := zipPacked(f.Method, f.CompressedSize64)
	// The reader skips the CRC-32 check when the stored value is 0, as it
	// is for an empty entry: for any other, compare it here.
	var sum hash.Hash32
	if f.CRC32 == 0 && f.UncompressedSize64 > 0 {
		sum = crc32.NewIEEE()
	}
	var done int64
	var wb writeback // out's writeback
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, rerr := fillBuffer(rc, buf)
		if sum != nil {
			sum.Write(buf[:n])
		}
		if n > 0 {
			done += int64(n)
			mu.Lock()
			write, ok := x.check.grow(name, idx, max, done, int64(n), packed)
			x.produced(n)
			mu.Unlock()
			if !ok {
				keep = false
				return errStop
			}
			if !write {
				keep = false
				return nil // over its own cap: nothing forces us to read on
			}
			if _, err := writeChunks(out, buf[:n]); err != nil {
				return &writeError{fmt.Errorf("write %s: %w", name, err)}
			}
			wb.wrote(out, int64(n), x.w.writeback)
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			keep = false
			return x.corruptLocked(mu, name, entryDamage(rerr, done, int64(f.UncompressedSize64)))
		}
	}
	if sum != nil && sum.Sum32() != f.CRC32 {
		keep = false
		return x.corruptLocked(mu, name, crcMismatch(f.CRC32, sum.Sum32()))
	}
	handed = true // the list closes it, with an error or not
	if err := x.w.written.add(out, name); err != nil {
		return &writeError{err}
	}
	return nil
}

// corruptLocked is corrupt for a worker of zipParallel, under mu.
func (x *extraction) corruptLocked(mu *sync.Mutex, entry string, err error) error {
	mu.Lock()
	defer mu.Unlock()
	return x.corrupt(entry, err)
}

// zipHeaderProblems checks what a zip says twice, as unzip does: each
// entry's local header must agree with its central directory record on
// the name, the method, encryption and, unless a data descriptor follows
// the data, the CRC-32 and both sizes; no entry's data may run into the
// next entry; and the archive must be whole, on one disk. The reader
// trusts the central directory alone, so without this a damaged local
// header, which other tools read, would pass unseen.
func zipHeaderProblems(r io.ReaderAt, size int64, zr *zip.Reader) []Problem {
	var problems []Problem
	if v := zipEndProblem(r, size); v != "" {
		problems = append(problems, Problem{Rule: RuleCorrupt, Value: v})
	}
	type span struct {
		name       string
		start, end int64
	}
	spans := make([]span, 0, len(zr.File))
	var scratch []byte // one buffer for every entry's search
	for _, f := range zr.File {
		d, err := f.DataOffset()
		if err != nil {
			problems = append(problems, Problem{Entry: f.Name, Rule: RuleCorrupt, Value: "no local header where the central directory says: " + err.Error()})
			continue
		}
		h, v := zipLocalHeader(r, f, d, &scratch)
		if v != "" {
			problems = append(problems, Problem{Entry: f.Name, Rule: RuleCorrupt, Value: v})
			continue
		}
		spans = append(spans, span{f.Name, h, d + int64(f.CompressedSize64)})
	}
	slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.start, b.start) })
	for i := 1; i < len(spans); i++ {
		if prev := spans[i-1]; prev.end > spans[i].start {
			problems = append(problems, Problem{Entry: prev.name, Rule: RuleCorrupt,
				Value: fmt.Sprintf("its data runs into the local header of %s", printable(spans[i].name))})
		}
	}
	return problems
}

// Zip record signatures and lengths.
const (
	zipLocalSig   = 0x04034b50
	zipLocalLen   = 30
	zipEndSig     = 0x06054b50
	zipEndLen     = 22
	zipNoDescSize = 0xffffffff // a size kept in the zip64 extra field
)

// zipEndProblem checks the end of central directory record found as the
// zip reader finds it: an archive split over disks is not whole.
func zipEndProblem(r io.ReaderAt, size int64) string {
	n := min(size, 65*1024)
	buf := make([]byte, n)
	if _, err := r.ReadAt(buf, size-n); err != nil && err != io.EOF {
		return "" // the reader reported it already
	}
	for i := len(buf) - zipEndLen; i >= 0; i-- {
		if binary.LittleEndian.Uint32(buf[i:]) != zipEndSig {
			continue
		}
		if l := int(binary.LittleEndian.Uint16(buf[i+20:])); i+zipEndLen+l > len(buf) {
			continue
		}
		e := buf[i:]
		disk, dirDisk := binary.LittleEndian.Uint16(e[4:]), binary.LittleEndian.Uint16(e[6:])
		here, all := binary.LittleEndian.Uint16(e[8:]), binary.LittleEndian.Uint16(e[10:])
		// 0xffff: the value is in the zip64 end record.
		split := (disk != 0 && disk != 0xffff) || (dirDisk != 0 && dirDisk != 0xffff)
		if split || (here != all && here != 0xffff && all != 0xffff) {
			return fmt.Sprintf("the end record says disk %d, directory on disk %d, %d of %d entries here: a split archive, or a damaged one", disk, dirDisk, here, all)
		}
		return ""
	}
	return ""
}

// zipLocalHeader finds the local header of f, the one whose name and
// extra field end at d, where the reader found f's data, and compares it
// with the central directory. It returns the header's offset, or what
// disagrees. It reads into *scratch, grown when too short.
func zipLocalHeader(r io.ReaderAt, f *zip.File, d int64, scratch *[]byte) (int64, string) {
	mismatch := "no local header ends where its data begins"
	for _, window := range []int64{zipLocalLen + int64(len(f.Name)) + 1024, zipLocalLen + 2*0xffff} {
		start := max(0, d-window)
		if int64(cap(*scratch)) < d-start {
			*scratch = make([]byte, d-start)
		}
		buf := (*scratch)[:d-start]
		if _, err := r.ReadAt(buf, start); err != nil {
			return 0, "local header unreadable: " + err.Error()
		}
		for i := len(buf) - zipLocalLen; i >= 0; i-- {
			h := buf[i:]
			if binary.LittleEndian.Uint32(h) != zipLocalSig {
				continue
			}
			nameLen := int(binary.LittleEndian.Uint16(h[26:]))
			extraLen := int(binary.LittleEndian.Uint16(h[28:]))
			if zipLocalLen+nameLen+extraLen != len(h) {
				continue
			}
			if v := zipLocalMismatch(h, f); v != "" {
				mismatch = v
				continue
			}
			return start + int64(i), ""
		}
		if mismatch != "no local header ends where its data begins" || start == 0 {
			break
		}
	}
	return 0, mismatch
}

// zipLocalMismatch compares the local header h (its name and extra field
// follow) with f's central directory record.
func zipLocalMismatch(h []byte, f *zip.File) string {
	flags := binary.LittleEndian.Uint16(h[6:])
	method := binary.LittleEndian.Uint16(h[8:])
	crc := binary.LittleEndian.Uint32(h[14:])
	csize := binary.LittleEndian.Uint32(h[18:])
	usize := binary.LittleEndian.Uint32(h[22:])
	nameLen := int(binary.LittleEndian.Uint16(h[26:]))
	name := string(h[zipLocalLen : zipLocalLen+nameLen])
	const disagree = "local header and central directory disagree on "
	switch {
	case name != f.Name:
		return disagree + "the name: " + printable(name)
	case method != f.Method:
		return fmt.Sprintf(disagree+"the method: %d and %d", method, f.Method)
	case flags&0x1 != f.Flags&0x1:
		return disagree + "encryption"
	case flags&0x8 != 0:
		return "" // a data descriptor after the data holds the rest
	case crc != f.CRC32:
		return fmt.Sprintf(disagree+"the CRC-32: %08x and %08x", crc, f.CRC32)
	case csize != zipNoDescSize && uint64(csize) != f.CompressedSize64:
		return fmt.Sprintf(disagree+"the compressed size: %d and %d bytes", csize, f.CompressedSize64)
	case usize != zipNoDescSize && uint64(usize) != f.UncompressedSize64:
		return fmt.Sprintf(disagree+"the size: %d and %d bytes", usize, f.UncompressedSize64)
	}
	return ""
}
