package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// CleanTempTree removes the temp files this package left in root and in
// every folder under it, as crashes between Create and Commit do, and only
// those (names starting with [TempPrefix]). root may be a link (a folder
// the user configured); no link under it is followed, so nothing outside
// root is touched. A file that will not go (held by a scanner) does not
// stop the others: the error names every one that stays. It returns the
// paths it removed.
func CleanTempTree(root string) ([]string, error) {
	var removed []string
	var errs []error
	var walk func(dir string)
	walk = func(dir string) {
		entries, err := os.ReadDir(dir)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, fmt.Errorf("clean temps: %w", err))
			}
			return
		}
		for _, e := range entries {
			p := filepath.Join(dir, e.Name())
			switch {
			case e.IsDir(): // a real folder: a link or a junction is no dir here
				walk(p)
			case strings.HasPrefix(e.Name(), TempPrefix):
				if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
					errs = append(errs, fmt.Errorf("clean temps: %w", err))
					continue
				}
				removed = append(removed, p)
			}
		}
	}
	walk(root)
	return removed, errors.Join(errs...)
}
