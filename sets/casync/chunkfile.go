package casync

import (
	"bytes"
	"fmt"
	"io"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// maxWindow bounds the window a chunk's zstd frame may ask the decoder for:
// a chunk is at most DefaultMaxChunkSize bytes, so no honest frame needs
// more, and a hostile one cannot make the decoder allocate a large window.
const maxWindow = 8 << 20

var (
	encoderOnce sync.Once
	encoder     *zstd.Encoder

	// decoders holds streaming decoders; each decodes one frame at a time
	// synchronously, so its memory is its window and one block.
	decoders = sync.Pool{New: func() any {
		d, err := zstd.NewReader(nil,
			zstd.WithDecoderConcurrency(1),
			zstd.WithDecoderLowmem(true),
			zstd.WithDecoderMaxWindow(maxWindow),
			zstd.WithDecoderMaxMemory(maxWindow+1<<20))
		if err != nil {
			// The options are constant: this cannot fail at run time.
			panic(fmt.Sprintf("casync: zstd decoder: %v", err))
		}
		return d
	}}
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

// DecodeChunk decompresses a chunk file's bytes and checks them against id.
// It decompresses at most maxSize+1 bytes: a frame that would give more (a
// zstd bomb) is refused once that many have come out, so a hostile chunk
// costs at most maxSize+1 bytes of memory. Errors name the chunk id and what
// was wrong, and wrap ErrChunkInvalid. maxSize may be at most
// DefaultMaxChunkSize.
func DecodeChunk(id ChunkID, compressed []byte, maxSize uint64) ([]byte, error) {
	if maxSize > DefaultMaxChunkSize {
		return nil, fmt.Errorf("decode chunk %s: a limit of %d bytes is over the largest chunk size %d: %w", id, maxSize, DefaultMaxChunkSize, ErrChunkInvalid)
	}
	d := decoders.Get().(*zstd.Decoder)
	defer decoders.Put(d)
	if err := d.Reset(bytes.NewReader(compressed)); err != nil {
		return nil, fmt.Errorf("decode chunk %s: %w: %w", id, ErrChunkInvalid, err)
	}
	// Grow the buffer as bytes come, not by maxSize: a caller may pass a
	// generous bound.
	var out bytes.Buffer
	n, err := out.ReadFrom(io.LimitReader(d, int64(maxSize)+1))
	// Release the decoder's hold on compressed before it goes back to the pool.
	_ = d.Reset(bytes.NewReader(nil))
	if err != nil {
		return nil, fmt.Errorf("decode chunk %s: after %d bytes: %w: %w", id, n, ErrChunkInvalid, err)
	}
	if uint64(n) > maxSize {
		return nil, fmt.Errorf("decode chunk %s: it decompresses to more than %d bytes (%d compressed): %w", id, maxSize, len(compressed), ErrChunkInvalid)
	}
	data := out.Bytes()
	if got := Sum(data); got != id {
		return nil, fmt.Errorf("decode chunk %s: its %d bytes have the digest %s: %w", id, len(data), got, ErrChunkInvalid)
	}
	return data, nil
}
