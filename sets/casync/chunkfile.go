package casync

import (
	"errors"
	"fmt"
	"sync"

	"github.com/klauspost/compress/zstd"

	izstd "github.com/mjolnir-forge/forgesync/internal/zstd"
)

// maxWindow bounds the window a chunk's zstd frame may ask the decoder for:
// a chunk is at most DefaultMaxChunkSize bytes, so no honest frame needs
// more, and a hostile one cannot make the decoder allocate a large window.
const maxWindow = 8 << 20

var (
	encoderOnce sync.Once
	encoder     *zstd.Encoder
)

// EncodeChunk returns a chunk's uncompressed bytes as a zstd frame, the form
// casync and desync store (.cacnk). It is safe for concurrent use.
func EncodeChunk(data []byte) []byte {
	encoderOnce.Do(func() {
		e, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
		if err != nil {
			panic(fmt.Sprintf("casync: zstd encoder: %v", err))
		}
		encoder = e
	})
	return encoder.EncodeAll(data, make([]byte, 0, len(data)/2+64))
}

// DecodeChunk decompresses a chunk file's bytes with internal/zstd and
// checks them against id. It decompresses at most one block (128 KiB) past
// maxSize: a frame that would give more (a zstd bomb) is refused there, so
// a hostile chunk costs about twice that in memory at most. Errors name the chunk id and what
// was wrong, and wrap ErrChunkInvalid. maxSize may be at most
// DefaultMaxChunkSize.
func DecodeChunk(id ChunkID, compressed []byte, maxSize uint64) ([]byte, error) {
	if maxSize > DefaultMaxChunkSize {
		return nil, fmt.Errorf("decode chunk %s: a limit of %d bytes is over the largest chunk size %d: %w", id, maxSize, DefaultMaxChunkSize, ErrChunkInvalid)
	}
	// DecodeAll sizes its buffer by what the frame claims only up to
	// maxSize and 16 times the compressed bytes, then grows it as blocks
	// come: a caller may pass a generous bound.
	data, err := izstd.DecodeAll(nil, compressed, maxWindow, maxSize)
	if errors.Is(err, izstd.ErrSize) {
		return nil, fmt.Errorf("decode chunk %s: it decompresses to more than %d bytes (%d compressed): %w", id, maxSize, len(compressed), ErrChunkInvalid)
	}
	if err != nil {
		return nil, fmt.Errorf("decode chunk %s: after %d bytes: %w: %w", id, len(data), ErrChunkInvalid, err)
	}
	if got := Sum(data); got != id {
		return nil, fmt.Errorf("decode chunk %s: its %d bytes have the digest %s: %w", id, len(data), got, ErrChunkInvalid)
	}
	return data, nil
}
