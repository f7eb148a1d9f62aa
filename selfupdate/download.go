package selfupdate

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
	"github.com/mjolnir-forge/forgesync/internal/errkind"
)

// goos and goarch are this binary's system.
var goos, goarch = runtime.GOOS, runtime.GOARCH

// errBadArchive is wrapped when the downloaded archive is not the one
// SHA256SUMS names, or not a release.
var errBadArchive = errors.New("the downloaded archive is not the signed release")

// download fetches r's archive into memory, at most maxArchiveBytes, and
// checks its SHA-256 against the signed sums.
func download(ctx context.Context, o Options, r Release) ([]byte, error) {
	o = o.filled()
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	u, err := url.Parse(r.URL)
	if err != nil {
		return nil, fmt.Errorf("selfupdate: %s: %w", r.Archive, err)
	}
	base, _ := feedURL(o.Feed)
	resp, err := open(ctx, o.client(base), u)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.ContentLength > maxArchiveBytes {
		return nil, fmt.Errorf("selfupdate: %s: the server says it is %d bytes, over the %d a release may be; nothing was changed", r.Archive, resp.ContentLength, maxArchiveBytes)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxArchiveBytes+1))
	if err != nil {
		return nil, errkind.Wrap(errkind.Unavailable, fmt.Errorf("selfupdate: download %s: %w after %d bytes; nothing was changed, try again later", r.Archive, err, len(data)))
	}
	if len(data) > maxArchiveBytes {
		return nil, fmt.Errorf("selfupdate: %s: over %d bytes, which no release is; nothing was changed", r.Archive, maxArchiveBytes)
	}
	sum := sha256.Sum256(data)
	if !bytes.Equal(sum[:], r.SHA256) {
		return nil, fmt.Errorf("selfupdate: %s: %w: its SHA-256 is %x (%d bytes), SHA256SUMS says %s; nothing was changed (a damaged download: try again; if it happens again, the feed serves other files than it signed)",
			r.Archive, errBadArchive, sum, len(data), hex.EncodeToString(r.SHA256))
	}
	return data, nil
}

// file is one file of a release archive that an update installs.
type file struct {
	name string // slash-separated, relative to the bundle
	data []byte
	exec bool
}

// bundleFiles returns the binary and the modules/ files of a release
// archive (zip for Windows, else tar.gz), refusing any other shape. The
// binary (forgesync.exe in a zip, else forgesync) is named exe, the name
// the running one has.
func bundleFiles(archive []byte, name, exe string) ([]file, error) {
	var files []file
	var err error
	bin := "forgesync"
	if strings.HasSuffix(name, ".zip") {
		bin += ".exe"
		files, err = zipFiles(archive)
	} else {
		files, err = tarFiles(archive)
	}
	if err != nil {
		return nil, fmt.Errorf("selfupdate: %s: %w: %w", name, errBadArchive, err)
	}
	var kept []file
	hasExe := false
	for _, f := range files {
		if !filepath.IsLocal(filepath.FromSlash(f.name)) || path.Clean(f.name) != f.name {
			return nil, fmt.Errorf("selfupdate: %s: %w: entry %q is not a plain relative path", name, errBadArchive, f.name)
		}
		switch {
		case f.name == bin:
			hasExe, f.exec, f.name = true, true, exe
		case strings.HasPrefix(f.name, "modules/"):
		default:
			continue
		}
		kept = append(kept, f)
	}
	if !hasExe {
		return nil, fmt.Errorf("selfupdate: %s: %w: it holds no %s", name, errBadArchive, bin)
	}
	return kept, nil
}

func zipFiles(archive []byte) ([]file, error) {
	zr, err := zip.NewReader(bytes.NewReader(archive), int64(len(archive)))
	if err != nil {
		return nil, err
	}
	var out []file
	for _, zf := range zr.File {
		if zf.FileInfo().IsDir() {
			continue
		}
		if !zf.Mode().IsRegular() {
			return nil, fmt.Errorf("entry %q is not a regular file", zf.Name)
		}
		rc, err := zf.Open()
		if err != nil {
			return nil, fmt.Errorf("entry %q: %w", zf.Name, err)
		}
		data, err := io.ReadAll(io.LimitReader(rc, maxArchiveBytes+1))
		rc.Close()
		if err != nil || len(data) > maxArchiveBytes {
			return nil, fmt.Errorf("entry %q: %v (at most %d bytes)", zf.Name, err, maxArchiveBytes)
		}
		out = append(out, file{name: zf.Name, data: data})
	}
	return out, nil
}

func tarFiles(archive []byte) ([]file, error) {
	gz, err := gzip.NewReader(bytes.NewReader(archive))
	if err != nil {
		return nil, err
	}
	tr := tar.NewReader(gz)
	var out []file
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		switch h.Typeflag {
		case tar.TypeDir:
			continue
		case tar.TypeReg:
		default:
			return nil, fmt.Errorf("entry %q is not a regular file", h.Name)
		}
		data, err := io.ReadAll(io.LimitReader(tr, maxArchiveBytes+1))
		if err != nil || len(data) > maxArchiveBytes {
			return nil, fmt.Errorf("entry %q: %v (at most %d bytes)", h.Name, err, maxArchiveBytes)
		}
		out = append(out, file{name: h.Name, data: data})
	}
}

// stage writes files into the folder dir (made anew), each synced.
func stage(dir string, files []file) error {
	if err := removeAll(dir); err != nil {
		return fmt.Errorf("selfupdate: clear %s: %w", dir, err)
	}
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("selfupdate: stage: %w", err)
		}
		perm := os.FileMode(0o644)
		if f.exec {
			perm = 0o755
		}
		if err := atomicfile.WriteFile(p, f.data, perm); err != nil {
			return fmt.Errorf("selfupdate: stage %s: %w", f.name, err)
		}
	}
	return nil
}
