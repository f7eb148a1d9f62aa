package installer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/klauspost/compress/zip"
	"golang.org/x/sync/errgroup"
)

// zipParallel is the second pass of a zip: the entries are independent,
// so they are inflated and written by one worker per core, each with its
// own buffer and file, every byte written once. Names are admitted in
// directory order, as the first pass checked them; the limits are applied
// to every chunk under one lock, so the first limit crossed stops all.
func (x *extraction) zipParallel(zr *zip.Reader) error {
	var mu sync.Mutex // guards x.check, x.done and progress calls
	g, ctx := errgroup.WithContext(x.ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	root := x.w.root
	for _, f := range zr.File {
		if ctx.Err() != nil {
			break
		}
		fi := f.FileInfo()
		typ := modeType(fi.Mode())
		var declared int64
		if typ == typeFile {
			declared = int64(f.UncompressedSize64)
		}
		mu.Lock()
		name, act, max, idx, ok := x.check.admit(f.Name, typ, declared)
		mu.Unlock()
		if !ok {
			g.Go(func() error { return errStop })
			break
		}
		switch act {
		case actMkdir:
			if err := root.MkdirAll(filepath.FromSlash(name), 0o700); err != nil {
				g.Go(func() error { return &writeError{fmt.Errorf("create %s: %w", name, err)} })
			}
		case actWrite:
			g.Go(func() error { return x.zipEntry(ctx, &mu, root, f, name, idx, max) })
		}
	}
	return g.Wait()
}

// zipEntry inflates one entry into a new file of its own.
func (x *extraction) zipEntry(ctx context.Context, mu *sync.Mutex, root *os.Root, f *zip.File, name string, idx int, max int64) error {
	if dir := path.Dir(name); dir != "." {
		if err := root.MkdirAll(filepath.FromSlash(dir), 0o700); err != nil {
			return &writeError{fmt.Errorf("create %s: %w", dir, err)}
		}
	}
	rc, err := f.Open()
	if err != nil {
		mu.Lock()
		defer mu.Unlock()
		return x.corrupt(name, err)
	}
	defer rc.Close()
	out, err := root.OpenFile(filepath.FromSlash(name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return &writeError{fmt.Errorf("create %s: %w", name, err)}
	}
	keep := true
	defer func() {
		out.Close()
		if !keep {
			root.Remove(filepath.FromSlash(name))
		}
	}()
	packed := int64(f.CompressedSize64) // the reader never reads past it
	if f.Method == zip.Store {
		packed = -1
	}
	buf := make([]byte, copyBufferSize)
	var done int64
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, rerr := fillBuffer(rc, buf)
		if n > 0 {
			done += int64(n)
			mu.Lock()
			write, ok := x.check.grow(name, idx, max, done, int64(n), packed)
			x.done += int64(n)
			if x.progress != nil {
				x.progress(x.done, x.total)
			}
			mu.Unlock()
			if !ok {
				keep = false
				return errStop
			}
			if !write {
				keep = false
				return nil // over its own cap: nothing forces us to read on
			}
			if _, err := out.Write(buf[:n]); err != nil {
				return &writeError{fmt.Errorf("write %s: %w", name, err)}
			}
			startWriteback(out, done-int64(n), int64(n))
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			keep = false
			mu.Lock()
			defer mu.Unlock()
			return x.corrupt(name, entryDamage(rerr, done, int64(f.UncompressedSize64)))
		}
	}
	if err := out.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
		return &writeError{fmt.Errorf("write %s: %w", name, err)}
	}
	x.w.written.add(name)
	return nil
}
