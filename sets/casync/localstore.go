package casync

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
)

// chunkExt ends the name of every chunk file in a casync store.
const chunkExt = ".cacnk"

// LocalStore is a casync chunk store in a folder, in casync's layout:
// Dir/xxxx/<id>.cacnk, where xxxx are the id's first four hex digits and
// each file is the chunk's zstd frame. desync reads and verifies such a
// folder as a store. Chunk files are written atomically (a temp file in the
// same folder, renamed over the name), so a reader never sees half a chunk.
type LocalStore struct {
	Dir string
}

// Path returns the file that holds the chunk id.
func (s LocalStore) Path(id ChunkID) string {
	h := id.String()
	return filepath.Join(s.Dir, h[:4], h+chunkExt)
}

// PutChunk stores a chunk given its uncompressed bytes. It skips a chunk
// already there, and does not check that data has the digest id: Make
// computed it.
func (s LocalStore) PutChunk(id ChunkID, data []byte) error {
	p := s.Path(id)
	if _, err := os.Stat(p); err == nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("store chunk %s: %w", id, err)
	}
	// The file is flushed, not its folder: a power cut may lose a new
	// chunk's name (it is written again next time) but never leaves a name
	// with damaged bytes behind it, which hosts would fetch and refuse.
	if err := atomicfile.WriteFlushed(p, EncodeChunk(data), 0o644, atomicfile.FlushFile); err != nil {
		return fmt.Errorf("store chunk %s: %w", id, err)
	}
	return nil
}

// maxCompressed bounds the chunk file of a chunk of size bytes: zstd adds a
// frame header and three bytes per 128 KiB block to data it cannot shrink,
// far less than this.
func maxCompressed(size uint64) uint64 { return size + size/64 + 4096 }

// GetChunk returns the verified uncompressed bytes of the chunk id, which
// must be size bytes long. A chunk that is not there wraps ErrChunkMissing
// (and fs.ErrNotExist); one whose file is too large, is not zstd, or whose
// bytes have another length or digest wraps ErrChunkInvalid.
func (s LocalStore) GetChunk(ctx context.Context, id ChunkID, size uint64) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("get chunk %s: %w", id, err)
	}
	if size > DefaultMaxChunkSize {
		return nil, fmt.Errorf("get chunk %s: size %d is over the largest chunk size %d: %w", id, size, DefaultMaxChunkSize, ErrChunkInvalid)
	}
	p := s.Path(id)
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("get chunk %s: %s is not there: %w: %w", id, p, ErrChunkMissing, err)
	}
	if err != nil {
		return nil, fmt.Errorf("get chunk %s: %w", id, err)
	}
	defer f.Close()
	limit := maxCompressed(size)
	b, err := io.ReadAll(io.LimitReader(f, int64(limit)+1))
	if err != nil {
		return nil, fmt.Errorf("get chunk %s: read %s: %w", id, p, err)
	}
	if uint64(len(b)) > limit {
		return nil, fmt.Errorf("get chunk %s: %s is over %d bytes, more than a %d-byte chunk needs: %w", id, p, limit, size, ErrChunkInvalid)
	}
	data, err := DecodeChunk(id, b, size)
	if err != nil {
		return nil, fmt.Errorf("get chunk from %s: %w", p, err)
	}
	if uint64(len(data)) != size {
		return nil, fmt.Errorf("get chunk %s from %s: %d bytes, want %d: %w", id, p, len(data), size, ErrChunkInvalid)
	}
	return data, nil
}

// Prune deletes the chunk files whose ids keep does not keep, and returns how
// many it deleted. It deletes only well-named chunk files (Dir/xxxx/<64 hex
// digits>.cacnk with xxxx the id's first four digits) and leaves everything
// else in the folder alone.
func (s LocalStore) Prune(keep func(ChunkID) bool) (removed int, err error) {
	dirs, err := os.ReadDir(s.Dir)
	if err != nil {
		return 0, fmt.Errorf("prune chunk store %s: %w", s.Dir, err)
	}
	for _, d := range dirs {
		if !d.IsDir() || !isPrefixDir(d.Name()) {
			continue
		}
		sub := filepath.Join(s.Dir, d.Name())
		files, err := os.ReadDir(sub)
		if err != nil {
			return removed, fmt.Errorf("prune chunk store %s: %w", s.Dir, err)
		}
		for _, f := range files {
			name := f.Name()
			if !f.Type().IsRegular() || !strings.HasSuffix(name, chunkExt) {
				continue
			}
			id, err := ParseChunkID(strings.TrimSuffix(name, chunkExt))
			if err != nil || !strings.HasPrefix(name, d.Name()) || keep(id) {
				continue
			}
			if err := os.Remove(filepath.Join(sub, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return removed, fmt.Errorf("prune chunk store %s: %w", s.Dir, err)
			}
			removed++
		}
	}
	return removed, nil
}

// isPrefixDir reports whether name is four lowercase hex digits.
func isPrefixDir(name string) bool {
	if len(name) != 4 {
		return false
	}
	for i := 0; i < 4; i++ {
		if c := name[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
