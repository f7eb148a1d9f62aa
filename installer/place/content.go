package place

import (
	"bytes"
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
	"syscall"

	"github.com/mjolnir-forge/forgesync/installer/intake"
	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
)

// ContentRoot is the folder under the paks folder that holds every pack's
// content, one folder per pack id.
const ContentRoot = "MJOLNIRForge"

// A placement's errors about one file are *fs.PathError with Op "place
// content" and the file's slash path relative to paks, so that a caller can
// name the file.

// ErrForeign is wrapped by a placement's error when a writable file
// forgesync did not place stands at one of the pack's targets and holds
// other bytes than the pack's (a player's own file in the pack's folder):
// the machine's condition, which the player clears; it is never replaced.
// A file with the pack's very bytes is replaced (nothing is lost: it is a
// placement a crash interrupted, placed again), and a read-only one is
// [atomicfile.ErrReadOnly]. The same holds, without the exception, for a
// file where the pack needs a folder, a folder holding such a file where
// the pack needs a file, and a link at a target.
var ErrForeign = errors.New("forgesync did not place it")

// Placement is a pack's content put in place whose replaced files are
// kept aside, beside their targets, until [Placement.Commit] drops them or
// [Placement.Undo] puts them back.
type Placement struct {
	// Paths are the placed files, slash paths relative to paks, sorted.
	Paths []string
	r     atomicfile.Renamer
	paks  string
	owned *ownership
	swaps []swap
	dirs  []string
	// mine are the backups this placement made, which cleanTemps keeps.
	mine map[string]bool
	// moved, when not nil, is a new pack's folder moved whole.
	moved *folderMove
}

// swap is one target replaced: backup holds what was there ("" when
// nothing was). folder says the backup is a folder of the old version
// that stood where the new version has a file; madeFolder that a file of
// the old version stood where the new version made a folder, which Undo
// takes away again (empty by then) before the file goes back.
type swap struct {
	dst, backup        string
	folder, madeFolder bool
}

// pending is one file to place: target is its slash path relative to
// paks, dst its place, src the staged file, and tmp, when not "", its
// copy (or the first file's move) beside dst.
// free says nothing stood at dst when it was prepared (clearTarget's
// Lstat found nothing), so that swapIn need not look again: the pack's
// folders are forgesync's, and no two of a pack's files share a target
// (intake refuses names that fold to one).
type pending struct {
	target, dst, src, tmp string
	free                  bool
}

// Place puts the pack's content/ files from a staged root into
// <paks>/MJOLNIRForge/<packID>/, all or nothing, on every OS. A new pack
// (nothing owned, no pack folder under any spelling) whose staged
// content/ folder is on paks' volume and holds exactly its files is moved
// there whole, with one rename that never replaces a folder made
// meanwhile (see moveFresh); Undo moves it back. Otherwise it goes file
// by file: where the
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
// owned is the installed version's content (slash paths relative to
// paks). Paths are compared by the file system's identity, not by their
// spelling: on a case-insensitive volume (Windows, macOS) content/Map.pak
// and content/MAP.pak are one file. Where the new version has a folder
// and the old one a file of that name (or the reverse), the old one is
// set aside whole like any replaced file, when it is all forgesync's; a
// read-only target forgesync placed (attrib +r) is made writable first.
// Anything in the way that forgesync did not place fails the placement
// before anything is replaced ([ErrForeign]; [atomicfile.ErrReadOnly] for
// a read-only file), unless it holds the pack's very bytes. Temp files a crash left in the pack's folders are removed first:
// the pack is placed anew.
//
// The staged files are already on stable storage (the extraction flushed
// them; a copy across volumes flushes its own) and of mode 0644, readable
// by a game running as another user ([intake.Staged] files are): a file
// moved is installed with its mode, a file copied gets 0644. The folders
// are flushed once the swaps are done, before Place returns. step, when
// not nil, is called after each swap ("place:<path>"), or once after a
// whole folder's move ("place:MJOLNIRForge/<packID>").
func Place(r atomicfile.Renamer, stagedRoot string, files []intake.File, paks, packID string, owned []string, step func(string)) (_ *Placement, err error) {
	pl := &Placement{r: r, paks: paks, owned: newOwnership(paks, owned), mine: map[string]bool{}}
	var todo []pending
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
	if len(owned) == 0 {
		moved, err := pl.moveFresh(stagedRoot, files, packID)
		if err != nil {
			return nil, err
		}
		if moved {
			if step != nil {
				step("place:" + path.Join(ContentRoot, packID))
			}
			return pl, nil
		}
	}
	todo, err = pl.prepare(stagedRoot, files, packID)
	if err != nil {
		return nil, err
	}
	// The folders are not flushed here, with the temps in, but once, after
	// the swaps: what a power loss before that flush leaves is the same
	// either way (temps, swaps done or not, all to be placed again, as
	// nothing committed the install), and every flush may cost a journal
	// commit that waits for the disk.
	for i := range todo {
		if err := pl.swapIn(&todo[i]); err != nil {
			return nil, err
		}
		if step != nil {
			step("place:" + todo[i].target)
		}
	}
	if err := pl.sync(); err != nil {
		return nil, err
	}
	slices.Sort(pl.Paths)
	return pl, nil
}

// prepare makes the folders of the pack's files (setting aside an old
// file that stands where a folder belongs), checks each target, and, while
// the volume is not known to be staging's, copies or moves each staged
// file beside its target, flushing the copies before it returns. It
// returns what it prepared so far, also with an error.
func (pl *Placement) prepare(stagedRoot string, files []intake.File, packID string) ([]pending, error) {
	r, paks := pl.r, pl.paks
	var todo []pending
	dirs := map[string]bool{}
	cleaned := map[string]bool{}
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
			if err := pl.makeFolder(path.Dir(target)); err != nil {
				return todo, err
			}
			cleaned[dir] = true
			pl.cleanTemps(dir)
			// The folder that holds it, and those makeFolder may have made.
			for d := dir; len(d) > len(paks); d = filepath.Dir(d) {
				dirs[d] = true
			}
		}
		src := filepath.Join(stagedRoot, filepath.FromSlash(f.Path))
		free, err := pl.clearTarget(dst, target, src)
		if err != nil {
			return todo, err
		}
		p := pending{target: target, dst: dst, src: src, free: free}
		if !oneVolume {
			tmp, err := tempBeside(dst)
			if err != nil {
				return todo, &fs.PathError{Op: "place content", Path: target, Err: err}
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
				return todo, &fs.PathError{Op: "place content", Path: target, Err: err}
			}
			p.tmp = tmp
		}
		todo = append(todo, p)
	}
	for d := range dirs {
		pl.dirs = append(pl.dirs, d)
	}
	// A crash must not leave a target renamed in whose bytes never reached
	// the disk: the copies are flushed, all at once, before any swap.
	if err := atomicfile.FlushFiles(r, copies); err != nil {
		return todo, &fs.PathError{Op: "place content", Path: path.Join(ContentRoot, packID), Err: err}
	}
	return todo, nil
}

// swapIn sets aside what stands at p's target and renames the new file in.
func (pl *Placement) swapIn(p *pending) error {
	r := pl.r
	s := swap{dst: p.dst}
	if !p.free { // else nothing to set aside (see pending)
		backup, err := pl.aside(p)
		if err != nil {
			return &fs.PathError{Op: "place content", Path: p.target, Err: err}
		}
		s.backup = backup
	}
	pl.swaps = append(pl.swaps, s)
	var err error
	if p.tmp != "" {
		err = r.Replace(p.tmp, p.dst)
	} else {
		// Straight from staging (a copy still, flushed, should this
		// folder be another volume's after all).
		err = atomicfile.Move(r, p.src, p.dst, 0o644)
	}
	if err != nil {
		return &fs.PathError{Op: "place content", Path: p.target, Err: err}
	}
	p.tmp = ""
	pl.Paths = append(pl.Paths, p.target)
	return nil
}

// aside renames what stands at p's target, if anything, to a backup
// beside it, and returns the backup's name ("" for none).
func (pl *Placement) aside(p *pending) (string, error) {
	if _, err := os.Lstat(p.dst); errors.Is(err, fs.ErrNotExist) {
		return "", nil
	} else if err != nil {
		return "", err
	}
	backup, err := tempBeside(p.dst)
	if err != nil {
		return "", err
	}
	if err := pl.r.Aside(p.dst, backup); err != nil {
		return "", err
	}
	return backup, nil
}

// makeFolder makes the folder dir (a slash path relative to paks, at or
// below the pack's folder root) with no link on the way: <paks>/MJOLNIRForge/<id>
// made a link to another folder would have content written through it.
// A file of the old version standing where one of its folders belongs
// (content/Maps.pak before, content/MAPS.PAK/x.pak now, one name on a
// case-insensitive volume) is set aside first; one forgesync did not place,
// from MJOLNIRForge down, refuses it ([ErrForeign], naming that file).
func (pl *Placement) makeFolder(dir string) error {
	for cur := ContentRoot; ; {
		full := filepath.Join(pl.paks, filepath.FromSlash(cur))
		fi, err := os.Lstat(full)
		if err == nil && fi.Mode().IsRegular() {
			if !pl.owned.owns(cur) {
				return &fs.PathError{Op: "place content", Path: cur, Err: fmt.Errorf("%s is a file where the pack needs a folder, and %w: move it away", full, ErrForeign)}
			}
			if err := pl.setAside(full, cur, swap{madeFolder: true}); err != nil {
				return err
			}
		}
		if cur == dir {
			break
		}
		next, _, _ := strings.Cut(strings.TrimPrefix(dir, cur+"/"), "/")
		cur = cur + "/" + next
	}
	if err := atomicfile.MkdirNoLinks(pl.paks, filepath.FromSlash(dir), 0o755); err != nil {
		return &fs.PathError{Op: "place content", Path: dir, Err: err}
	}
	return nil
}

// clearTarget checks what stands at the target dst: a read-only file
// forgesync placed is made writable, one it did not place refused; a
// folder of the old version's files (content/x.pak/a.pak before,
// content/X.PAK now) is set aside whole, and one holding anything
// forgesync did not place refused. It reports whether nothing stands
// there: a new pack's file costs this one Lstat.
func (pl *Placement) clearTarget(dst, target, src string) (free bool, err error) {
	fi, err := os.Lstat(dst)
	if errors.Is(err, fs.ErrNotExist) {
		return true, nil
	}
	if err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o200 != 0 && !pl.owned.owns(target) && !sameBytes(dst, src, fi) {
		return false, &fs.PathError{Op: "place content", Path: target, Err: fmt.Errorf("%s is in the way, and %w: move it away", dst, ErrForeign)}
	}
	if err != nil || fi.Mode().IsRegular() {
		return false, pl.checkWritable(dst, target, fi)
	}
	if !fi.IsDir() {
		// A link (which forgesync never places: a player's, whatever the
		// records say) or a file of another kind that no record owns.
		if fi.Mode()&fs.ModeSymlink != 0 || !pl.owned.owns(target) {
			return false, &fs.PathError{Op: "place content", Path: target, Err: fmt.Errorf("%s is in the way, and %w: move it away", dst, ErrForeign)}
		}
		return false, nil
	}
	if err := pl.ownsFolder(dst, target); err != nil {
		var pe *fs.PathError
		if !errors.As(err, &pe) || pe.Op != "place content" {
			err = &fs.PathError{Op: "place content", Path: target, Err: err}
		}
		return false, err
	}
	return false, pl.setAside(dst, target, swap{folder: true})
}

// ownsFolder returns nil when every file under the folder dst (target,
// relative to paks) is content forgesync placed, and makes read-only ones
// writable; else an error naming the first that is not ([ErrForeign],
// its Path that file's).
func (pl *Placement) ownsFolder(dst, target string) error {
	return filepath.WalkDir(dst, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(dst, p)
		t := target + "/" + filepath.ToSlash(rel)
		if !d.Type().IsRegular() || !pl.owned.owns(t) {
			return &fs.PathError{Op: "place content", Path: t, Err: fmt.Errorf("%s is in the folder %s, where the pack needs a file, and %w: move it away", p, dst, ErrForeign)}
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return nil
		}
		return pl.checkWritable(p, t, fi)
	})
}

// setAside renames what stands at dst (target, relative to paks) to a
// backup beside it, recording the swap for Commit and Undo.
func (pl *Placement) setAside(dst, target string, s swap) error {
	backup, err := tempBeside(dst)
	if err == nil {
		err = pl.r.Aside(dst, backup)
	}
	if err != nil {
		return &fs.PathError{Op: "place content", Path: target, Err: err}
	}
	s.dst, s.backup = dst, backup
	pl.swaps = append(pl.swaps, s)
	pl.mine[backup] = true
	return nil
}

// cleanTemps removes the temp files and folders a crash left in dir,
// litter rather than this pack's, but not the backups this placement made
// (an old file set aside from where a folder now goes). One that will not
// go now (held by a scanner) goes at a later placement.
func (pl *Placement) cleanTemps(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if strings.HasPrefix(e.Name(), atomicfile.TempPrefix) && !pl.mine[p] {
			atomicfile.RemoveAll(pl.r, p)
		}
	}
}

// checkWritable makes a read-only target forgesync owns writable, and
// refuses one it does not own. fi is dst's Lstat (nil when there was none).
func (pl *Placement) checkWritable(dst, target string, fi fs.FileInfo) error {
	if fi == nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o200 != 0 {
		return nil
	}
	if !pl.owned.owns(target) {
		return &fs.PathError{Op: "place content", Path: target, Err: fmt.Errorf("%s %w and forgesync did not place it: clear the attribute (attrib -r) or move it away", dst, atomicfile.ErrReadOnly)}
	}
	if err := os.Chmod(dst, 0o644); err != nil {
		return &fs.PathError{Op: "place content", Path: target, Err: fmt.Errorf("clear read-only: %w", err)}
	}
	return nil
}

// sameBytes reports whether the file dst (fi is its Lstat) holds exactly
// the bytes of the staged file src: a file at a target that forgesync's
// records do not own, left by a placement a crash interrupted, which
// recovery does not take out, is the pack's own bytes placed again. Any
// error is "no".
func sameBytes(dst, src string, fi fs.FileInfo) bool {
	si, err := os.Lstat(src)
	if err != nil || !si.Mode().IsRegular() || si.Size() != fi.Size() {
		return false
	}
	a, err := os.Open(dst)
	if err != nil {
		return false
	}
	defer a.Close()
	b, err := os.Open(src)
	if err != nil {
		return false
	}
	defer b.Close()
	x, y := make([]byte, 64<<10), make([]byte, 64<<10)
	for {
		n, errA := io.ReadFull(a, x)
		m, errB := io.ReadFull(b, y)
		if n != m || !bytes.Equal(x[:n], y[:m]) {
			return false
		}
		if errA != nil || errB != nil {
			return (errA == io.EOF || errA == io.ErrUnexpectedEOF) && errA == errB
		}
	}
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

// Commit drops the replaced files (a folder set aside with what it held).
// One that cannot go yet (held) is left as a temp file, removed when the
// pack is placed again.
func (pl *Placement) Commit() error {
	var errs []error
	for _, s := range pl.swaps {
		switch {
		case s.backup == "":
		case s.folder:
			errs = append(errs, atomicfile.RemoveAll(pl.r, s.backup))
		default:
			err := pl.r.Remove(s.backup)
			if errors.Is(err, atomicfile.ErrReadOnly) {
				if err = os.Chmod(s.backup, 0o644); err == nil {
					err = pl.r.Remove(s.backup)
				}
			}
			errs = append(errs, err)
		}
	}
	pl.swaps, pl.moved = nil, nil
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
	if pl.moved != nil {
		errs = append(errs, pl.undoMove(r))
	}
	for _, s := range slices.Backward(pl.swaps) {
		if s.backup == "" {
			if err := r.Remove(s.dst); err != nil {
				errs = append(errs, fmt.Errorf("remove %s: %w", s.dst, err))
			}
			continue
		}
		if s.madeFolder {
			// The folders made where the file stood, emptied by now.
			if err := removeEmptyFolders(s.dst); err != nil {
				errs = append(errs, fmt.Errorf("put back %s: %w", s.dst, err))
				continue
			}
		}
		if err := r.Replace(s.backup, s.dst); err != nil {
			errs = append(errs, fmt.Errorf("put back %s: %w", s.dst, err))
		}
	}
	pl.swaps, pl.Paths = nil, nil
	if err := pl.sync(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// removeEmptyFolders removes the folder dir and the folders under it when
// they hold nothing else; a missing dir is not an error.
func removeEmptyFolders(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !e.IsDir() {
			return fmt.Errorf("%s still holds %s", dir, e.Name())
		}
		if err := removeEmptyFolders(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return os.Remove(dir)
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
//
// keep is the content that stays (every installed pack's). A path the file
// system takes for one of those (content/Map.pak replaced by content/MAP.pak
// on a case-insensitive volume: one file) is not deleted, nor one where a
// folder now stands (a file of the old version became a folder of the new).
func RemoveContentLeftover(r atomicfile.Renamer, paks string, paths, keep []string) ([]string, error) {
	var errs []error
	var left []string
	dirs := map[string]bool{}
	kept := newOwnership(paks, keep)
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
		for d := path.Dir(p); d != ContentRoot && d != "."; d = path.Dir(d) {
			dirs[d] = true
		}
		full := filepath.Join(paks, filepath.FromSlash(p))
		if fi, err := os.Lstat(full); gone(err) || (err == nil && !fi.Mode().IsRegular()) || kept.owns(p) {
			continue
		}
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
	}
	// Deepest folders first; a folder still holding files stays.
	order := make([]string, 0, len(dirs))
	for d := range dirs {
		order = append(order, d)
	}
	slices.SortFunc(order, func(a, b string) int { return strings.Count(b, "/") - strings.Count(a, "/") })
	for _, d := range order {
		full := filepath.Join(paks, filepath.FromSlash(d))
		// Only a folder: a file may stand where the old version had one.
		if fi, err := os.Lstat(full); err == nil && fi.IsDir() && atomicfile.NoLinks(paks, filepath.FromSlash(d)) == nil {
			os.Remove(full)
		}
	}
	return left, errors.Join(errs...)
}

// gone reports whether err, from a look-up, says nothing is there: the
// file is missing, or a file now stands where one of its folders was.
func gone(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// ownership answers whether a path in the paks folder is one of a set of
// content paths, by the file system's identity: the same spelling, or
// another spelling the file system takes for the same file (letter case
// on a case-insensitive volume). Only paths whose case-folded forms are
// equal are looked up on disk, so a pack of thousands of files costs no
// look-up where no two names differ by case alone.
type ownership struct {
	paks   string
	exact  map[string]bool
	folded map[string][]string
}

func newOwnership(paks string, paths []string) *ownership {
	o := &ownership{paks: paks, exact: make(map[string]bool, len(paths)), folded: make(map[string][]string, len(paths))}
	for _, p := range paths {
		o.exact[p] = true
		k := foldKey(p)
		o.folded[k] = append(o.folded[k], p)
	}
	return o
}

// foldKey is the form two spellings of one name share on a
// case-insensitive volume.
func foldKey(p string) string { return strings.ToLower(strings.ToUpper(p)) }

// owns reports whether p (a slash path relative to paks) is one of the
// paths: the same spelling, or one whose file is p's own file.
func (o *ownership) owns(p string) bool {
	if o.exact[p] {
		return true
	}
	cands := o.folded[foldKey(p)]
	if len(cands) == 0 {
		return false
	}
	fi, err := os.Lstat(filepath.Join(o.paks, filepath.FromSlash(p)))
	if err != nil {
		return false
	}
	for _, c := range cands {
		if ci, err := os.Lstat(filepath.Join(o.paks, filepath.FromSlash(c))); err == nil && os.SameFile(fi, ci) {
			return true
		}
	}
	return false
}
