package verdict

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/mjolnir-forge/forgesync/installer"
	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
)

// Pack checks the pack folder dir and, when it is valid, writes it to out
// as a reproducible zip (sorted entries, fixed timestamps, no OS
// attributes), leaving out what [Dir] leaves out and out itself. An
// invalid pack writes nothing: the report says why. The
// error names dir once when it is missing or not a folder.
func Pack(dir, out string, lim installer.Limits) (*Report, error) {
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
	err = atomicfile.WriteWith(out, 0o644, func(f *os.File) error {
		return installer.WritePackZip(f, os.DirFS(rep.Root), rep.Files)
	})
	return rep, err
}
