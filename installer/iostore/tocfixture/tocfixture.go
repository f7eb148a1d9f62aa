// Package tocfixture owns building small IoStore containers for tests and
// examples: .utoc bytes in the UE 4.27 (TOC version 3) or UE5 (version 8)
// layout, with a container header chunk, chosen chunks and flags, and a
// matching placeholder .ucas.
//
// The TOC is laid out section by section as the engine writes it (header,
// chunk ids, offsets and lengths, perfect-hash seeds from version 4,
// compressed blocks, compression method names, signatures when Signed,
// chunk metadata), with every count consistent, so iostore and
// any other reader accept it. The .ucas holds one small placeholder block
// per chunk and the hashes are zero: the containers are made for
// forgesync's presence check and archive tests, and the engine would not
// load them as assets.
//
// The example pack's content (examples/glass-works/content/) was made with
//
//	go run ./cmd/gensurfaces -pack glass-works -out cmd/forgesync/examples/glass-works
//
// which writes content/Surfaces.utoc and content/Surfaces.ucas (UE5 layout,
// TOC version 8) carrying ExportBundleData chunks for
// /Game/MJOLNIR/Forge/glass-works/Surfaces/MI_GlassCyan and
// .../MI_TeleporterGreen, each with a BulkData chunk beside it. The same
// command is recorded as a go:generate line in gensurfaces.
package tocfixture

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"

	"github.com/mjolnir-forge/forgesync/installer/iostore"
	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
)

// Engine selects the TOC layout a fixture is written in.
type Engine int

// The engines a fixture can imitate.
const (
	UE427 Engine = iota + 1 // TOC version 3, UE 4.27 chunk types, little-endian chunk index
	UE5                     // TOC version 8, UE5 chunk types, big-endian chunk index
)

// Layout returns the iostore chunk-type layout of e.
func (e Engine) Layout() iostore.Layout {
	if e == UE427 {
		return iostore.LayoutUE4
	}
	return iostore.LayoutUE5
}

// Version returns the TOC version e writes by default: 3 or 8.
func (e Engine) Version() uint8 {
	if e == UE427 {
		return 3
	}
	return 8
}

// Chunk is one chunk of a fixture: its id, index and kind; the raw type
// number comes from the engine's layout unless RawType is set.
type Chunk struct {
	ID      uint64
	Index   uint16
	Kind    iostore.Kind
	RawType uint8 // when non-zero, written as is instead of Kind's number
}

// Export returns the chunk that satisfies a required package: the
// ExportBundleData chunk, index 0, of the long package name.
func Export(name string) Chunk {
	return Chunk{ID: iostore.PackageID(name), Kind: iostore.KindExportBundleData}
}

// Bulk returns a BulkData chunk (index 0) of the long package name, which
// does not satisfy a required package.
func Bulk(name string) Chunk {
	return Chunk{ID: iostore.PackageID(name), Kind: iostore.KindBulkData}
}

// Container describes a fixture container.
type Container struct {
	Engine Engine // UE427 or UE5; zero means UE5
	// Version overrides the engine's TOC version when non-zero. The
	// header's version-dependent sections follow it.
	Version uint8
	// ContainerID is the container's id; zero derives one from the chunks.
	ContainerID uint64
	Flags       iostore.Flags
	// NoContainerHeader leaves out the container header chunk, so readers
	// must fall back on the version to pick the layout.
	NoContainerHeader bool
	Chunks            []Chunk
}

func (c Container) engine() Engine {
	if c.Engine == 0 {
		return UE5
	}
	return c.Engine
}

func (c Container) version() uint8 {
	if c.Version != 0 {
		return c.Version
	}
	return c.engine().Version()
}

func (c Container) containerID() uint64 {
	if c.ContainerID != 0 {
		return c.ContainerID
	}
	h := fnv.New64a()
	var b [8]byte
	for _, ch := range c.Chunks {
		binary.LittleEndian.PutUint64(b[:], ch.ID)
		h.Write(b[:])
	}
	if id := h.Sum64(); id != 0 {
		return id
	}
	return 1
}

// chunks returns the chunks in file order: the given ones, then the
// container header chunk unless left out.
func (c Container) chunks() []Chunk {
	all := append([]Chunk(nil), c.Chunks...)
	if !c.NoContainerHeader {
		all = append(all, Chunk{ID: c.containerID(), Kind: iostore.KindContainerHeader})
	}
	return all
}

// blockSize is the size of each chunk's placeholder data in the .ucas.
const blockSize = 32

// compressionBlockSize is the header's compression block size, the
// engine's default of 64 KiB.
const compressionBlockSize = 64 << 10

// UTOC returns the bytes of the container's .utoc file.
func (c Container) UTOC() []byte {
	var (
		le      = binary.LittleEndian
		e       = c.engine()
		v       = c.version()
		chunks  = c.chunks()
		n       = uint32(len(chunks))
		indexed = c.Flags.Has(iostore.FlagIndexed)
	)
	dirIndex := directoryIndex(indexed)
	b := c.header(v, n, len(dirIndex))
	b = appendChunkIDs(b, e, chunks)
	// Offsets and lengths: 5-byte big-endian offset, 5-byte length; each
	// chunk starts on its own compression block.
	for i := range chunks {
		b = appendUint40(b, uint64(i)*compressionBlockSize)
		b = appendUint40(b, blockSize)
	}
	// Perfect-hash seeds (none) and chunks without a perfect hash (none).
	// Compressed blocks: offset (40 bits), compressed size (24),
	// uncompressed size (24), method index (8), little-endian.
	for i := range chunks {
		var blk [12]byte
		off := uint64(i) * blockSize
		for j := range 5 {
			blk[j] = byte(off >> (8 * j))
		}
		for j := range 3 {
			blk[5+j] = byte(blockSize >> (8 * j))
			blk[8+j] = byte(blockSize >> (8 * j))
		}
		b = append(b, blk[:]...)
	}
	// Signatures: hash size 0 (empty TOC and block signatures), then one
	// zero SHA-1 per block.
	if c.Flags.Has(iostore.FlagSigned) {
		b = le.AppendUint32(b, 0)
		b = append(b, make([]byte, 20*len(chunks))...)
	}
	b = append(b, dirIndex...)
	// Chunk metadata: a 32-byte hash and a flag byte before version 8,
	// a 20-byte hash, a flag byte and padding from version 8.
	meta := 33
	if v >= 8 {
		meta = 24
	}
	b = append(b, make([]byte, meta*len(chunks))...)
	return b
}

// header returns the .utoc header of a container of version v with n
// chunks and a directory index of dirIndex bytes.
func (c Container) header(v uint8, n uint32, dirIndex int) []byte {
	le := binary.LittleEndian
	h := make([]byte, iostore.HeaderSize)
	copy(h, iostore.Magic)
	h[16] = v
	le.PutUint32(h[20:], iostore.HeaderSize)
	le.PutUint32(h[24:], n)
	le.PutUint32(h[28:], n) // one compressed block per chunk
	le.PutUint32(h[32:], 12)
	le.PutUint32(h[36:], 0)  // no compression methods
	le.PutUint32(h[40:], 32) // method name length
	le.PutUint32(h[44:], compressionBlockSize)
	le.PutUint32(h[48:], uint32(dirIndex))
	le.PutUint32(h[52:], 1) // partition count
	le.PutUint64(h[56:], c.containerID())
	if c.Flags.Has(iostore.FlagEncrypted) {
		copy(h[64:80], "forgesync-fixtur") // a key GUID; nothing is encrypted
	}
	h[80] = byte(c.Flags)
	le.PutUint64(h[88:], ^uint64(0)) // partition size: unlimited
	return h
}

// appendChunkIDs appends the chunk ids: id, index (little-endian before
// UE5, big-endian after) and type.
func appendChunkIDs(b []byte, e Engine, chunks []Chunk) []byte {
	le := binary.LittleEndian
	layout := e.Layout()
	for _, ch := range chunks {
		var id [12]byte
		le.PutUint64(id[:], ch.ID)
		if e == UE427 {
			le.PutUint16(id[8:], ch.Index)
		} else {
			binary.BigEndian.PutUint16(id[8:], ch.Index)
		}
		t := ch.RawType
		if t == 0 {
			var ok bool
			if t, ok = layout.TypeOf(ch.Kind); !ok {
				panic(fmt.Sprintf("tocfixture: %v has no %v chunk type", layout, ch.Kind))
			}
		}
		id[11] = t
		b = append(b, id[:]...)
	}
	return b
}

// directoryIndex returns a minimal directory index when indexed: an empty
// mount point and no directories, files or names.
func directoryIndex(indexed bool) []byte {
	if !indexed {
		return nil
	}
	// FString mount point (length 1: just the terminator), then three
	// empty arrays: directory entries, file entries, string table.
	var b []byte
	b = binary.LittleEndian.AppendUint32(b, 1)
	b = append(b, 0)
	for range 3 {
		b = binary.LittleEndian.AppendUint32(b, 0)
	}
	return b
}

func appendUint40(b []byte, v uint64) []byte {
	return append(b, byte(v>>32), byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
}

// UCAS returns the bytes of a placeholder .ucas matching UTOC: one
// 32-byte block per chunk naming the chunk.
func (c Container) UCAS() []byte {
	chunks := c.chunks()
	b := make([]byte, 0, blockSize*len(chunks))
	for i, ch := range chunks {
		blk := fmt.Sprintf("chunk %04d %016X", i, ch.ID)
		b = append(b, fmt.Sprintf("%-*s", blockSize-1, blk)[:blockSize-1]...)
		b = append(b, '\n')
	}
	return b
}

// Write writes dir/base.utoc and dir/base.ucas, creating dir, each file
// replaced atomically.
func (c Container) Write(dir, base string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("tocfixture: %w", err)
	}
	for _, f := range []struct {
		ext  string
		data []byte
	}{{".utoc", c.UTOC()}, {".ucas", c.UCAS()}} {
		p := filepath.Join(dir, base+f.ext)
		if err := atomicfile.WriteFile(p, f.data, 0o644); err != nil {
			return fmt.Errorf("tocfixture: write %s: %w", p, err)
		}
	}
	return nil
}

// SurfacePackages returns the long package names a pack's surface profiles
// need (SPEC §5): MI_GlassCyan and MI_TeleporterGreen under the pack's
// Surfaces folder.
func SurfacePackages(pack string) []string {
	base := "/Game/MJOLNIR/Forge/" + pack + "/Surfaces/"
	return []string{base + "MI_GlassCyan", base + "MI_TeleporterGreen"}
}

// Surfaces returns a container carrying, for each of the pack's surface
// packages, its ExportBundleData chunk and a BulkData chunk.
func Surfaces(e Engine, pack string) Container {
	c := Container{Engine: e}
	for _, n := range SurfacePackages(pack) {
		c.Chunks = append(c.Chunks, Export(n), Bulk(n))
	}
	return c
}
