package intake

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
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

	dirs    map[string]bool // folders already created; used by the goroutine only
	written syncList        // files written and closed, for wait to flush
}

// syncList collects the files an extraction wrote and closed (by the
// writer goroutine or a zip's workers), for wait to flush them.
type syncList struct {
	mu    sync.Mutex // guards names
	names []string
}

func (l *syncList) add(name string) {
	l.mu.Lock()
	l.names = append(l.names, name)
	l.mu.Unlock()
}

// flush writes every listed file and its size to stable storage. The
// files are flushed in batches whose writeback is all started before the
// first flush waits, so the disk is handed many files' bytes at once (as
// by `sync -f`), not one file's at a time.
func (l *syncList) flush(root *os.Root) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	const batch = 64
	for start := 0; start < len(l.names); start += batch {
		names := l.names[start:min(start+batch, len(l.names))]
		files, err := openAll(root, names)
		if err != nil {
			return err
		}
		for _, f := range files {
			startWriteback(f, 0, 0) // 0 bytes: to the end
		}
		for i, f := range files {
			ferr := atomicfile.Fsync(f)
			if cerr := f.Close(); ferr == nil {
				ferr = cerr
			}
			if ferr != nil && err == nil {
				err = fmt.Errorf("write %s: %w", names[i], ferr)
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// openAll opens the named files for flushing; on an error it closes those
// it opened.
func openAll(root *os.Root, names []string) ([]*os.File, error) {
	files := make([]*os.File, 0, len(names))
	for _, name := range names {
		// A virus scanner may hold a file it has just seen written.
		var f *os.File
		err := atomicfile.Renamer{}.Retry("flush", name, func() (err error) {
			f, err = root.OpenFile(filepath.FromSlash(name), os.O_WRONLY, 0)
			return err
		})
		if err != nil {
			for _, f := range files {
				f.Close()
			}
			return nil, fmt.Errorf("write %s: %w", name, err)
		}
		files = append(files, f)
	}
	return files, nil
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

func newStagingWriter(root *os.Root, writeback *writebackPace) *stagingWriter {
	w := &stagingWriter{
		root:      root,
		writeback: writeback,
		ops:       make(chan writeOp, writerBuffers),
		free:      make(chan []byte, writerBuffers),
		done:      make(chan struct{}),
		dirs:      map[string]bool{".": true},
	}
	for range writerBuffers {
		w.free <- make([]byte, copyBufferSize)
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
			err = w.mkdirAll(op.name)
		case opCreate:
			if err = w.mkdirAll(path.Dir(op.name)); err == nil {
				out, err = w.root.OpenFile(filepath.FromSlash(op.name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
				outName, wb = op.name, writeback{}
				if err != nil {
					err = fmt.Errorf("create %s: %w", op.name, err)
				}
			}
		case opWrite:
			if _, err = out.Write(op.buf); err != nil {
				err = fmt.Errorf("write %s: %w", outName, err)
			} else {
				wb.wrote(out, int64(len(op.buf)), w.writeback)
			}
			w.free <- op.buf[:cap(op.buf)]
		case opClose, opDiscard:
			if err = out.Close(); err != nil {
				err = fmt.Errorf("write %s: %w", outName, err)
			}
			if op.kind == opDiscard && err == nil {
				err = w.root.Remove(filepath.FromSlash(outName))
			}
			if op.kind == opClose && err == nil {
				w.written.add(outName)
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

// mkdirAll creates the folder name and its parents once.
func (w *stagingWriter) mkdirAll(name string) error {
	if w.dirs[name] {
		return nil
	}
	if err := w.root.MkdirAll(filepath.FromSlash(name), 0o700); err != nil {
		return fmt.Errorf("create %s: %w", name, err)
	}
	for d := name; d != "." && d != "/"; d = path.Dir(d) {
		w.dirs[d] = true
	}
	return nil
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

// buffer returns a free buffer to read the next chunk into.
func (w *stagingWriter) buffer() []byte { return <-w.free }

// release hands back a buffer that was not sent with opWrite.
func (w *stagingWriter) release(b []byte) { w.free <- b[:cap(b)] }

// wait stops the goroutine after every queued operation and returns the
// first error; with keep (the archive was unpacked whole) it first
// flushes every written file to stable storage. The writer cannot be used
// afterwards.
func (w *stagingWriter) wait(keep bool) error {
	close(w.ops)
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil || !keep {
		return w.err
	}
	if err := w.written.flush(w.root); err != nil {
		w.err = &writeError{err}
	}
	return w.err
}
