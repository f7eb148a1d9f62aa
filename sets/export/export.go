package export

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
	"strings"
	"time"

	"aead.dev/minisign"

	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
	"github.com/mjolnir-forge/forgesync/sets/casync"
	"github.com/mjolnir-forge/forgesync/sets/lock"
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

// lockFor returns the lock of packs, each with the URL that template gives
// it (DefaultURLTemplate when empty) and the size of its kept archive.
func lockFor(name string, packs []Kept, template string) (*lock.Lock, error) {
	if template == "" {
		template = DefaultURLTemplate
	}
	if err := checkTemplate(template); err != nil {
		return nil, err
	}
	l := &lock.Lock{Name: name}
	for _, k := range packs {
		st, err := os.Stat(k.Path)
		if err != nil {
			return nil, fmt.Errorf("kept archive of %s %s: %w", k.ID, k.Version, err)
		}
		u, err := expandURL(template, k.SHA256, k.Ext)
		if err != nil {
			return nil, err
		}
		l.Packs = append(l.Packs, lock.Pack{ID: k.ID, Version: k.Version, SHA256: k.SHA256, Size: st.Size(), URLs: []string{u}})
	}
	if _, err := lock.Encode(l); err != nil {
		return nil, err
	}
	return l, nil
}

// Names of what Export writes besides the archives (SPEC §10.2a).
const (
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
func ExportWith(ctx context.Context, dir string, packs []Kept, opt ExportOptions) (*lock.Lock, error) {
	l, err := lockFor(opt.Name, packs, opt.Template)
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
			if err := lock.VerifyFile(dst, l.Packs[i].Size, k.SHA256); !errors.Is(err, lock.ErrWrongBytes) {
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
	l.Stamp(lock.PreviousLock(filepath.Join(dir, lock.LockName)), cmp.Or(opt.Now, time.Now()), opt.Lifetime)
	if _, err := lock.WriteLock(filepath.Join(dir, lock.LockName), l, opt.Key); err != nil {
		return nil, err
	}
	return l, nil
}

// exportIndexes gives each pack of l its chunk index (see exportIndex),
// copying again an archive in place that lost its bytes, and counts what
// it wrote into st.
func exportIndexes(ctx context.Context, pdir string, packs []Kept, l *lock.Lock, template string, st *ExportStats) error {
	template = cmp.Or(template, DefaultURLTemplate)
	store := &countingStore{dir: filepath.Join(filepath.Dir(pdir), ChunksDir), checked: map[casync.ChunkID]bool{}}
	for i, k := range packs {
		p := &l.Packs[i]
		dst := filepath.Join(pdir, k.SHA256+k.Ext)
		ref, made, err := exportIndex(ctx, pdir, dst, *p, template, store)
		if errors.Is(err, lock.ErrWrongBytes) {
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
// gives an error wrapping lock.ErrWrongBytes; an index whose chunks are
// not the archive's, errStaleIndex.
func checkIndexed(ctx context.Context, path string, ix *casync.Index, p lock.Pack, store casync.ChunkWriter) error {
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
			return fmt.Errorf("%s: %w: shorter than the %d bytes the lock pins", path, lock.ErrWrongBytes, p.Size)
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
		return fmt.Errorf("%s: %w: longer than the %d bytes the lock pins", path, lock.ErrWrongBytes, p.Size)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != p.SHA256 {
		return fmt.Errorf("%s: %w: SHA-256 %s, the lock pins %s", path, lock.ErrWrongBytes, got, p.SHA256)
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
// bytes give an error wrapping lock.ErrWrongBytes.
func exportIndex(ctx context.Context, pdir, path string, p lock.Pack, template string, store *countingStore) (ref *lock.IndexRef, made bool, err error) {
	ipath := filepath.Join(pdir, p.SHA256+casync.IndexExt)
	u, err := expandURL(template, p.SHA256, casync.IndexExt)
	if err != nil {
		return nil, false, err
	}
	if !strings.Contains(template, "{ext}") {
		u += casync.IndexExt // else the index would have the archive's URL
	}
	lim, maxBytes := casync.LimitsFor(p.Size)
	raw, err := atomicfile.ReadFile(ipath, int64(maxBytes))
	if err == nil {
		if ix, err := casync.ReadIndex(bytes.NewReader(raw), lim); err == nil && ix.Length() == uint64(p.Size) {
			if err := checkIndexed(ctx, path, ix, p, store); !errors.Is(err, errStaleIndex) {
				if err != nil {
					return nil, false, err
				}
				sum := sha256.Sum256(raw)
				return &lock.IndexRef{URL: u, SHA256: hex.EncodeToString(sum[:])}, false, nil
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
		return nil, false, fmt.Errorf("%s: %w: SHA-256 %s, the lock pins %s", path, lock.ErrWrongBytes, got, p.SHA256)
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
	return &lock.IndexRef{URL: u, SHA256: hex.EncodeToString(sum[:])}, true, nil
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
		return fmt.Errorf("%s: %w: SHA-256 %s, installed from %s", src, lock.ErrWrongBytes, got, sum)
	}
	return p.Commit(atomicfile.Renamer{})
}
