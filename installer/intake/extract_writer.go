package intake

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
)

// stagingWriter writes extracted files into the staging folder from its
// own goroutine, so that the disk writes of one chunk overlap with reading
// and decompressing the next. It writes only through root. Operations run
// in the order they are sent; the first error stops all later ones and is
// returned by the next call (or by wait).
//
// The staged files are durable when wait returns, before anything is
// placed or published: the kernel is asked to write each chunk back to
// disk as soon as it is written (Linux), so the disk works while the next
// chunks are decoded, and wait then flushes every file (fsync), which by
// then has little left to wait for. One file at a time would cost a
// journal commit per file; a pack of many small files pays about one.
// Only a child's writer (leaveSyncFS) leaves that flush, where it is one
// of the whole file system, to the parent: the files are then durable
// when Extractor.Extract returns.
//
// Memory: a fixed set of buffers circulates between the reader (take,
// write) and the goroutine (which hands them back), so at most
// writerBuffers × copyBufferSize bytes are in flight.
type stagingWriter struct {
	root      *os.Root
	writeback *writebackPace // the early writeback's pace (see writeback)
	ops       chan writeOp
	free      chan []byte
	done      chan struct{}

	mu  sync.Mutex // guards err
	err error

	dirs    madeDirs // folders created, by the goroutine or a zip's workers
	written syncList // files written and closed, for wait to flush

	leaveSyncFS bool // wait leaves a flush of the whole file system to the caller
	syncFSLeft  bool // wait did: the files are written, not flushed
}

// madeDirs creates the staging folders, each once: a pack of many small
// files would otherwise ask for its folder again with every file. It
// holds the first heldFolders folders files were created in open, so that
// a file is created with one system call relative to its folder: through
// the staging root, a file in content/ took three (open the folder,
// create the file in it, close the folder).
type madeDirs struct {
	mu   sync.Mutex             // guards made and held
	made map[string]*heldFolder // folders created; a heldFolder for those held open
	held int
}

// heldFolders is how many folders madeDirs holds open at most: a pack's
// files are in a few folders, and every one held costs a descriptor.
const heldFolders = 32

// mkdirAll creates the folder name (a slash path under root) and its
// parents, unless they were created before.
func (d *madeDirs) mkdirAll(root *os.Root, name string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.mkdirAllLocked(root, name)
}

func (d *madeDirs) mkdirAllLocked(root *os.Root, name string) error {
	if name == "." {
		return nil
	}
	if _, ok := d.made[name]; ok {
		return nil
	}
	if err := root.MkdirAll(filepath.FromSlash(name), 0o700); err != nil {
		return fmt.Errorf("create %s: %w", name, err)
	}
	if d.made == nil {
		d.made = map[string]*heldFolder{}
	}
	for p := name; p != "." && p != "/"; p = path.Dir(p) {
		if _, ok := d.made[p]; !ok {
			d.made[p] = nil
		}
	}
	return nil
}

// create creates the new file name (a slash path under root) for writing,
// with its folders, and mode stagedPerm.
func (d *madeDirs) create(root *os.Root, name string) (*os.File, error) {
	const flags = os.O_WRONLY | os.O_CREATE | os.O_EXCL
	dir, base := path.Split(name)
	dir = path.Clean(dir)
	d.mu.Lock()
	if err := d.mkdirAllLocked(root, dir); err != nil {
		d.mu.Unlock()
		return nil, err
	}
	in := d.made[dir]
	if in == nil && dir != "." && d.held < heldFolders {
		// A folder of staging this extraction made (os.Root would
		// refuse a link on the way all the same). Should it not open
		// (no descriptor to spare), the file is created through root.
		if h, err := openHeld(root, filepath.FromSlash(dir)); err == nil {
			in, d.made[dir] = h, h
			d.held++
		}
	}
	d.mu.Unlock()
	var f *os.File
	var err error
	if in != nil {
		f, err = in.create(base, name, stagedPerm)
	} else {
		f, err = root.OpenFile(filepath.FromSlash(name), flags, stagedPerm)
	}
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", name, err)
	}
	return f, nil
}

// close closes the folders held open. No file may be created after it.
func (d *madeDirs) close() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for p, h := range d.made {
		if h != nil {
			h.close()
			d.made[p] = nil
		}
	}
	d.held = 0
}

// singleName reports whether base is one name in a folder: not empty, not
// "." or "..", and without a separator.
func singleName(base string) bool {
	return base != "" && base != "." && base != ".." &&
		!strings.ContainsRune(base, '/') && !strings.ContainsRune(base, os.PathSeparator)
}

// syncList collects the files an extraction wrote (by the writer
// goroutine or a zip's workers), for wait to flush them. The first
// keepOpen files stay open until then, so that the flush need not open
// them again (two system calls and a path lookup per file, a good part of
// a pack of many small files); later ones are closed at once and kept by
// name.
type syncList struct {
	mu     sync.Mutex // guards list and opened
	list   []syncEntry
	opened int // entries in list with f open
	keep   int // how many may stay open: keepOpen() when the extraction began
}

type syncEntry struct {
	name string   // slash path under the staging root
	f    *os.File // the file, while open
}

// keepOpen is how many written files a syncList keeps open: at most
// 2,048, and a quarter of what the process may hold, so that a service
// whose descriptors are few (a hard limit of 1,024) still opens its files
// (and its socket's clients). Where the flush of [atomicfile.SyncFSFiles]
// files or more is one flush of the file system (Linux), no more than
// that: the first file serves that flush, and the others kept open made
// the extraction itself slower (a pack of 3,000 small files on ext4: from
// the unpacker's start to its syncfs 133 ms with 2,048 kept open, 96 with
// 16; the whole sync 220 ms against 148).
func keepOpen() int {
	n := int(min(2048, openFileBudget()/4))
	if atomicfile.FlushesFileSystem {
		n = min(n, atomicfile.SyncFSFiles)
	}
	return n
}

// add takes the written file f (name under the staging root): it keeps it
// open or closes it.
func (l *syncList) add(f *os.File, name string) error {
	l.mu.Lock()
	keep := l.opened < l.keep
	e := syncEntry{name: name}
	if keep {
		e.f = f
		l.opened++
	}
	l.list = append(l.list, e)
	l.mu.Unlock()
	if keep {
		return nil
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	return nil
}

// flush writes every listed file and its size to stable storage, and
// closes them. From [atomicfile.SyncFSFiles] files on, one flush of the
// staging file system does it where the system has one; with leaveSyncFS
// flush then only closes them and reports true: the caller flushes the
// file system. Otherwise the files are flushed in batches whose writeback
// is all started before the first flush waits, so the disk is handed many
// files' bytes at once (as by `sync -f`), not one file's at a time.
func (l *syncList) flush(root *os.Root, leaveSyncFS bool) (left bool, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	defer l.closeLocked() // what a failure left open
	if len(l.list) >= atomicfile.SyncFSFiles && atomicfile.FlushesFileSystem && leaveSyncFS {
		return true, nil
	}
	if len(l.list) >= atomicfile.SyncFSFiles && l.list[0].f != nil {
		if ok, err := atomicfile.SyncFileSystem(l.list[0].f); ok {
			if err != nil {
				return false, fmt.Errorf("write the staged files: %w", err)
			}
			return false, nil
		}
	}
	const batch = 64
	for start := 0; start < len(l.list); start += batch {
		part := l.list[start:min(start+batch, len(l.list))]
		if err := l.reopen(root, part); err != nil {
			return false, err
		}
		for _, e := range part {
			startWriteback(e.f, 0, 0) // 0 bytes: to the end
		}
		var err error
		for i := range part {
			e := &part[i]
			ferr := atomicfile.Fsync(e.f)
			if cerr := e.f.Close(); ferr == nil {
				ferr = cerr
			}
			e.f = nil
			l.opened--
			if ferr != nil && err == nil {
				err = fmt.Errorf("write %s: %w", e.name, ferr)
			}
		}
		if err != nil {
			return false, err
		}
	}
	return false, nil
}

// reopen opens, for flushing, the entries of part that were closed.
func (l *syncList) reopen(root *os.Root, part []syncEntry) error {
	for i := range part {
		e := &part[i]
		if e.f != nil {
			continue
		}
		// A virus scanner may hold a file it has just seen written.
		err := atomicfile.Renamer{}.Retry("flush", e.name, func() (err error) {
			e.f, err = root.OpenFile(filepath.FromSlash(e.name), os.O_WRONLY, 0)
			return err
		})
		if err != nil {
			e.f = nil
			return fmt.Errorf("write %s: %w", e.name, err)
		}
		l.opened++
	}
	return nil
}

// close closes the files still open, unflushed: the extraction failed or
// keeps nothing, and the staging folder must be removable (on Windows no
// open file can be deleted).
func (l *syncList) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closeLocked()
}

func (l *syncList) closeLocked() {
	for i := range l.list {
		if e := &l.list[i]; e.f != nil {
			e.f.Close()
			e.f = nil
			l.opened--
		}
	}
}

const writerBuffers = 4

// writeOp is one operation for the writer goroutine.
type writeOp struct {
	kind int    // opMkdir, opCreate, opWrite, opClose, opDiscard
	name string // slash path for opMkdir and opCreate
	buf  []byte // data for opWrite; handed back to free afterwards
}

const (
	opMkdir = iota
	opCreate
	opWrite
	opClose
	opDiscard // close without keeping: the entry broke its size cap
)

func newStagingWriter(root *os.Root, writeback *writebackPace, leaveSyncFS bool) *stagingWriter {
	w := &stagingWriter{
		root:        root,
		writeback:   writeback,
		ops:         make(chan writeOp, writerBuffers),
		free:        make(chan []byte, writerBuffers),
		done:        make(chan struct{}),
		written:     syncList{keep: keepOpen()},
		leaveSyncFS: leaveSyncFS,
	}
	for range writerBuffers {
		w.free <- nil // made by buffer when first taken
	}
	go w.run()
	return w
}

// run is the writer goroutine. It owns the open file.
func (w *stagingWriter) run() {
	defer close(w.done)
	var out *os.File
	var outName string
	var wb writeback // out's writeback
	for op := range w.ops {
		if w.failed() {
			if op.buf != nil {
				w.free <- op.buf[:cap(op.buf)]
			}
			continue
		}
		var err error
		switch op.kind {
		case opMkdir:
			err = w.dirs.mkdirAll(w.root, op.name)
		case opCreate:
			out, err = w.dirs.create(w.root, op.name)
			outName, wb = op.name, writeback{}
		case opWrite:
			if _, err = writeChunks(out, op.buf); err != nil {
				err = fmt.Errorf("write %s: %w", outName, err)
			} else {
				wb.wrote(out, int64(len(op.buf)), w.writeback)
			}
			w.free <- op.buf[:cap(op.buf)]
		case opClose:
			err = w.written.add(out, outName)
			out = nil
		case opDiscard:
			if err = out.Close(); err != nil {
				err = fmt.Errorf("write %s: %w", outName, err)
			} else {
				err = w.root.Remove(filepath.FromSlash(outName))
			}
			out = nil
		}
		if err != nil {
			w.mu.Lock()
			w.err = &writeError{err}
			w.mu.Unlock()
		}
	}
	if out != nil {
		out.Close() // left open only when the extraction stopped mid-file: that file is not among the written
	}
}

// writeChunk is the most bytes one write asks the system to copy. A
// system call is where a kernel that does not preempt itself (Linux
// built with PREEMPT_NONE, as servers and this benchmark machine are)
// lets a woken thread have the processor: a status request waited for the
// unpacker's writes of 1 MiB, which take milliseconds where the page
// cache's memory is new to a virtual machine. In writes of 256 KiB, status
// p99 during a 256 MiB install went from 2.6-3.3 ms to 1.3-1.7 ms
// (BenchmarkDaemonStatusUnderLoad, 3 runs each, with 10 GiB of memory
// taken first), at the same cost of unpacking.
const writeChunk = 256 << 10

// writeChunks writes b to f in writes of at most writeChunk bytes.
func writeChunks(f *os.File, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		k, err := f.Write(b[n:min(len(b), n+writeChunk)])
		n += k
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

func (w *stagingWriter) failed() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err != nil
}

// send queues op and returns an earlier failure, if any.
func (w *stagingWriter) send(op writeOp) error {
	w.ops <- op
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// buffer returns a free buffer to read the next chunk into. The buffers
// are made as they are first taken: a zip, whose entries never pass
// through the goroutine, or a pack of small files, would otherwise
// allocate and clear 4 MiB it never uses, which a child of a small pack
// paid for with a collection of its heap.
func (w *stagingWriter) buffer() []byte {
	if b := <-w.free; b != nil {
		return b
	}
	return make([]byte, copyBufferSize)
}

// release hands back a buffer that was not sent with opWrite.
func (w *stagingWriter) release(b []byte) { w.free <- b[:cap(b)] }

// wait stops the goroutine after every queued operation and returns the
// first error; with keep (the archive was unpacked whole) it first
// flushes every written file to stable storage, or leaves the flush of
// their file system to the caller (leaveSyncFS; syncFSLeft says so). The
// writer cannot be used afterwards.
func (w *stagingWriter) wait(keep bool) error {
	close(w.ops)
	<-w.done
	w.dirs.close()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil || !keep {
		w.written.close()
		return w.err
	}
	left, err := w.written.flush(w.root, w.leaveSyncFS)
	if err != nil {
		w.err = &writeError{err}
	}
	w.syncFSLeft = left
	return w.err
}
