package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

var (
	// ErrNotRegular is returned, wrapped with the path and its kind, by
	// [ReadFile] for a path that is not a regular file (a device such as
	// /dev/zero, a FIFO, a folder, a socket): it is refused before a byte
	// is read, and opening it does not wait for a writer.
	ErrNotRegular = errors.New("not a regular file")
	// ErrTooLarge is returned, wrapped with the path, the size and the
	// bound, by [ReadFile] for a file larger than the bound its caller
	// gave.
	ErrTooLarge = errors.New("file larger than the bound")
)

// defaultReadLimit bounds [Renamer.ReadFile]: callers that know the kind
// of file they read use [Renamer.ReadLimited] with a bound of their own.
const defaultReadLimit = 64 << 20

// ReadFile reads the whole regular file at path, of at most limit bytes.
// Anything else is refused before it is read: a path that is not a regular
// file (the open does not block on a FIFO: on Unix the file is opened with
// O_NONBLOCK, on Windows the path is checked with Stat first, and on both
// the opened file is checked again with Stat), and a file larger than limit
// (by its size, and by what a read gives, should it grow meanwhile).
func ReadFile(path string, limit int64) ([]byte, error) {
	return Renamer{}.ReadLimited(path, limit)
}

// ReadFile is [Renamer.ReadLimited] with [defaultReadLimit].
func (r Renamer) ReadFile(path string) ([]byte, error) {
	return r.ReadLimited(path, defaultReadLimit)
}

// ReadLimited is [ReadFile], retrying the open while the file is busy (a
// virus scanner holding the state for a moment).
func (r Renamer) ReadLimited(path string, limit int64) ([]byte, error) {
	// A path that is there and not a regular file is refused before the
	// open; an error of Stat (a missing file) is left for the open to
	// report, as it always has.
	if info, err := os.Stat(path); err == nil && !info.Mode().IsRegular() {
		return nil, notRegular(path, info.Mode())
	}
	open := r.OpenRead
	if open == nil {
		open = openNoWait
	}
	var f *os.File
	err := r.Retry("open", path, func() error {
		var err error
		f, err = open(path)
		return err
	})
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := checkRegular(path, func(string) (fs.FileInfo, error) { return f.Stat() }); err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if info.Size() > limit {
		return nil, fmt.Errorf("read %s: %w: %d bytes, the bound for this file is %d bytes", path, ErrTooLarge, info.Size(), limit)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("read %s: %w: more than %d bytes, the bound for this file", path, ErrTooLarge, limit)
	}
	return data, nil
}

// OpenRegular opens path for reading when it is a regular file, and
// refuses anything else with [ErrNotRegular] without waiting (see
// [ReadFile]): for a caller that reads a file in its own way.
func OpenRegular(path string) (*os.File, error) {
	if info, err := os.Stat(path); err == nil && !info.Mode().IsRegular() {
		return nil, notRegular(path, info.Mode())
	}
	f, err := openNoWait(path)
	if err != nil {
		return nil, err
	}
	if err := checkRegular(path, func(string) (fs.FileInfo, error) { return f.Stat() }); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// checkRegular refuses path unless stat says it is a regular file.
func checkRegular(path string, stat func(string) (fs.FileInfo, error)) error {
	info, err := stat(path)
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	if !info.Mode().IsRegular() {
		return notRegular(path, info.Mode())
	}
	return nil
}

func notRegular(path string, m fs.FileMode) error {
	return fmt.Errorf("read %s: %w (it is %s); give the path of a file", path, ErrNotRegular, kind(m))
}

// kind names the type of a file that is not regular, in plain words.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	default:
		return "not a regular file: " + m.Type().String()
	}
}
