package packset

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"aead.dev/minisign"

	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
)

// Kept is an enabled pack with the archive the machine keeps for it: what
// `forgesync lock` and `forgesync export` make a set of.
type Kept struct {
	ID      string
	Version string
	SHA256  string
	// Path is the kept archive's file.
	Path string
	// Ext is the archive's extension with its dot (".zip", ".tar.zst"),
	// filled into a URL template's {ext}; see [ArchiveExt].
	Ext string
}

// archiveExts are the extensions a kept archive name may end in, longest
// first.
var archiveExts = []string{".tar.gz", ".tar.xz", ".tar.zst", ".tgz", ".zip", ".7z", ".tar", ".rar"}

// ArchiveExt returns the archive extension that name ends in (any case,
// returned in lower case), or "".
func ArchiveExt(name string) string {
	lower := strings.ToLower(name)
	for _, e := range archiveExts {
		if strings.HasSuffix(lower, e) {
			return e
		}
	}
	return ""
}

// LockFor returns the lock of packs, each with the URL that template gives
// it (DefaultURLTemplate when empty) and the size of its kept archive.
func LockFor(name string, packs []Kept, template string) (*Lock, error) {
	if template == "" {
		template = DefaultURLTemplate
	}
	if err := CheckTemplate(template); err != nil {
		return nil, err
	}
	l := &Lock{Name: name}
	for _, k := range packs {
		st, err := os.Stat(k.Path)
		if err != nil {
			return nil, fmt.Errorf("kept archive of %s %s: %w", k.ID, k.Version, err)
		}
		u, err := ExpandURL(template, k.SHA256, k.Ext)
		if err != nil {
			return nil, err
		}
		l.Packs = append(l.Packs, Pack{ID: k.ID, Version: k.Version, SHA256: k.SHA256, Size: st.Size(), URLs: []string{u}})
	}
	if _, err := Encode(l); err != nil {
		return nil, err
	}
	return l, nil
}

// WriteLock writes l canonically to path, atomically, and its signature by
// key to path+".minisig" when key is not nil. Without a key a signature
// left beside path by an earlier run is removed: it would not match. It
// returns the bytes written.
func WriteLock(path string, l *Lock, key *minisign.PrivateKey) ([]byte, error) {
	data, err := Encode(l)
	if err != nil {
		return nil, err
	}
	sigPath := path + ".minisig"
	if key == nil {
		if err := os.Remove(sigPath); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("remove stale signature: %w", err)
		}
	}
	if err := atomicfile.WriteFile(path, data, 0o644); err != nil {
		return nil, err
	}
	if key != nil {
		sig := Sign(*key, data, LockName+" "+l.Fingerprint())
		if err := atomicfile.WriteFile(sigPath, sig, 0o644); err != nil {
			return nil, err
		}
	}
	return data, nil
}

// Export writes a folder that any static web server serves as it is (SPEC
// §10.2): dir/packs/<sha256><ext> for each pack (copied from its kept
// archive, its SHA-256 checked while it copies), then dir/forgepacks.lock
// and, with a key, its signature. The lock is written last, so a folder
// with a lock is always complete. Archives already in place with the right
// size are not copied again.
func Export(ctx context.Context, dir, name string, packs []Kept, template string, key *minisign.PrivateKey) (*Lock, error) {
	l, err := LockFor(name, packs, template)
	if err != nil {
		return nil, err
	}
	pdir := filepath.Join(dir, "packs")
	if err := os.MkdirAll(pdir, 0o755); err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	for i, k := range packs {
		dst := filepath.Join(pdir, k.SHA256+k.Ext)
		if st, err := os.Stat(dst); err == nil && st.Size() == l.Packs[i].Size {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, context.Cause(ctx)
		}
		if err := copyChecked(k.Path, dst, k.SHA256); err != nil {
			return nil, fmt.Errorf("export %s %s: %w", k.ID, k.Version, err)
		}
	}
	if err := atomicfile.SyncDir(pdir); err != nil {
		return nil, err
	}
	if _, err := WriteLock(filepath.Join(dir, LockName), l, key); err != nil {
		return nil, err
	}
	return l, nil
}

// PruneExport removes from dir/packs the archives that Export may have
// written there and that l does not pin: files named <sha256><ext> (a
// lower-case SHA-256 and an archive extension). Anything else in the folder
// is left alone. Call it after the lock is written, so that a folder always
// holds every archive its lock pins. It returns the names removed, sorted.
func PruneExport(dir string, l *Lock) ([]string, error) {
	keep := make(map[string]bool, len(l.Packs))
	for _, p := range l.Packs {
		keep[p.SHA256] = true
	}
	pdir := filepath.Join(dir, "packs")
	entries, err := os.ReadDir(pdir)
	if err != nil {
		return nil, fmt.Errorf("export --prune: %w", err)
	}
	var removed []string
	for _, e := range entries {
		name := e.Name()
		sum := exportedName(name)
		if sum == "" || !e.Type().IsRegular() || keep[sum] {
			continue
		}
		if err := os.Remove(filepath.Join(pdir, name)); err != nil {
			return removed, fmt.Errorf("export --prune: %w", err)
		}
		removed = append(removed, name)
	}
	if len(removed) > 0 {
		if err := atomicfile.SyncDir(pdir); err != nil {
			return removed, err
		}
	}
	return removed, nil
}

// exportedName returns the SHA-256 of a name that Export writes,
// <sha256><ext>, or "" when name is not of that form.
func exportedName(name string) string {
	if len(name) <= sha256.Size*2 {
		return ""
	}
	sum, ext := name[:sha256.Size*2], name[sha256.Size*2:]
	if !slices.Contains(archiveExts, ext) {
		return ""
	}
	for _, c := range sum {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return ""
		}
	}
	return sum
}

// copyChecked copies src to dst atomically, refusing it when its SHA-256
// is not sum.
func copyChecked(src, dst, sum string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	p, err := atomicfile.Create(dst, 0o644)
	if err != nil {
		return err
	}
	defer p.Cleanup()
	h := sha256.New()
	if _, err := io.Copy(io.MultiWriter(p.File(), h), in); err != nil {
		return fmt.Errorf("copy %s: %w", src, err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != sum {
		return fmt.Errorf("%s: %w: SHA-256 %s, installed from %s", src, ErrWrongBytes, got, sum)
	}
	return p.Commit(atomicfile.Renamer{})
}

// Comparison is a machine compared with a set: what `forgesync diff`
// prints (its JSON is part of a [DiffReport]'s) and POST /v1/set/diff
// answers.
type Comparison struct {
	Set         string       `json:"set_fingerprint"`
	Machine     string       `json:"machine_fingerprint"`
	Equal       bool         `json:"equal"`
	Differences []Difference `json:"differences"`
}

// Compare returns the comparison of a machine's installed packs with a set.
func Compare(installed []Installed, set []Entry) Comparison {
	d := Diff(installed, set)
	if d == nil {
		d = []Difference{}
	}
	return Comparison{Set: Fingerprint(set), Machine: MachineFingerprint(installed), Equal: len(d) == 0, Differences: d}
}
