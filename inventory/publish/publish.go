// Package publish owns prepare-then-swap publication of a set of files into
// one folder: every changed file is written to a temp file beside its target
// and flushed to disk before any target is touched; only then is each renamed
// over its target, in the order given, and the folder flushed once. A file
// whose bytes are unchanged is left alone. A busy target (on Windows, a
// reader holding it open) is retried with back-off for a bounded time. It
// builds on internal/atomicfile and knows nothing of what the files mean.
//
// A crash leaves each target wholly old or wholly new; which ones are new
// depends on where it stopped, so the caller republishes after a restart,
// after calling [Clean] to remove the temp files a crash left behind.
package publish

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
)

// File is one file to publish: its name inside the folder and its bytes.
type File struct {
	Name string
	Data []byte
}

// Temp is a temp file that will replace a target; *atomicfile.Pending is
// one. Tests wrap it to inject failures (a full disk, a denied write).
type Temp interface {
	io.Writer
	// Prepare flushes the temp file to stable storage and closes it.
	Prepare() error
	// Commit renames the temp file over its target with r.
	Commit(r atomicfile.Renamer) error
	// Cleanup removes the temp file unless it was committed.
	Cleanup() error
}

// Options adjust [Publish]; the zero value is what production uses.
type Options struct {
	// Perm is the permission of files created; 0 means 0o644.
	Perm fs.FileMode
	// Renamer renames each temp file over its target, retrying a busy
	// target with back-off for at most its MaxWait. Tests inject its
	// Rename, Busy and Sleep.
	Renamer atomicfile.Renamer
	// Create starts the temp file that will replace target; nil means
	// atomicfile.Create.
	Create func(target string, perm fs.FileMode) (Temp, error)
	// SyncDir flushes the folder after the renames; nil means
	// atomicfile.SyncDir.
	SyncDir func(dir string) error
	// AfterStep, when set, is called as each step completes, with a stable
	// name: "prepare:NAME" once NAME's temp file is written and flushed,
	// "rename:NAME" once it has replaced its target, and "sync" once the
	// folder is flushed. Unchanged files have no steps. Fault-injection
	// tests end the process here to check what a crash leaves.
	AfterStep func(step string)
}

// The steps of a publication, as they appear in Error.Step.
const (
	stepCheck   = "check"   // the file names given
	stepRead    = "read"    // reading the current target to compare
	stepCreate  = "create"  // creating the temp file
	stepWrite   = "write"   // writing the temp file
	stepPrepare = "prepare" // flushing and closing the temp file
	stepRename  = "rename"  // renaming the temp file over the target
	stepSync    = "sync"    // flushing the folder
)

// Result says what a publication did.
type Result struct {
	// Written lists the files renamed over their targets, in order.
	Written []string
	// Unchanged lists the files whose targets already held their bytes.
	Unchanged []string
}

// Error is a failed publication: the folder, the file, the step and the
// cause, and which targets were already replaced when it failed (none when
// the step came before the renames: the old files are then intact).
type Error struct {
	Dir      string
	Name     string // empty for the folder's sync
	Step     string // one of the Step constants
	Replaced []string
	Err      error
}

// Error returns e.g. "publish /mods/MJOLNIRForgePacks/doors.txt: write: …
// (no file was replaced)".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("publish ")
	b.WriteString(filepath.Join(e.Dir, e.Name))
	b.WriteString(": ")
	b.WriteString(e.Step)
	b.WriteString(": ")
	b.WriteString(e.Err.Error())
	switch {
	case len(e.Replaced) == 0:
		b.WriteString(" (no file was replaced)")
	case e.Step == stepSync:
		fmt.Fprintf(&b, " (replaced: %s; a power loss now could undo the renames)", strings.Join(e.Replaced, ", "))
	default:
		fmt.Fprintf(&b, " (already replaced: %s; publish again to finish)", strings.Join(e.Replaced, ", "))
	}
	return b.String()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Publish writes files into dir, which must exist, prepare-then-swap:
// each file whose target does not already hold its bytes goes to a temp file
// in dir, written and flushed; when every one is prepared, each is renamed
// over its target in the order of files, and dir is flushed once. On an
// error before the first rename every temp file is removed and no target is
// touched; after it, the targets in Error.Replaced are new and the others
// old. The error is an *Error naming the file and the step.
func Publish(dir string, files []File, opts Options) (res Result, err error) {
	if err := checkNames(files); err != nil {
		return res, &Error{Dir: dir, Step: stepCheck, Err: err}
	}
	perm := opts.Perm
	if perm == 0 {
		perm = 0o644
	}
	create := opts.Create
	if create == nil {
		create = func(target string, perm fs.FileMode) (Temp, error) { return atomicfile.Create(target, perm) }
	}
	syncDir := opts.SyncDir
	if syncDir == nil {
		syncDir = atomicfile.SyncDir
	}
	step := opts.AfterStep
	if step == nil {
		step = func(string) {}
	}

	var pending []prepared
	defer func() {
		// A no-op for the temp files already committed.
		for _, p := range pending {
			if cerr := p.tmp.Cleanup(); cerr != nil {
				err = errors.Join(err, cerr)
			}
		}
	}()
	fail := func(name, stepName string, cause error) (Result, error) {
		return res, &Error{Dir: dir, Name: name, Step: stepName, Replaced: slices.Clone(res.Written), Err: cause}
	}

	for _, f := range files {
		target := filepath.Join(dir, f.Name)
		same, err := holds(opts.Renamer, target, f.Data)
		if err != nil {
			return fail(f.Name, stepRead, err)
		}
		if same {
			res.Unchanged = append(res.Unchanged, f.Name)
			continue
		}
		tmp, err := create(target, perm)
		if err != nil {
			return fail(f.Name, stepCreate, err)
		}
		pending = append(pending, prepared{f.Name, tmp})
		if _, err := tmp.Write(f.Data); err != nil {
			return fail(f.Name, stepWrite, err)
		}
	}
	if i, err := prepareAll(pending); err != nil {
		return fail(pending[i].name, stepPrepare, err)
	}
	for _, p := range pending {
		step("prepare:" + p.name)
	}
	for _, p := range pending {
		if err := p.tmp.Commit(opts.Renamer); err != nil {
			return fail(p.name, stepRename, err)
		}
		res.Written = append(res.Written, p.name)
		step("rename:" + p.name)
	}
	if len(res.Written) > 0 {
		if err := syncDir(dir); err != nil {
			return fail("", stepSync, err)
		}
		step("sync")
	}
	return res, nil
}

// prepared is a file of a publication and its temp file.
type prepared struct {
	name string
	tmp  Temp
}

// prepareAll prepares (flushes and closes) every temp file, all at once:
// on a journaled file system flushes that wait together share one journal
// commit and one cache flush of the disk, where one after the other each
// paid for its own. It returns the first that failed, by its index in
// pending, once all are done.
func prepareAll(pending []prepared) (int, error) {
	errs := make([]error, len(pending))
	var wg sync.WaitGroup
	for i := 1; i < len(pending); i++ {
		wg.Go(func() { errs[i] = pending[i].tmp.Prepare() })
	}
	if len(pending) > 0 {
		errs[0] = pending[0].tmp.Prepare()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return i, err
		}
	}
	return 0, nil
}

// holds reports whether the file at path exists and holds exactly data.
func holds(r atomicfile.Renamer, path string, data []byte) (bool, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if !fi.Mode().IsRegular() {
		what := "special file"
		if fi.IsDir() {
			what = "folder"
		}
		return false, fmt.Errorf("target is a %s, not a regular file; move it away", what)
	}
	if fi.Size() != int64(len(data)) {
		return false, nil
	}
	// A reader holding it without sharing (a game, a scanner) is waited
	// out like a busy rename.
	f, err := r.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	// Compare in chunks rather than reading the whole file: the inventory
	// can be megabytes, and an unchanged one is the common case.
	buf := make([]byte, min(len(data), 256<<10))
	for off := 0; off < len(data); {
		n, err := io.ReadFull(f, buf[:min(len(buf), len(data)-off)])
		if err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
				return false, nil // shrank since the stat
			}
			return false, err
		}
		if !bytes.Equal(buf[:n], data[off:off+n]) {
			return false, nil
		}
		off += n
	}
	return true, nil
}

// checkNames reports a name that is not a plain file name, repeats, or
// could be mistaken for a temp file.
func checkNames(files []File) error {
	seen := make(map[string]bool, len(files))
	for _, f := range files {
		switch {
		case f.Name == "" || f.Name == "." || f.Name != filepath.Base(f.Name) || !filepath.IsLocal(f.Name) || strings.ContainsAny(f.Name, `/\`):
			return fmt.Errorf("file name %q is not a plain name inside the folder", f.Name)
		case strings.HasPrefix(f.Name, atomicfile.TempPrefix):
			return fmt.Errorf("file name %q starts with the temp prefix %q", f.Name, atomicfile.TempPrefix)
		case seen[f.Name]:
			return fmt.Errorf("file name %q is given twice", f.Name)
		}
		seen[f.Name] = true
	}
	return nil
}
