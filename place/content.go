package place

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/mjolnir-forge/forgesync/intake"
	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
)

// ContentRoot is the folder under the paks folder that holds every pack's
// content, one folder per pack id.
const ContentRoot = "MJOLNIRForge"

// A placement's errors about one file are *fs.PathError with Op "place
// content" and the file's slash path relative to paks, so that a caller can
// name the file.

// Placement is a pack's content put in place whose replaced files are
// kept aside, beside their targets, until [Placement.Commit] drops them or
// [Placement.Undo] puts them back.
type Placement struct {
	// Paths are the placed files, slash paths relative to paks, sorted.
	Paths []string
	r     atomicfile.Renamer
	swaps []swap
	dirs  []string
}

// swap is one target replaced: backup holds what was there ("" when
// nothing was).
type swap struct {
	dst, backup string
}

// Place puts the pack's content/ files from a staged root into
// <paks>/MJOLNIRForge/<packID>/, all or nothing, on every OS. Where the
// staging folder is on another volume than paks (the first file's move
// tells), each file is first copied to a temp name beside its target, and
// all the copies are flushed together, so that the slow part (and a full
// disk) comes before any target is touched; on one volume the files stay
// where they are until their swap, as a rename from staging costs no more
// than one from beside the target.
// Then, one target after the other, the file there is renamed aside to a
// backup and the new one renamed in. A target that cannot be renamed
// aside (held by the game past r's wait: [atomicfile.ErrBusy]) ends it:
// the targets already swapped get their backups back, and the old version
// is whole again. Backups rather than a rename straight over the target
// because only a backup can be put back once a later target fails.
//
// A read-only target (attrib +r) forgesync placed (its path, relative to
// paks, is in owned: the installed version's content) is made writable
// first; one it does not own fails the placement with
// [atomicfile.ErrReadOnly] before anything is replaced. Temp files a crash
// left in the pack's folders are removed first: the pack is placed anew.
//
// The staged files are already on stable storage (the extraction flushed
// them; a copy across volumes flushes its own) and of mode 0644, readable
// by a game running as another user ([intake.Staged] files are): a file
// moved is installed with its mode, a file copied gets 0644. The folders
// are flushed once the swaps are done, before Place returns. step, when
// not nil, is called after each swap ("place:<path>").
func Place(r atomicfile.Renamer, stagedRoot string, files []intake.File, paks, packID string, owned []string, step func(string)) (_ *Placement, err error) {
	pl := &Placement{r: r}
	// src is the staged file; tmp, when not "", its copy (or the first
	// file's move) beside dst.
	type pending struct{ target, dst, src, tmp string }
	var todo []pending
	dirs := map[string]bool{}
	cleaned := map[string]bool{}
	defer func() {
		if err == nil {
			return
		}
		for _, p := range todo {
			if p.tmp != "" {
				os.Remove(p.tmp)
			}
		}
		if uerr := pl.Undo(); uerr != nil {
			err = fmt.Errorf("%w; and the old version could not be put back whole: %w", err, uerr)
		}
	}()
	// The first file's move tells whether staging and paks share a volume.
	oneVolume, copying := false, false
	var copies []string // the temps copying wrote, flushed before the first swap
	for _, f := range files {
		rel, ok := strings.CutPrefix(f.Path, "content/")
		if !ok {
			continue
		}
		target := path.Join(ContentRoot, packID, rel)
		dst := filepath.Join(paks, filepath.FromSlash(target))
		if dir := filepath.Dir(dst); !cleaned[dir] {
			// No link on the way: <paks>/MJOLNIRForge/<id> made a link to
			// another folder would have content written through it.
			// Checked once per folder, as a pack's files are placed.
			if err := atomicfile.MkdirNoLinks(paks, filepath.FromSlash(path.Dir(target)), 0o755); err != nil {
				return nil, &fs.PathError{Op: "place content", Path: target, Err: err}
			}
			cleaned[dir] = true
			// What a crash left here is litter, not this pack's: one that
			// will not go now (held by a scanner) goes at a later placement.
			atomicfile.CleanTemps(dir)
			// The folder that holds it, and those MkdirNoLinks may have made.
			for d := dir; len(d) > len(paks); d = filepath.Dir(d) {
				dirs[d] = true
			}
		}
		if err := checkWritable(dst, target, owned); err != nil {
			return nil, err
		}
		p := pending{target: target, dst: dst, src: filepath.Join(stagedRoot, filepath.FromSlash(f.Path))}
		if !oneVolume {
			tmp, err := tempBeside(dst)
			if err != nil {
				return nil, &fs.PathError{Op: "place content", Path: target, Err: err}
			}
			if !copying {
				err = r.Replace(p.src, tmp)
				oneVolume = err == nil
				copying = atomicfile.IsCrossDevice(err)
			}
			if copying {
				if err = copyReadable(r, p.src, tmp); err == nil {
					copies = append(copies, tmp)
				}
			}
			if err != nil {
				os.Remove(tmp)
				return nil, &fs.PathError{Op: "place content", Path: target, Err: err}
			}
			p.tmp = tmp
		}
		todo = append(todo, p)
	}
	// A crash must not leave a target renamed in whose bytes never reached
	// the disk: the copies are flushed, all at once, before any swap.
	if err := atomicfile.FlushFiles(r, copies); err != nil {
		return nil, &fs.PathError{Op: "place content", Path: path.Join(ContentRoot, packID), Err: err}
	}
	for d := range dirs {
		pl.dirs = append(pl.dirs, d)
	}
	// The folders are not flushed here, with the temps in, but once, after
	// the swaps: what a power loss before that flush leaves is the same
	// either way (temps, swaps done or not, all to be placed again, as
	// nothing committed the install), and every flush may cost a journal
	// commit that waits for the disk.
	for i := range todo {
		p := &todo[i]
		s := swap{dst: p.dst}
		if _, err := os.Lstat(p.dst); err == nil {
			backup, err := tempBeside(p.dst)
			if err != nil {
				return nil, &fs.PathError{Op: "place content", Path: p.target, Err: err}
			}
			if err := r.Replace(p.dst, backup); err != nil {
				return nil, &fs.PathError{Op: "place content", Path: p.target, Err: fmt.Errorf("set the old file aside: %w", err)}
			}
			s.backup = backup
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, &fs.PathError{Op: "place content", Path: p.target, Err: err}
		}
		pl.swaps = append(pl.swaps, s)
		if p.tmp != "" {
			err = r.Replace(p.tmp, p.dst)
		} else {
			// Straight from staging (a copy still, flushed, should this
			// folder be another volume's after all).
			err = atomicfile.Move(r, p.src, p.dst, 0o644)
		}
		if err != nil {
			return nil, &fs.PathError{Op: "place content", Path: p.target, Err: err}
		}
		p.tmp = ""
		pl.Paths = append(pl.Paths, p.target)
		if step != nil {
			step("place:" + p.target)
		}
	}
	if err := pl.sync(); err != nil {
		return nil, err
	}
	slices.Sort(pl.Paths)
	return pl, nil
}

// checkWritable makes a read-only target forgesync owns writable, and
// refuses one it does not own.
func checkWritable(dst, target string, owned []string) error {
	fi, err := os.Lstat(dst)
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o200 != 0 {
		return nil
	}
	if !slices.Contains(owned, target) {
		return &fs.PathError{Op: "place content", Path: target, Err: fmt.Errorf("%s %w and forgesync did not place it: clear the attribute (attrib -r) or move it away", dst, atomicfile.ErrReadOnly)}
	}
	if err := os.Chmod(dst, 0o644); err != nil {
		return &fs.PathError{Op: "place content", Path: target, Err: fmt.Errorf("clear read-only: %w", err)}
	}
	return nil
}

// tempBeside returns a free temp name in dst's folder, without creating
// the file: a file created only to be deleted again cost every placed
// file an inode (on Windows an MFT record and a virus scanner's look), and
// on a file system without a journal each allocation then scans past the
// inodes deleted in the last seconds: a pack of 3,000 files took seconds.
// The name is random (see [atomicfile.TempName]) in a folder forgesync
// owns; one that exists anyway is drawn again.
func tempBeside(dst string) (string, error) {
	for range 8 {
		name := atomicfile.TempName(dst)
		_, err := os.Lstat(name)
		if errors.Is(err, fs.ErrNotExist) {
			return name, nil
		}
		if err != nil {
			return "", err
		}
	}
	return "", fmt.Errorf("no free temp name beside %s", dst)
}

// sync flushes the folders that received files.
func (pl *Placement) sync() error {
	for _, d := range pl.dirs {
		if err := atomicfile.SyncDir(d); err != nil {
			return fmt.Errorf("place content: flush %s: %w", d, err)
		}
	}
	return nil
}

// Commit drops the replaced files. One that cannot go yet (held) is left
// as a temp file, removed when the pack is placed again.
func (pl *Placement) Commit() error {
	var errs []error
	for _, s := range pl.swaps {
		if s.backup == "" {
			continue
		}
		if err := pl.r.Remove(s.backup); errors.Is(err, atomicfile.ErrReadOnly) {
			if err = os.Chmod(s.backup, 0o644); err == nil {
				err = pl.r.Remove(s.backup)
			}
			errs = append(errs, err)
		} else {
			errs = append(errs, err)
		}
	}
	pl.swaps = nil
	return errors.Join(errs...)
}

// Undo puts the replaced files back and removes the new ones that replaced
// nothing, last swapped first. It waits out a file held for a moment (a
// scanner reading a new .pak) whatever is left of the pass's Budget: the
// old version must be whole again.
func (pl *Placement) Undo() error {
	var errs []error
	r := pl.r
	r.Budget = nil
	for _, s := range slices.Backward(pl.swaps) {
		if s.backup != "" {
			if err := r.Replace(s.backup, s.dst); err != nil {
				errs = append(errs, fmt.Errorf("put back %s: %w", s.dst, err))
			}
		} else if err := r.Remove(s.dst); err != nil {
			errs = append(errs, fmt.Errorf("remove %s: %w", s.dst, err))
		}
	}
	pl.swaps, pl.Paths = nil, nil
	if err := pl.sync(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// copyReadable copies src to the new file dst (mode 0644), unflushed:
// the caller flushes all its copies at once. src stays; the staging
// folder goes as a whole.
func copyReadable(r atomicfile.Renamer, src, dst string) error {
	in, err := r.Open(src)
	if err != nil {
		return fmt.Errorf("copy %s: %w", src, err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("copy %s: %w", src, err)
	}
	// The mode is 0644 whatever the umask (a service may run with 077).
	if err := out.Chmod(0o644); err != nil && runtime.GOOS != "windows" {
		out.Close()
		return fmt.Errorf("copy %s: %w", src, err)
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("copy %s to %s: %w", src, dst, err)
	}
	return nil
}

// RemoveContentLeftover deletes content files (slash paths relative to
// paks, as [Place] returned them), then any pack folders left empty, with
// r's retry policy (a pass's [atomicfile.Budget] among them), and returns
// the paths it could not remove (held by a game or a scanner past the
// retry, or behind a link), for the caller to try again at its next pass.
// It touches nothing outside <paks>/MJOLNIRForge/, never deletes through a
// link, and ignores files already gone. The files are forgesync's: a
// read-only one (attrib +r) is made writable and removed.
func RemoveContentLeftover(r atomicfile.Renamer, paks string, paths []string) ([]string, error) {
	var errs []error
	var left []string
	dirs := map[string]bool{}
	for _, p := range paths {
		if !strings.HasPrefix(p, ContentRoot+"/") || !fs.ValidPath(p) {
			errs = append(errs, fmt.Errorf("remove content %q: not a pack content path", p))
			continue
		}
		if err := atomicfile.NoLinks(paks, filepath.FromSlash(path.Dir(p))); err != nil {
			errs = append(errs, fmt.Errorf("remove content %s: %w", p, err))
			left = append(left, p)
			continue
		}
		full := filepath.Join(paks, filepath.FromSlash(p))
		err := r.Remove(full)
		if errors.Is(err, atomicfile.ErrReadOnly) {
			if err = os.Chmod(full, 0o644); err == nil {
				err = r.Remove(full)
			}
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("remove content: %w", err))
			left = append(left, p)
		}
		for d := path.Dir(p); d != ContentRoot && d != "."; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	// Deepest folders first; a folder still holding files stays.
	order := make([]string, 0, len(dirs))
	for d := range dirs {
		order = append(order, d)
	}
	slices.SortFunc(order, func(a, b string) int { return strings.Count(b, "/") - strings.Count(a, "/") })
	for _, d := range order {
		if atomicfile.NoLinks(paks, filepath.FromSlash(d)) == nil {
			os.Remove(filepath.Join(paks, filepath.FromSlash(d)))
		}
	}
	return left, errors.Join(errs...)
}
