// Package atomicfile owns replacing files on disk so that a reader, or a
// crash, sees either the whole old file or the whole new one: a temp file in
// the same folder, write, fsync, close, rename over the target, fsync the
// folder.
//
// Caveats, as with google/renameio: the temp file must live in the target's
// folder (a rename across file systems is not atomic), and on Windows a rename
// over a file that another process holds open fails for as long as it is
// held, so [Renamer] retries with back-off for a bounded time.
package atomicfile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// TempPrefix starts the name of every temp file this package creates, so that
// [CleanTemps] can remove the leftovers of a crash without touching anything
// else.
const TempPrefix = ".forgesync-tmp-"

// Pending is a temp file that will replace a target once it is committed.
// Its Cleanup is safe to defer: after a successful commit it does nothing.
type Pending struct {
	f      *os.File
	path   string // the target
	tmp    string
	closed bool
	done   bool
}

// Create starts a pending replacement of path with a temp file in the same
// folder, created with perm.
func Create(path string, perm fs.FileMode) (*Pending, error) {
	dir := filepath.Dir(path)
	tmp := TempName(path)
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("write %s: the folder %s does not exist: %w", path, dir, fs.ErrNotExist)
	}
	if err != nil {
		return nil, fmt.Errorf("create temp for %s: %w", path, err)
	}
	// The mode is what the caller asked for, whatever the umask: a service
	// may run with 077, and a game running as another user must still read
	// the inventory and the scripts (0644).
	if err := f.Chmod(perm); err != nil && runtime.GOOS != "windows" {
		f.Close()
		os.Remove(tmp)
		return nil, fmt.Errorf("create temp for %s: %w", path, err)
	}
	return &Pending{f: f, path: path, tmp: tmp}, nil
}

// TempName returns a temp name for path, in its folder: [TempPrefix], the
// base name and 48 random bits, so that two names drawn for one target do
// not meet. It creates nothing; [Create] opens its name with O_EXCL.
func TempName(path string) string {
	dir, base := filepath.Split(path)
	var rnd [6]byte
	rand.Read(rnd[:]) // never fails: crypto/rand ends the program rather than return an error
	return filepath.Join(dir, TempPrefix+base+"-"+hex.EncodeToString(rnd[:]))
}

// Name returns the temp file's path.
func (p *Pending) Name() string { return p.tmp }

// Target returns the path the pending file will replace.
func (p *Pending) Target() string { return p.path }

// Write writes b to the temp file.
func (p *Pending) Write(b []byte) (int, error) {
	n, err := p.f.Write(b)
	if err != nil {
		return n, fmt.Errorf("write %s: %w", p.tmp, err)
	}
	return n, nil
}

// File returns the open temp file, for callers that stream into it.
func (p *Pending) File() *os.File { return p.f }

// Prepare flushes the temp file to stable storage and closes it. The fsync is
// there so that a crash after the rename cannot leave the target name
// pointing at a file whose data never reached the disk.
func (p *Pending) Prepare() error {
	if p.closed {
		return nil
	}
	if err := Fsync(p.f); err != nil {
		p.f.Close()
		p.closed = true
		return fmt.Errorf("sync %s: %w", p.tmp, err)
	}
	p.closed = true
	if err := p.f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", p.tmp, err)
	}
	return nil
}

// Commit prepares the temp file if needed and renames it over the target
// with r. It does not sync the folder; call [SyncDir] once after a group of
// commits.
func (p *Pending) Commit(r Renamer) error {
	if err := p.Prepare(); err != nil {
		return err
	}
	if err := r.Replace(p.tmp, p.path); err != nil {
		return err
	}
	p.done = true
	return nil
}

// Cleanup removes the temp file unless it was committed.
func (p *Pending) Cleanup() error {
	if p.done {
		return nil
	}
	if !p.closed {
		p.f.Close()
		p.closed = true
	}
	p.done = true
	if err := os.Remove(p.tmp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove temp %s: %w", p.tmp, err)
	}
	return nil
}

// Renamer is the one retry policy for a file that a game or a virus
// scanner may hold open for a moment: every open, rename and remove of such
// a file goes through it ([Renamer.Replace], [Renamer.Retry],
// [Renamer.Open], [Renamer.Remove], [RemoveAll], [Move]). It retries with a
// growing back-off while the error means "busy", for a bounded time. The
// zero value uses the platform's rename and notion of busy, and waits at
// most [DefaultMaxWait].
type Renamer struct {
	// Rename replaces the file new with the file old; nil means the
	// platform's rename (os.Rename less its look-up on Unix). Tests inject
	// failures here (a busy target, a cross-device EXDEV).
	Rename func(oldpath, newpath string) error
	// RenameFolder renames the folder old to the name new, where nothing
	// may stand, never replacing what does ([Renamer.MoveFolder]); nil
	// means the platform's rename that refuses to replace. Tests inject
	// failures here (a cross-device EXDEV, a held file, a folder made
	// meanwhile).
	RenameFolder func(oldpath, newpath string) error
	// Busy reports whether err means another process holds the target
	// open for a moment; nil means the platform's rule (sharing and lock
	// violations on Windows, never elsewhere).
	Busy func(err error) bool
	// RemoveFile removes one file or empty folder; nil means os.Remove.
	// Tests inject a file held by a virus scanner here.
	RemoveFile func(path string) error
	// OpenRead opens a file for reading; nil means os.Open. Tests inject a
	// file held with share mode 0 here.
	OpenRead func(path string) (*os.File, error)
	// MaxWait bounds the total time spent retrying; 0 means DefaultMaxWait.
	MaxWait time.Duration
	// Sleep waits between tries; nil means time.Sleep.
	Sleep func(time.Duration)
	// Budget, when set, is the time for waiting out held files that every
	// copy of this Renamer shares (one pass, one transaction): each wait
	// is taken from it, and once it is spent a held file fails at once
	// with [ErrBusy], for a later pass to try again.
	Budget *Budget
}

// Budget is a time allowance shared by the retries of one pass, so that
// many held files cost the pass one wait, not one wait each. Time is
// counted as the Renamer's Sleep is asked to wait, so a test's Sleep
// controls it. It is safe for concurrent use.
type Budget struct {
	mu   sync.Mutex // guards left
	left time.Duration
}

// NewBudget returns a budget of d.
func NewBudget(d time.Duration) *Budget { return &Budget{left: max(d, 0)} }

// Left returns the time not yet spent.
func (b *Budget) Left() time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.left
}

// take spends up to d and returns what it spent.
func (b *Budget) take(d time.Duration) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	d = min(d, b.left)
	b.left -= d
	return d
}

// DefaultMaxWait is how long a [Renamer] retries a busy target by default.
const DefaultMaxWait = 5 * time.Second

// ErrBusy is returned, wrapped with the paths, when a target stayed busy
// for longer than the renamer's MaxWait.
var ErrBusy = errors.New("target held open by another process")

// ErrReadOnly is returned, wrapped with the operation and path, when a
// change to a file is denied because the file is read-only (its write bit
// clear: Windows' attrib +r) rather than held by another process. It is
// not retried: only clearing the attribute helps.
var ErrReadOnly = errors.New("is read-only")

// readOnly reports whether path is a regular file whose write bit is
// clear: on Windows, FILE_ATTRIBUTE_READONLY, which makes a rename over it
// or its removal fail with ERROR_ACCESS_DENIED, as a held file may.
func readOnly(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o200 == 0
}

func (r Renamer) busy(err error) bool {
	if r.Busy != nil {
		return r.Busy(err)
	}
	return isBusy(err)
}

// Retry runs fn until it succeeds, fails with an error that is not busy,
// or the policy's MaxWait (or what is left of its Budget) has passed; then
// the error wraps [ErrBusy] and names op and path. A change to path denied
// because path is read-only wraps [ErrReadOnly] instead, at once. Any
// other error is returned as fn gave it.
func (r Renamer) Retry(op, path string, fn func() error) error {
	maxWait := r.MaxWait
	if maxWait <= 0 {
		maxWait = DefaultMaxWait
	}
	sleep := r.Sleep
	if sleep == nil {
		sleep = time.Sleep
	}
	var waited time.Duration
	delay := 10 * time.Millisecond
	tries := 0
	for {
		err := fn()
		tries++
		if err == nil || !r.busy(err) {
			return err
		}
		if op != "open" && readOnly(path) {
			return fmt.Errorf("%s %s: the file %w (attrib +r): %w", op, path, ErrReadOnly, err)
		}
		d := min(delay, maxWait-waited)
		if r.Budget != nil {
			d = r.Budget.take(d)
		}
		if d <= 0 {
			return fmt.Errorf("%s %s: %w (%d tries in %s; close the game or the program reading it): %w",
				op, path, ErrBusy, tries, waited, err)
		}
		sleep(d)
		waited += d
		delay = min(delay*2, 500*time.Millisecond)
	}
}

// Replace renames the file oldpath over newpath, retrying with back-off
// while the target is busy.
func (r Renamer) Replace(oldpath, newpath string) error {
	rename := r.Rename
	if rename == nil {
		rename = renameFile
	}
	err := r.Retry("rename over", newpath, func() error {
		err := rename(oldpath, newpath)
		var le *os.LinkError
		if errors.As(err, &le) && r.busy(le.Err) {
			// Held: said once, naming newpath, not the temp name oldpath
			// usually is.
			return le.Err
		}
		return err
	})
	if err != nil && !errors.Is(err, ErrBusy) {
		return fmt.Errorf("rename %s over %s: %w", filepath.Base(oldpath), newpath, err)
	}
	return err
}

// Aside renames path to aside (a free temp name beside it), retrying while
// path is busy. Unlike [Renamer.Replace] its errors name path, the file
// the game holds, never the temp name nobody knows. path may be a folder.
func (r Renamer) Aside(path, aside string) error {
	rename := r.Rename
	if rename == nil {
		rename = renameFile
	}
	err := r.Retry("set aside", path, func() error {
		err := rename(path, aside)
		var le *os.LinkError
		if errors.As(err, &le) {
			return le.Err // the errno alone: path is named once, aside never
		}
		return err
	})
	if err != nil && !errors.Is(err, ErrBusy) && !errors.Is(err, ErrReadOnly) {
		return fmt.Errorf("set aside %s: %w", path, err)
	}
	return err
}

// Open opens path for reading, retrying while it is busy (held without
// read sharing).
func (r Renamer) Open(path string) (*os.File, error) {
	open := r.OpenRead
	if open == nil {
		open = os.Open
	}
	var f *os.File
	err := r.Retry("open", path, func() error {
		var err error
		f, err = open(path)
		return err
	})
	return f, err
}

// Remove removes path, retrying while it is busy; a missing path is not an
// error.
func (r Renamer) Remove(path string) error {
	remove := r.RemoveFile
	if remove == nil {
		remove = os.Remove
	}
	err := r.Retry("remove", path, func() error { return remove(path) })
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// fsyncs counts the flushes this process asked for; see [Fsyncs].
var fsyncs atomic.Int64

// Fsync flushes f (a file or a folder) to stable storage. Every flush of
// this program goes through it, so that [Fsyncs] can count them.
func Fsync(f *os.File) error {
	fsyncs.Add(1)
	return f.Sync()
}

// SyncFSFiles is the number of files from which [FlushFiles] (and an
// extraction's flush) flushes their whole file system where the system
// can ([SyncFileSystem]), rather than each file.
const SyncFSFiles = 16

// FlushFiles writes the named files, written and closed, all on one file
// system, to stable storage: from [SyncFSFiles] files on with one flush
// of their file system where the system has it, otherwise each file, with
// r's wait for a file a scanner holds.
func FlushFiles(r Renamer, paths []string) error {
	for i, path := range paths {
		var f *os.File
		err := r.Retry("flush", path, func() (err error) {
			f, err = os.OpenFile(path, os.O_WRONLY, 0)
			return err
		})
		if err != nil {
			return fmt.Errorf("flush %s: %w", path, err)
		}
		whole := false
		if i == 0 && len(paths) >= SyncFSFiles {
			whole, err = SyncFileSystem(f)
		}
		if !whole {
			err = Fsync(f)
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("flush %s: %w", path, err)
		}
		if whole {
			return nil
		}
	}
	return nil
}

// Fsyncs returns how many flushes ([Fsync], and so [SyncDir] on the
// systems where it flushes) this process has asked for since it started:
// each may cost a journal commit, which a benchmark or a test counts.
func Fsyncs() int64 { return fsyncs.Load() }

// SyncDir flushes a folder's entries (the renames in it) to stable storage.
// It is a no-op on Windows, where folders cannot be opened for syncing and
// NTFS journals renames itself.
func SyncDir(dir string) error { return syncDir(dir) }

// WriteFile atomically replaces path with data: temp file, write, fsync,
// rename (retrying a busy target), fsync the folder.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	return WriteWith(path, perm, func(f *os.File) error {
		_, err := f.Write(data)
		return err
	})
}

// WriteWith atomically replaces path with what write streams into the temp
// file; when write fails the target is untouched and the temp file removed.
func WriteWith(path string, perm fs.FileMode, write func(f *os.File) error) error {
	return writeWith(path, perm, FlushAll, write)
}

// Flush says what [WriteFlushed] flushes to stable storage. Each flush
// may cost a journal commit that waits for the disk, so a file whose loss
// in a power cut is harmless is flushed less.
type Flush int

const (
	// FlushAll flushes the new file, then its folder: once written, the
	// new file survives a power loss (as [WriteFile]).
	FlushAll Flush = iota
	// FlushFile flushes the new file but not its folder: a power loss
	// may leave the old file or the new one, each of them whole. For a
	// record whose older version is still true, only less up to date.
	FlushFile
	// FlushNone flushes nothing: a crash of this process leaves the old
	// file or the new one whole, but a power loss may leave the old one,
	// or the new one empty or damaged. For an advisory file whose reader
	// sets a damaged one aside.
	FlushNone
)

// WriteFlushed atomically replaces path with data, as [WriteFile] does,
// flushing what flush says.
func WriteFlushed(path string, data []byte, perm fs.FileMode, flush Flush) error {
	return writeWith(path, perm, flush, func(f *os.File) error {
		_, err := f.Write(data)
		return err
	})
}

func writeWith(path string, perm fs.FileMode, flush Flush, write func(f *os.File) error) error {
	p, err := Create(path, perm)
	if err != nil {
		return err
	}
	defer p.Cleanup()
	if err := write(p.f); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if flush == FlushNone {
		p.closed = true
		if err := p.f.Close(); err != nil {
			return fmt.Errorf("close %s: %w", p.tmp, err)
		}
	}
	if err := p.Commit(Renamer{}); err != nil {
		return err
	}
	if flush != FlushAll {
		return nil
	}
	return SyncDir(filepath.Dir(path))
}

// CleanTemps removes the temp files this package left in dir, as a crash
// between Create and Commit does. It returns the names it removed.
func CleanTemps(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("clean temps: %w", err)
	}
	var removed []string
	for _, e := range entries {
		if e.IsDir() || !strings.HasPrefix(e.Name(), TempPrefix) {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return removed, fmt.Errorf("clean temps: %w", err)
		}
		removed = append(removed, e.Name())
	}
	return removed, nil
}
