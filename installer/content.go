package installer

import (
	"errors"
	"fmt"
	"io"
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
// and synced). It returns the placed files as slash paths relative to paks,
// sorted. step, when not nil, is called after each file ("place:<path>").
func PlaceContent(stagedRoot string, files []File, paks, packID string, step func(string)) ([]string, error) {
	var placed []string
	for _, f := range files {
		rel, ok := strings.CutPrefix(f.Path, "content/")
		if !ok {
			continue
		}
		target := path.Join(ContentRoot, packID, rel)
		dst := filepath.Join(paks, filepath.FromSlash(target))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return placed, fmt.Errorf("place content %s: %w", target, err)
		}
		src := filepath.Join(stagedRoot, filepath.FromSlash(f.Path))
		if err := moveOrCopy(src, dst); err != nil {
			return placed, fmt.Errorf("place content %s: %w", target, err)
		}
		placed = append(placed, target)
		if step != nil {
			step("place:" + target)
		}
	}
	slices.Sort(placed)
	return placed, nil
}

// moveOrCopy moves src over dst, or copies it where a move cannot work
// (another volume: EXDEV here, ERROR_NOT_SAME_DEVICE on Windows).
func moveOrCopy(src, dst string) error {
	if err := (atomicfile.Renamer{}).Replace(src, dst); err == nil {
		return nil
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	return atomicfile.WriteWith(dst, 0o644, func(out *os.File) error {
		_, err := io.Copy(out, in)
		return err
	})
}

// RemoveContent deletes content files (slash paths relative to paks, as
// PlaceContent returned them), then any pack folders left empty. It touches
// nothing outside <paks>/MJOLNIRForge/ and ignores files already gone.
func RemoveContent(paks string, paths []string) error {
	var errs []error
	dirs := map[string]bool{}
	for _, p := range paths {
		if !strings.HasPrefix(p, ContentRoot+"/") || !fs.ValidPath(p) {
			errs = append(errs, fmt.Errorf("remove content %q: not a pack content path", p))
			continue
		}
		if err := os.Remove(filepath.Join(paks, filepath.FromSlash(p))); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, fmt.Errorf("remove content: %w", err))
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
		os.Remove(filepath.Join(paks, filepath.FromSlash(d)))
	}
	return errors.Join(errs...)
}
