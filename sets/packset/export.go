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
	"time"

	"aead.dev/minisign"

	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
	"github.com/mjolnir-forge/forgesync/sets/casync"
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
	// Now is when the export runs, for the lock's serial and expiry
	// (SPEC §10.2c); zero: the time now.
	Now time.Time
	// Lifetime, when positive, makes the lock expire that long after Now
	// (--expires).
	Lifetime time.Duration
}

// ExportStats count what an export wrote: archives copied, indexes made
// (an archive whose index is in place is not chunked again), and chunks
// written to the store (a chunk already there is not written again).
// Repaired counts the files among them that were in place and had lost
// their bytes: an archive of another SHA-256, an index that does not read
// back or does not describe its archive, a chunk file that does not
// decompress to its name.
type ExportStats struct {
	Copied, Indexed, ChunksWritten, Repaired int
}

// ExportWith writes a folder that any static web server serves as it is:
// dir/packs/<sha256><ext> for each pack (copied from its kept archive, its
// SHA-256 checked while it copies), beside it its chunk index
// dir/packs/<sha256>.caibx and its chunks in the folder's one shared store
// dir/chunks/xxxx/<id>.cacnk (casync's layout), then dir/forgepacks.lock
// naming them and, with a key, its signature. The lock is written last, and
// each index after its chunks, so a folder with a lock is always complete.
// What is in place is checked, not trusted by its name: an archive is
// kept when its SHA-256 is the pack's, an index when it reads back and its
// chunks are the archive's bytes, a chunk file when it decompresses to the
// bytes its name is the digest of; anything else is written again (and
// counted as repaired). Exporting a folder where one pack changed so reads
// every archive and chunk once, and writes only that pack's archive, index
// and new chunks.
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
		if err := ctx.Err(); err != nil {
			return nil, context.Cause(ctx)
		}
		dst := filepath.Join(pdir, k.SHA256+k.Ext)
		if fi, err := os.Stat(dst); err == nil && fi.Size() == l.Packs[i].Size {
			if !opt.NoIndex {
				continue // checked as it is indexed
			}
			if err := VerifyFile(dst, l.Packs[i].Size, k.SHA256); !errors.Is(err, ErrWrongBytes) {
				if err != nil {
					return nil, fmt.Errorf("export %s %s: %w", k.ID, k.Version, err)
				}
				continue
			}
			st.Repaired++
		}
		if err := copyChecked(k.Path, dst, k.SHA256); err != nil {
			return nil, fmt.Errorf("export %s %s: %w", k.ID, k.Version, err)
		}
		st.Copied++
	}
	if !opt.NoIndex {
		if err := exportIndexes(ctx, pdir, packs, l, opt.Template, &st); err != nil {
			return nil, err
		}
		l.Chunks = []string{cmp.Or(opt.ChunksURL, DefaultChunksURL)}
	}
	if err := atomicfile.SyncDir(pdir); err != nil {
		return nil, err
	}
	l.Stamp(PreviousLock(filepath.Join(dir, LockName)), cmp.Or(opt.Now, time.Now()), opt.Lifetime)
	if _, err := WriteLock(filepath.Join(dir, LockName), l, opt.Key); err != nil {
		return nil, err
	}
	return l, nil
}

// exportIndexes gives each pack of l its chunk index (see exportIndex),
// copying again an archive in place that lost its bytes, and counts what
// it wrote into st.
func exportIndexes(ctx context.Context, pdir string, packs []Kept, l *Lock, template string, st *ExportStats) error {
	template = cmp.Or(template, DefaultURLTemplate)
	store := &countingStore{dir: filepath.Join(filepath.Dir(pdir), ChunksDir), checked: map[casync.ChunkID]bool{}}
	for i, k := range packs {
		p := &l.Packs[i]
		dst := filepath.Join(pdir, k.SHA256+k.Ext)
		ref, made, err := exportIndex(ctx, pdir, dst, *p, template, store)
		if errors.Is(err, ErrWrongBytes) {
			// A copy left in place that lost its bytes: copy it again.
			st.Repaired++
			if err = copyChecked(k.Path, dst, k.SHA256); err == nil {
				st.Copied++
				ref, made, err = exportIndex(ctx, pdir, dst, *p, template, store)
			}
		}
		if err != nil {
			return fmt.Errorf("export %s %s: %w", k.ID, k.Version, err)
		}
		p.Index = ref
		if made {
			st.Indexed++
		}
	}
	st.ChunksWritten += store.written
	st.Repaired += store.repaired
	return nil
}

// countingStore is the export's chunk store: it writes a chunk whose file
// is not there yet, checks one that is (once per export: it must
// decompress to the chunk's bytes, which its name is the digest of) and
// writes it again when it is damaged, and counts what it wrote.
type countingStore struct {
	dir               string
	written, repaired int
	// checked holds the chunks whose files this export wrote or found
	// whole.
	checked map[casync.ChunkID]bool
}

func (s *countingStore) PutChunk(id casync.ChunkID, data []byte) error {
	if s.checked[id] {
		return nil
	}
	ls := casync.LocalStore{Dir: s.dir}
	switch _, err := ls.GetChunk(context.Background(), id, uint64(len(data))); {
	case err == nil:
	case errors.Is(err, casync.ErrChunkMissing):
		if err := ls.PutChunk(id, data); err != nil {
			return err
		}
		s.written++
	case errors.Is(err, casync.ErrChunkInvalid):
		// Kept, every client would fetch it, refuse it and download the
		// whole archive instead.
		if err := atomicfile.WriteFlushed(ls.Path(id), casync.EncodeChunk(data), 0o644, atomicfile.FlushFile); err != nil {
			return fmt.Errorf("write again the damaged chunk %s: %w", ls.Path(id), err)
		}
		s.written++
		s.repaired++
	default:
		return fmt.Errorf("check the chunk in place %s: %w", ls.Path(id), err)
	}
	s.checked[id] = true
	return nil
}

// errStaleIndex is returned by checkIndexed for an index whose chunks are
// not the archive's bytes.
var errStaleIndex = errors.New("the index in place does not describe the archive")

// checkIndexed reads the exported archive at path along ix, the index in
// place: each chunk's bytes against its id, then through store (which
// checks the chunk's file, and writes it when it is missing or damaged),
// and the whole against p's size and SHA-256. An archive of other bytes
// gives an error wrapping ErrWrongBytes; an index whose chunks are not the
// archive's, errStaleIndex.
func checkIndexed(ctx context.Context, path string, ix *casync.Index, p Pack, store casync.ChunkWriter) error {
	in, err := os.Open(path)
	if err != nil {
		return err
	}
	defer in.Close()
	h := sha256.New()
	buf := make([]byte, ix.Max)
	stale := false
	for _, c := range ix.Chunks {
		if err := ctx.Err(); err != nil {
			return context.Cause(ctx)
		}
		b := buf[:c.Size]
		if _, err := io.ReadFull(in, b); errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("%s: %w: shorter than the %d bytes the lock pins", path, ErrWrongBytes, p.Size)
		} else if err != nil {
			return fmt.Errorf("read %s: %w", path, err)
		}
		h.Write(b)
		if stale = stale || casync.Sum(b) != c.ID; !stale {
			if err := store.PutChunk(c.ID, b); err != nil {
				return err
			}
		}
	}
	if n, _ := in.Read(buf[:1]); n > 0 {
		return fmt.Errorf("%s: %w: longer than the %d bytes the lock pins", path, ErrWrongBytes, p.Size)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != p.SHA256 {
		return fmt.Errorf("%s: %w: SHA-256 %s, the lock pins %s", path, ErrWrongBytes, got, p.SHA256)
	}
	if stale {
		return errStaleIndex
	}
	return nil
}

// exportIndex returns the reference to the chunk index of the exported
// archive at path, making the index (and putting its chunks into store)
// unless an index in place reads back, adds up to the archive's size and
// describes its bytes (see checkIndexed); made reports whether it was made.
// The archive's bytes are checked against its SHA-256 either way: other
// bytes give an error wrapping ErrWrongBytes.
func exportIndex(ctx context.Context, pdir, path string, p Pack, template string, store *countingStore) (ref *IndexRef, made bool, err error) {
	ipath := filepath.Join(pdir, p.SHA256+IndexExt)
	u, err := ExpandURL(template, p.SHA256, IndexExt)
	if err != nil {
		return nil, false, err
	}
	if !strings.Contains(template, "{ext}") {
		u += IndexExt // else the index would have the archive's URL
	}
	lim, maxBytes := indexLimits(p.Size)
	raw, err := atomicfile.ReadFile(ipath, int64(maxBytes))
	if err == nil {
		if ix, err := casync.ReadIndex(bytes.NewReader(raw), lim); err == nil && ix.Length() == uint64(p.Size) {
			if err := checkIndexed(ctx, path, ix, p, store); !errors.Is(err, errStaleIndex) {
				if err != nil {
					return nil, false, err
				}
				sum := sha256.Sum256(raw)
				return &IndexRef{URL: u, SHA256: hex.EncodeToString(sum[:])}, false, nil
			}
		}
	}
	// An index in place, damaged or of other bytes, is made again.
	replaced := !errors.Is(err, fs.ErrNotExist)
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
	if replaced {
		store.repaired++
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
