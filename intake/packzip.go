package intake

import (
	"archive/zip"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
	"time"
)

// PackTime is the modification time written for every entry of a packed
// zip, so that the same folder always packs to the same bytes.
var PackTime = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// WritePackZip writes the files of a pack (slash paths in fsys, as a
// Listing gives them relative to its Root) as a reproducible zip: entries
// sorted by path, no directory entries, one fixed timestamp, deflate, no
// owner, permission or OS-specific attributes. The same files give the
// same bytes.
func WritePackZip(w io.Writer, fsys fs.FS, files []File) error {
	sorted := slices.Clone(files)
	slices.SortFunc(sorted, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	zw := zip.NewWriter(w)
	for _, f := range sorted {
		hdr := &zip.FileHeader{Name: f.Path, Method: zip.Deflate, Modified: PackTime}
		dst, err := zw.CreateHeader(hdr)
		if err != nil {
			return fmt.Errorf("pack %s: %w", f.Path, err)
		}
		src, err := fsys.Open(f.Path)
		if err != nil {
			return fmt.Errorf("pack: %w", err)
		}
		n, err := io.Copy(dst, src)
		src.Close()
		if err != nil {
			return fmt.Errorf("pack %s: %w", f.Path, err)
		}
		if n != f.Size {
			return fmt.Errorf("pack %s: file changed while packing (%d bytes, listed %d)", f.Path, n, f.Size)
		}
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("pack: %w", err)
	}
	return nil
}
