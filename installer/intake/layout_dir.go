package intake

import (
	"fmt"
	"io/fs"
	"path/filepath"
)

// Listing is a pack folder as the intake rules see it.
type Listing struct {
	Root     string    // the pack root: the folder itself or its one subfolder holding forgepack.json
	Files    []File    // the pack's files relative to Root, sorted by path; complete only without Problems
	Problems []Problem // every rule the folder breaks, entries named relative to the folder
}

// ListPack applies the rules of SPEC §2 that Extract applies to an archive
// to the pack folder dir: names, entry types (symlinks and other
// non-regular files are rejected, never followed), sizes, counts and
// layout. It leaves out every entry for which skip, given its
// slash-separated name relative to dir and whether it is a folder, is
// true: a skipped folder is not walked, and a skipped entry counts for no
// rule and is not among the Files; a nil skip leaves out nothing. It
// returns every problem in the Listing; the error is only for a folder
// that cannot be read.
func ListPack(dir string, lim Limits, skip func(name string, isDir bool) bool) (*Listing, error) {
	if err := lim.Validate(); err != nil {
		return nil, fmt.Errorf("list pack %s: %w", dir, err)
	}
	c := newPackCheck(lim)
	c.folder = true
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == dir {
			if !d.IsDir() {
				return fmt.Errorf("not a folder")
			}
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		name := filepath.ToSlash(rel)
		if skip != nil && skip(name, d.IsDir()) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		typ := modeType(d.Type())
		var size int64
		if typ == typeFile {
			info, err := d.Info()
			if err != nil {
				return err
			}
			size = info.Size()
		}
		_, act, max, idx, ok := c.admit(name, typ, 0)
		if !ok {
			return filepath.SkipAll
		}
		if act == actWrite || act == actDrain {
			if _, ok := c.grow(name, idx, max, size, size, -1); !ok {
				return filepath.SkipAll
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list pack %s: %w", dir, err)
	}
	root, files, problems := c.finish()
	return &Listing{Root: filepath.Join(dir, filepath.FromSlash(root)), Files: files, Problems: problems}, nil
}
