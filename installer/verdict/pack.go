package verdict

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/mjolnir-forge/forgesync/installer/intake"
	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
)

// Pack checks the pack folder dir and, when it is valid, writes it to out
// (when out is "", to <id>-<version>.zip beside dir; see [beside]) as a
// reproducible zip (sorted entries, fixed timestamps, no OS
// attributes) that a scan with lim admits (an entry Deflate would shrink
// past lim's compression ratio is stored), leaving out what [dir] leaves out and out itself. An
// invalid pack writes nothing: the report says why. The
// error names dir once when it is missing or not a folder.
func Pack(dir, out string, lim intake.Limits) (*Report, error) {
	info, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%s: no such folder", dir)
	case err != nil:
		return nil, err // an *fs.PathError names dir
	case !info.IsDir():
		return nil, fmt.Errorf("%s: not a folder (pack takes the pack's folder)", dir)
	}
	rep, err := dirSkipping(dir, lim, out) // never its own output
	if err != nil || !rep.Valid {
		return rep, err
	}
	if out == "" {
		out = beside(dir, rep.Pack)
	}
	rep.Archive = out
	err = atomicfile.WriteWith(out, 0o644, func(f *os.File) error {
		return intake.WritePackZipWithin(f, os.DirFS(rep.Root), rep.Files, lim.MaxRatio)
	})
	return rep, err
}

// beside is the archive pack writes when given no name: <id>-<version>.zip
// in the folder holding dir, out of the pack it is built from.
func beside(dir string, pack PackRef) string {
	return filepath.Join(filepath.Clean(dir), "..", pack.ID+"-"+pack.Version+".zip")
}
