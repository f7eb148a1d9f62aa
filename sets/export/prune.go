package export

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
	"github.com/mjolnir-forge/forgesync/sets/casync"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// pruneExport removes from dir/packs the archives and chunk indexes that
// Export may have written there and that l does not pin: files named
// <sha256><ext> (a lower-case SHA-256 and an archive extension) or
// <sha256>.caibx. Anything else in the folder is left alone. Call it after
// the lock is written, so that a folder always holds every archive its lock
// pins. It returns the names of the archives and of the chunk indexes
// removed, each sorted.
func pruneExport(dir string, l *lock.Lock) (archives, indexes []string, err error) {
	keep := make(map[string]bool, len(l.Packs))
	for _, p := range l.Packs {
		keep[p.SHA256] = true
	}
	pdir := filepath.Join(dir, "packs")
	entries, err := os.ReadDir(pdir)
	if err != nil {
		return nil, nil, fmt.Errorf("export --prune: %w", err)
	}
	for _, e := range entries {
		name := e.Name()
		sum := exportedName(name)
		if sum == "" || !e.Type().IsRegular() || keep[sum] {
			continue
		}
		if err := os.Remove(filepath.Join(pdir, name)); err != nil {
			return archives, indexes, fmt.Errorf("export --prune: %w", err)
		}
		if strings.HasSuffix(name, casync.IndexExt) {
			indexes = append(indexes, name)
		} else {
			archives = append(archives, name)
		}
	}
	if len(archives)+len(indexes) > 0 {
		if err := atomicfile.SyncDir(pdir); err != nil {
			return archives, indexes, err
		}
	}
	return archives, indexes, nil
}

// pruneChunks removes from dir/chunks the chunks that no index of l's
// packs uses, and returns how many. It reads every index l names first
// (dir/packs/<sha256>.caibx, as Export writes them): when one cannot be
// read it removes nothing, as it cannot tell which chunks that index
// needs. Call it after the lock is written, as pruneExport.
func pruneChunks(dir string, l *lock.Lock) (int, error) {
	if _, err := os.Stat(filepath.Join(dir, ChunksDir)); errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	keep := map[casync.ChunkID]bool{}
	for _, p := range l.Packs {
		if p.Index == nil {
			continue
		}
		path := filepath.Join(dir, "packs", p.SHA256+casync.IndexExt)
		lim, maxBytes := casync.LimitsFor(p.Size)
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
	if !slices.Contains(archiveExts, ext) && ext != casync.IndexExt {
		return ""
	}
	for _, c := range sum {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return ""
		}
	}
	return sum
}
