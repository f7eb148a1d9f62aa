package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"aead.dev/minisign"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/lua"
	"github.com/mjolnir-forge/forgesync/native"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// sumsName is the checksum file, in sha256sum's format.
const sumsName = "SHA256SUMS"

// pubName is the public key of a signed release, beside its signature.
const pubName = "forgesync.pub"

// entry is one file of a release archive.
type entry struct {
	// Name is the slash-separated path inside the archive.
	Name string
	Data []byte
	// Exec marks a program (mode 0755 rather than 0644).
	Exec bool
}

// readBundle returns the files of one OS's release, sorted by name: everything
// in dist (the binary and modules/, as `make dist` leaves them in
// dist/<os>), the deployed Lua scripts under lua/, and README.md and
// LICENSE from the repository root, and the status socket's contract,
// openapi.yaml and openapi.json (what `forgesync openapi` prints), for a
// launcher's client generator. A bundle without its native module is
// refused: a release without it cannot animate doors.
func readBundle(dist, root string) ([]entry, error) {
	var files []entry
	err := filepath.WalkDir(dist, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("bundle %s: %s is not a regular file", dist, p)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dist, p)
		if err != nil {
			return err
		}
		files = append(files, entry{Name: filepath.ToSlash(rel), Data: data, Exec: info.Mode()&0o111 != 0})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read bundle: %w", err)
	}
	for _, n := range []string{native.ModulePath(), native.VersionPath()} {
		want := "modules/" + n
		if !slices.ContainsFunc(files, func(f entry) bool { return f.Name == want }) {
			return nil, fmt.Errorf("bundle %s has no %s: build it with `make dist`", dist, want)
		}
	}
	for _, n := range lua.Deployed() {
		data, err := fs.ReadFile(lua.Files, n)
		if err != nil {
			return nil, fmt.Errorf("lua script %s: %w", n, err)
		}
		files = append(files, entry{Name: "lua/" + n, Data: data})
	}
	for _, n := range []string{"README.md", "LICENSE"} {
		data, err := os.ReadFile(filepath.Join(root, n))
		if err != nil {
			return nil, fmt.Errorf("release file: %w", err)
		}
		files = append(files, entry{Name: n, Data: data})
	}
	files = append(files, entry{Name: "openapi.yaml", Data: api.OpenAPI}, entry{Name: "openapi.json", Data: api.OpenAPIJSON})
	return sorted(files)
}

// sorted sorts files by name and refuses a name given twice.
func sorted(files []entry) ([]entry, error) {
	files = slices.Clone(files)
	slices.SortFunc(files, func(a, b entry) int { return strings.Compare(a.Name, b.Name) })
	for i := 1; i < len(files); i++ {
		if files[i].Name == files[i-1].Name {
			return nil, fmt.Errorf("release: %s is in the bundle twice", files[i].Name)
		}
	}
	return files, nil
}

// dirs returns the folders the names lie in, parents first, each once.
func dirs(files []entry) []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range files {
		var chain []string
		for d := path.Dir(f.Name); d != "." && !seen[d]; d = path.Dir(d) {
			seen[d] = true
			chain = append(chain, d+"/")
		}
		slices.Reverse(chain)
		out = append(out, chain...)
	}
	return out
}

func mode(f entry) fs.FileMode {
	if f.Exec {
		return 0o755
	}
	return 0o644
}

// makeZip returns a zip of files (sorted first), every entry dated mtime.
func makeZip(files []entry, mtime time.Time) ([]byte, error) {
	files, err := sorted(files)
	if err != nil {
		return nil, err
	}
	mtime = mtime.UTC()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, d := range dirs(files) {
		h := &zip.FileHeader{Name: d, Method: zip.Store, Modified: mtime}
		h.SetMode(fs.ModeDir | 0o755)
		if _, err := zw.CreateHeader(h); err != nil {
			return nil, fmt.Errorf("zip %s: %w", d, err)
		}
	}
	for _, f := range files {
		h := &zip.FileHeader{Name: f.Name, Method: zip.Deflate, Modified: mtime}
		h.SetMode(mode(f))
		w, err := zw.CreateHeader(h)
		if err == nil {
			_, err = w.Write(f.Data)
		}
		if err != nil {
			return nil, fmt.Errorf("zip %s: %w", f.Name, err)
		}
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("zip: %w", err)
	}
	return buf.Bytes(), nil
}

// makeTarGz returns a gzip-compressed tar of files (sorted first), every entry
// dated mtime and owned by root.
func makeTarGz(files []entry, mtime time.Time) ([]byte, error) {
	files, err := sorted(files)
	if err != nil {
		return nil, err
	}
	mtime = mtime.UTC()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf) // no name, no time in its header
	tw := tar.NewWriter(gz)
	for _, d := range dirs(files) {
		h := &tar.Header{Typeflag: tar.TypeDir, Name: d, Mode: 0o755, ModTime: mtime, Format: tar.FormatPAX}
		if err := tw.WriteHeader(h); err != nil {
			return nil, fmt.Errorf("tar %s: %w", d, err)
		}
	}
	for _, f := range files {
		h := &tar.Header{Typeflag: tar.TypeReg, Name: f.Name, Mode: int64(mode(f)), Size: int64(len(f.Data)), ModTime: mtime, Format: tar.FormatPAX}
		err := tw.WriteHeader(h)
		if err == nil {
			_, err = tw.Write(f.Data)
		}
		if err != nil {
			return nil, fmt.Errorf("tar %s: %w", f.Name, err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("tar: %w", err)
	}
	if err := gz.Close(); err != nil {
		return nil, fmt.Errorf("gzip: %w", err)
	}
	return buf.Bytes(), nil
}

// sha256Sums returns the SHA256SUMS of the named files, one "HEX  NAME" line
// each (what `sha256sum -c` checks), sorted by name.
func sha256Sums(files map[string][]byte) []byte {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	var b bytes.Buffer
	for _, n := range names {
		h := sha256.Sum256(files[n])
		fmt.Fprintf(&b, "%s  %s\n", hex.EncodeToString(h[:]), n)
	}
	return b.Bytes()
}

// signSums returns the minisign signature of a SHA256SUMS (what
// `minisign -Vm SHA256SUMS` checks), made with the secret key at keyPath
// (password: "" for a key without one).
func signSums(keyPath, password string, sums []byte) ([]byte, error) {
	key, err := lock.ReadSecretKey(keyPath, password)
	if err != nil {
		return nil, err
	}
	return lock.Sign(key, sums, "file:"+sumsName), nil
}

// publicKeyOf returns the public half of the secret key at keyPath, as
// minisign writes a .pub file: an untrusted comment naming the key ID,
// then the key.
func publicKeyOf(keyPath, password string) ([]byte, error) {
	key, err := lock.ReadSecretKey(keyPath, password)
	if err != nil {
		return nil, err
	}
	pub, ok := key.Public().(minisign.PublicKey)
	if !ok {
		return nil, fmt.Errorf("release: %s: no minisign public key in it", keyPath)
	}
	text, err := pub.MarshalText()
	if err != nil {
		return nil, fmt.Errorf("release: public key of %s: %w", keyPath, err)
	}
	return append(text, '\n'), nil
}
