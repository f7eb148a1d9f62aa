package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

var (
	// ErrLink is returned, wrapped with the path, when a folder forgesync
	// writes into or deletes from is a symbolic link, a junction or another
	// reparse point: following it would write or delete somewhere else.
	ErrLink = errors.New("is a link (symbolic link, junction or reparse point); forgesync does not follow links in the folders it writes: replace it with a real folder")
	// errLeftover is returned, wrapped with the paths, when [RemoveAll]
	// could not remove everything; the caller logs it and tries again at
	// its next pass.
	errLeftover = errors.New("could not be removed yet")
)

// isLink reports whether fi (from Lstat) is a link or a reparse point:
// Windows reports junctions and other reparse points as irregular.
func isLink(fi fs.FileInfo) bool {
	return fi.Mode()&(fs.ModeSymlink|fs.ModeIrregular) != 0
}

// MkdirNoLinks makes sure base/rel is a real folder, creating what is
// missing with perm, and refuses (with [ErrLink] naming it) any component
// from base down that is a link. base itself, a folder the user configured,
// may be a link.
func MkdirNoLinks(base, rel string, perm fs.FileMode) error {
	if rel == "" || rel == "." {
		return nil
	}
	if !filepath.IsLocal(rel) {
		return fmt.Errorf("mkdir %s under %s: not a local path", rel, base)
	}
	if err := os.MkdirAll(base, perm); err != nil {
		return fmt.Errorf("mkdir %s: %w", base, err)
	}
	cur := base
	for _, part := range strings.Split(filepath.Clean(rel), string(filepath.Separator)) {
		cur = filepath.Join(cur, part)
		fi, err := os.Lstat(cur)
		if errors.Is(err, fs.ErrNotExist) {
			if err := os.Mkdir(cur, perm); err != nil && !errors.Is(err, fs.ErrExist) {
				return fmt.Errorf("mkdir %s: %w", cur, err)
			} else if err == nil {
				// The umask of a service may be stricter than perm; a
				// game running as another user must still read it.
				os.Chmod(cur, perm)
			}
			if fi, err = os.Lstat(cur); err != nil {
				return fmt.Errorf("mkdir %s: %w", cur, err)
			}
		} else if err != nil {
			return fmt.Errorf("mkdir %s: %w", cur, err)
		}
		if isLink(fi) {
			return fmt.Errorf("%s %w", cur, ErrLink)
		}
		if !fi.IsDir() {
			return fmt.Errorf("%s is a file where a folder belongs: move it away", cur)
		}
	}
	return nil
}

// NoLinks reports, with [ErrLink], the first component of rel under base
// that is a link, a junction or a reparse point. A missing component ends
// the check: nothing below it exists to be followed.
func NoLinks(base, rel string) error {
	if !filepath.IsLocal(rel) {
		return fmt.Errorf("%s under %s: not a local path", rel, base)
	}
	cur := base
	for _, part := range strings.Split(filepath.Clean(rel), string(filepath.Separator)) {
		cur = filepath.Join(cur, part)
		fi, err := os.Lstat(cur)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if isLink(fi) {
			return fmt.Errorf("%s %w", cur, ErrLink)
		}
	}
	return nil
}

// RemoveAll removes path and everything under it without following links
// (a link is removed, not what it points to). When the bulk removal fails
// (a file held for a moment by a virus scanner) it goes file by file, each
// remove retried by r, and returns an error wrapping [errLeftover] naming
// what is still there.
func RemoveAll(r Renamer, path string) error {
	if r.RemoveFile == nil {
		if err := os.RemoveAll(path); err == nil {
			return nil
		}
	}
	var left []string
	var walk func(p string)
	walk = func(p string) {
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return
		}
		if err == nil && fi.IsDir() && !isLink(fi) {
			entries, _ := os.ReadDir(p)
			for _, e := range entries {
				walk(filepath.Join(p, e.Name()))
			}
		}
		if err := r.Remove(p); err != nil {
			left = append(left, p)
		}
	}
	walk(path)
	if len(left) == 0 {
		return nil
	}
	slices.Sort(left)
	return fmt.Errorf("remove %s: %d entries %w: %s", path, len(left), errLeftover, strings.Join(left, ", "))
}

// Move moves the regular file src to dst. A rename is tried first (with
// r's retry while busy); across file systems (EXDEV, or
// ERROR_NOT_SAME_DEVICE on Windows) it copies src to a temp file beside
// dst, syncs it, renames it over dst, syncs dst's folder, and only then
// removes src: a crash at any point leaves src whole, and dst either
// absent or whole. perm is the mode of a copied file.
func Move(r Renamer, src, dst string, perm fs.FileMode) error {
	err := r.Replace(src, dst)
	if err == nil || !isCrossDevice(err) {
		return err
	}
	return copyOver(r, src, dst, perm)
}

// IsCrossDevice reports whether err is a rename's across file systems
// (EXDEV, or ERROR_NOT_SAME_DEVICE on Windows).
func IsCrossDevice(err error) bool { return isCrossDevice(err) }

// copyOver is Move's copy across file systems.
func copyOver(r Renamer, src, dst string, perm fs.FileMode) error {
	in, err := r.Open(src)
	if err != nil {
		return fmt.Errorf("move %s to %s: %w", src, dst, err)
	}
	fi, err := in.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		in.Close()
		return fmt.Errorf("move %s to %s: not a regular file", src, dst)
	}
	p, err := Create(dst, perm)
	if err != nil {
		in.Close()
		return err
	}
	defer p.Cleanup()
	_, err = io.Copy(p.f, in)
	in.Close()
	if err != nil {
		return fmt.Errorf("move %s to %s: copy: %w", src, dst, err)
	}
	if err := p.Commit(r); err != nil {
		return err
	}
	if err := SyncDir(filepath.Dir(dst)); err != nil {
		return err
	}
	if err := r.Remove(src); err != nil {
		return fmt.Errorf("move %s to %s: copied, but the source stays: %w", src, dst, err)
	}
	return nil
}
