package packset

import (
	"bytes"
	"cmp"
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

	"github.com/mjolnir-forge/forgesync/casync"
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

// Names of what Export writes besides the archives (SPEC §10.2a).
const (
	// IndexExt is the extension of a chunk index: packs/<sha256>.caibx.
	IndexExt = ".caibx"
	// ChunksDir is the folder of the export's shared chunk store.
	ChunksDir = "chunks"
	// DefaultChunksURL is the lock's chunks reference to it.
	DefaultChunksURL = ChunksDir + "/"
)

// ExportOptions say what Export writes.
type ExportOptions struct {
	// Name is the set's free-text name.
	Name string
	// Template gives each archive its URL (DefaultURLTemplate when
	// empty); the index's URL is the same template with {ext} ".caibx".
	Template string
	// Key, when set, signs the lock.
	Key *minisign.PrivateKey
	// NoIndex writes no chunk indexes and no chunk store: the lock then
	// names neither, as before SPEC §10.2a.
	NoIndex bool
	// ChunksURL is the lock's reference to the chunk store; empty:
	// DefaultChunksURL, beside the lock.
	ChunksURL string
	// Stats, when set, receives what the export wrote.
	Stats *ExportStats
}

// ExportStats count what an export wrote: archives copied, indexes made
// (an archive whose index is in place is not chunked again), and chunks
// written to the store (a chunk already there is not written again).
type ExportStats struct {
	Copied, Indexed, ChunksWritten int
}

// ExportWith writes a folder that any static web server serves as it is:
// dir/packs/<sha256><ext> for each pack (copied from its kept archive, its
// SHA-256 checked while it copies), beside it its chunk index
// dir/packs/<sha256>.caibx and its chunks in the folder's one shared store
// dir/chunks/xxxx/<id>.cacnk (casync's layout), then dir/forgepacks.lock
// naming them and, with a key, its signature. The lock is written last, and
// each index after its chunks, so a folder with a lock is always complete.
// Archives already in place with the right size are not copied again, and
// an index already in place that reads back and adds up to the archive's
// size is not made again: exporting a folder where one pack changed writes
// only that pack's archive, index and new chunks.
func ExportWith(ctx context.Context, dir string, packs []Kept, opt ExportOptions) (*Lock, error) {
	l, err := LockFor(opt.Name, packs, opt.Template)
	if err != nil {
		return nil, err
	}
	var st ExportStats
	if opt.Stats != nil {
		defer func() { *opt.Stats = st }()
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
		st.Copied++
	}
	if !opt.NoIndex {
		template := cmp.Or(opt.Template, DefaultURLTemplate)
		store := &countingStore{dir: filepath.Join(dir, ChunksDir)}
		for i, k := range packs {
			p := &l.Packs[i]
			dst := filepath.Join(pdir, k.SHA256+k.Ext)
			ref, made, err := exportIndex(ctx, pdir, dst, *p, template, store)
			if errors.Is(err, ErrWrongBytes) {
				// A copy left in place that lost its bytes: copy it again.
				if err = copyChecked(k.Path, dst, k.SHA256); err == nil {
					st.Copied++
					ref, made, err = exportIndex(ctx, pdir, dst, *p, template, store)
				}
			}
			if err != nil {
				return nil, fmt.Errorf("export %s %s: %w", k.ID, k.Version, err)
			}
			p.Index = ref
			if made {
				st.Indexed++
			}
		}
		st.ChunksWritten = store.written
		l.Chunks = []string{cmp.Or(opt.ChunksURL, DefaultChunksURL)}
	}
	if err := atomicfile.SyncDir(pdir); err != nil {
		return nil, err
	}
	if _, err := WriteLock(filepath.Join(dir, LockName), l, opt.Key); err != nil {
		return nil, err
	}
	return l, nil
}

// countingStore is the export's chunk store: it writes a chunk only when
// its file is not there yet, and counts those it wrote.
type countingStore struct {
	dir     string
	written int
}

func (s *countingStore) PutChunk(id casync.ChunkID, data []byte) error {
	ls := casync.LocalStore{Dir: s.dir}
	if _, err := os.Stat(ls.Path(id)); err == nil {
		return nil
	}
	if err := ls.PutChunk(id, data); err != nil {
		return err
	}
	s.written++
	return nil
}

// exportIndex returns the reference to the chunk index of the exported
// archive at path, making the index (and putting its chunks into store)
// unless an index that adds up to the archive's size is in place; made
// reports whether it was made. The archive's bytes are checked against
// its SHA-256 as they are chunked.
func exportIndex(ctx context.Context, pdir, path string, p Pack, template string, store casync.ChunkWriter) (ref *IndexRef, made bool, err error) {
	ipath := filepath.Join(pdir, p.SHA256+IndexExt)
	u, err := ExpandURL(template, p.SHA256, IndexExt)
	if err != nil {
		return nil, false, err
	}
	if !strings.Contains(template, "{ext}") {
		u += IndexExt // else the index would have the archive's URL
	}
	lim, maxBytes := indexLimits(p.Size)
	if raw, err := atomicfile.ReadFile(ipath, int64(maxBytes)); err == nil {
		if ix, err := casync.ReadIndex(bytes.NewReader(raw), lim); err == nil && ix.Length() == uint64(p.Size) {
			sum := sha256.Sum256(raw)
			return &IndexRef{URL: u, SHA256: hex.EncodeToString(sum[:])}, false, nil
		}
	}
	in, err := os.Open(path)
	if err != nil {
		return nil, false, err
	}
	defer in.Close()
	h := sha256.New()
	ix, err := casync.Make(ctx, io.TeeReader(in, h), store)
	if err != nil {
		return nil, false, err
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != p.SHA256 {
		return nil, false, fmt.Errorf("%s: %w: SHA-256 %s, the lock pins %s", path, ErrWrongBytes, got, p.SHA256)
	}
	var b bytes.Buffer
	if _, err := ix.WriteTo(&b); err != nil {
		return nil, false, err
	}
	if err := atomicfile.WriteFile(ipath, b.Bytes(), 0o644); err != nil {
		return nil, false, err
	}
	sum := sha256.Sum256(b.Bytes())
	return &IndexRef{URL: u, SHA256: hex.EncodeToString(sum[:])}, true, nil
}

// PruneExport removes from dir/packs the archives and chunk indexes that
// Export may have written there and that l does not pin: files named
// <sha256><ext> (a lower-case SHA-256 and an archive extension) or
// <sha256>.caibx. Anything else in the folder is left alone. Call it after
// the lock is written, so that a folder always holds every archive its lock
// pins. It returns the names of the archives removed, sorted (an index goes
// with its archive).
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
	pruned := false
	for _, e := range entries {
		name := e.Name()
		sum := exportedName(name)
		if sum == "" || !e.Type().IsRegular() || keep[sum] {
			continue
		}
		if err := os.Remove(filepath.Join(pdir, name)); err != nil {
			return removed, fmt.Errorf("export --prune: %w", err)
		}
		pruned = true
		if !strings.HasSuffix(name, IndexExt) { // an index goes with its archive
			removed = append(removed, name)
		}
	}
	if pruned {
		if err := atomicfile.SyncDir(pdir); err != nil {
			return removed, err
		}
	}
	return removed, nil
}

// PruneChunks removes from dir/chunks the chunks that no index of l's
// packs uses, and returns how many. It reads every index l names first
// (dir/packs/<sha256>.caibx, as Export writes them): when one cannot be
// read it removes nothing, as it cannot tell which chunks that index
// needs. Call it after the lock is written, as PruneExport.
func PruneChunks(dir string, l *Lock) (int, error) {
	if _, err := os.Stat(filepath.Join(dir, ChunksDir)); errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	keep := map[casync.ChunkID]bool{}
	for _, p := range l.Packs {
		if p.Index == nil {
			continue
		}
		path := filepath.Join(dir, "packs", p.SHA256+IndexExt)
		lim, maxBytes := indexLimits(p.Size)
		raw, err := atomicfile.ReadFile(path, int64(maxBytes))
		if err != nil {
			return 0, fmt.Errorf("export --prune: chunks: %w", err)
		}
		ix, err := casync.ReadIndex(bytes.NewReader(raw), lim)
		if err != nil {
			return 0, fmt.Errorf("export --prune: chunks: %s: %w", path, err)
		}
		for _, c := range ix.Chunks {
			keep[c.ID] = true
		}
	}
	n, err := casync.LocalStore{Dir: filepath.Join(dir, ChunksDir)}.Prune(func(id casync.ChunkID) bool { return keep[id] })
	if err != nil {
		return n, fmt.Errorf("export --prune: chunks: %w", err)
	}
	return n, nil
}

// exportedName returns the SHA-256 of a name that Export writes,
// <sha256><ext> or <sha256>.caibx, or "" when name is not of that form.
func exportedName(name string) string {
	if len(name) <= sha256.Size*2 {
		return ""
	}
	sum, ext := name[:sha256.Size*2], name[sha256.Size*2:]
	if !slices.Contains(archiveExts, ext) && ext != IndexExt {
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
