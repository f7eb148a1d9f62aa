package iostore_test

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/mjolnir-forge/forgesync/installer/iostore"
	"github.com/mjolnir-forge/forgesync/installer/iostore/tocfixture"
)

// bigContainer returns a 100,000-chunk container whose last chunks are the
// two surface exports, so the check must scan every id.
func bigContainer() tocfixture.Container {
	r := rand.New(rand.NewPCG(1, 2))
	kinds := []iostore.Kind{iostore.KindExportBundleData, iostore.KindBulkData, iostore.KindOptionalBulkData}
	c := tocfixture.Container{Engine: tocfixture.UE5, Flags: iostore.FlagIndexed}
	for range 100_000 - 3 { // 3: two exports and the container header
		c.Chunks = append(c.Chunks, tocfixture.Chunk{ID: r.Uint64(), Kind: kinds[r.IntN(len(kinds))]})
	}
	c.Chunks = append(c.Chunks, tocfixture.Export(glass), tocfixture.Export(green))
	return c
}

// BenchmarkRequire100k runs the presence check over a 100,000-entry TOC on
// disk (from the page cache after the first run); the target is well under
// 5 ms per check.
func BenchmarkRequire100k(b *testing.B) {
	dir := b.TempDir()
	c := bigContainer()
	if err := c.Write(filepath.Join(dir, "content"), "Big"); err != nil {
		b.Fatal(err)
	}
	fsys := os.DirFS(dir)
	b.SetBytes(iostore.HeaderSize + 100_000*iostore.ChunkIDSize)
	b.ReportAllocs()
	for b.Loop() {
		missing, err := iostore.Require(fsys, "content", both)
		if err != nil || missing != nil {
			b.Fatalf("Require = %v, %v", missing, err)
		}
	}
}

// BenchmarkRequire100kMem is BenchmarkRequire100k without the file system.
func BenchmarkRequire100kMem(b *testing.B) {
	c := bigContainer()
	fsys := fstest.MapFS{"content/Big.utoc": {Data: c.UTOC()}, "content/Big.ucas": {}}
	b.SetBytes(iostore.HeaderSize + 100_000*iostore.ChunkIDSize)
	b.ReportAllocs()
	for b.Loop() {
		missing, err := iostore.Require(fsys, "content", both)
		if err != nil || missing != nil {
			b.Fatalf("Require = %v, %v", missing, err)
		}
	}
}

// BenchmarkReadFile100k reads the whole chunk list, as `forgesync utoc`.
func BenchmarkReadFile100k(b *testing.B) {
	dir := b.TempDir()
	if err := bigContainer().Write(dir, "Big"); err != nil {
		b.Fatal(err)
	}
	p := filepath.Join(dir, "Big.utoc")
	b.ReportAllocs()
	for b.Loop() {
		toc, err := iostore.ReadFile(p)
		if err != nil || len(toc.Chunks) != 100_000 {
			b.Fatalf("ReadFile = %v", err)
		}
	}
}
