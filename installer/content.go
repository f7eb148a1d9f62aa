package installer

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
)

// ContentRoot is the folder under the paks folder that holds every pack's
// content, one folder per pack id.
const ContentRoot = "MJOLNIRForge"

// PlaceContent puts the pack's content/ files from a staged root into
// <paks>/MJOLNIRForge/<packID>/, each replacing any file of the same name
// atomically (moved when staging and paks share a file system, else copied
// and synced). The staged files are already on stable storage (the
// extraction flushed them); the folders that received them are flushed
// last, so that the moves outlive a power cut before anything is
// published. It returns the placed files as slash paths relative to paks,
// sorted. step, when not nil, is called after each file ("place:<path>").
func PlaceContent(stagedRoot string, files []File, paks, packID string, step func(string)) ([]string, error) {
	var placed []string
	dirs := map[string]bool{}
	for _, f := range files {
		rel, ok := strings.CutPrefix(f.Path, "content/")
		if !ok {
			continue
		}
		target := path.Join(ContentRoot, packID, rel)
		dst := filepath.Join(paks, filepath.FromSlash(target))
		// No link on the way: <paks>/MJOLNIRForge/<id> made a link to
		// another folder would have content written through it.
		if err := atomicfile.MkdirNoLinks(paks, filepath.FromSlash(path.Dir(target)), 0o755); err != nil {
			return placed, fmt.Errorf("place content %s: %w", target, err)
		}
		src := filepath.Join(stagedRoot, filepath.FromSlash(f.Path))
		if err := moveOrCopy(src, dst); err != nil {
			return placed, fmt.Errorf("place content %s: %w", target, err)
		}
		placed = append(placed, target)
		// The folder that holds it, and those MkdirNoLinks may have made.
		for d := filepath.Dir(dst); len(d) > len(paks); d = filepath.Dir(d) {
			dirs[d] = true
		}
		if step != nil {
			step("place:" + target)
		}
	}
	for d := range dirs {
		if err := atomicfile.SyncDir(d); err != nil {
			return placed, fmt.Errorf("place content: flush %s: %w", d, err)
		}
	}
	slices.Sort(placed)
	return placed, nil
}

// moveOrCopy moves src over dst, or copies it where a move cannot work
// (another volume: EXDEV here, ERROR_NOT_SAME_DEVICE on Windows). The
// result is mode 0644 either way: staging is private (0600), but a game
// running as another user must read what is installed.
func moveOrCopy(src, dst string) error {
	if err := atomicfile.Move(atomicfile.Renamer{}, src, dst, 0o644); err != nil {
		return err
	}
	if err := os.Chmod(dst, 0o644); err != nil {
		return fmt.Errorf("make %s readable: %w", dst, err)
	}
	return nil
}

// RemoveContent deletes content files (slash paths relative to paks, as
// PlaceContent returned them), then any pack folders left empty. It touches
// nothing outside <paks>/MJOLNIRForge/, never deletes through a link, and
// ignores files already gone.
func RemoveContent(paks string, paths []string) error {
	_, err := RemoveContentLeftover(paks, paths)
	return err
}

// RemoveContentLeftover is [RemoveContent] that also returns the paths it
// could not remove (held by a game or a scanner past the retry, or behind a
// link), for the caller to try again at its next pass.
func RemoveContentLeftover(paks string, paths []string) ([]string, error) {
	var errs []error
	var left []string
	dirs := map[string]bool{}
	r := atomicfile.Renamer{}
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
		if err := r.Remove(filepath.Join(paks, filepath.FromSlash(p))); err != nil {
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
