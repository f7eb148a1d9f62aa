package zstd

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"sync"
	"testing"

	kzstd "github.com/klauspost/compress/zstd"
)

// benchCorpus is one input of the benchmarks: its bytes and them
// compressed by `zstd -3` (the CLI's default, as hosts make .tar.zst).
type benchCorpus struct {
	name    string
	data, z []byte
}

// benchData holds the corpora: 16 MiB of text, 16 MiB of noise and 16
// MiB of a .pak-like mix, or ZSTD_BENCH_FILE as a fourth.
var benchData struct {
	once    sync.Once
	corpora []benchCorpus
	err     error
}

func loadBench(b *testing.B) []benchCorpus {
	d := &benchData
	d.once.Do(func() {
		d.corpora = []benchCorpus{
			{name: "text", data: textLike(16<<20, 11)},
			{name: "random", data: randomBytes(16<<20, 12)},
			{name: "pak", data: pakLike(16<<20, 13)},
		}
		if f := os.Getenv("ZSTD_BENCH_FILE"); f != "" {
			data, err := os.ReadFile(f)
			if err != nil {
				d.err = err
				return
			}
			d.corpora = append(d.corpora, benchCorpus{name: "file", data: data})
		}
		for i := range d.corpora {
			c := &d.corpora[i]
			cmd := exec.Command("zstd", "-q", "-c", "-3")
			cmd.Stdin = bytes.NewReader(c.data)
			if c.z, d.err = cmd.Output(); d.err != nil {
				return
			}
		}
	})
	if d.err != nil {
		b.Skipf("zstd CLI: %v", d.err)
	}
	return d.corpora
}

// BenchmarkDecode decodes each corpus with ours and with klauspost's, as
// a stream (io.Copy to io.Discard: Reader and klauspost's NewReader with
// one goroutine, each reading a plain io.Reader, as from a file) and as a
// whole buffer (DecodeAll).
func BenchmarkDecode(b *testing.B) {
	for _, c := range loadBench(b) {
		b.Run("stream/ours/"+c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.data)))
			z := NewReader(nil, 1<<27)
			defer reportCPU(b, len(c.data))()
			for b.Loop() {
				z.Reset(plainReader{bytes.NewReader(c.z)})
				if _, err := io.Copy(io.Discard, z); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("stream/klauspost/"+c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.data)))
			z, _ := kzstd.NewReader(nil, kzstd.WithDecoderConcurrency(1), kzstd.WithDecoderLowmem(false), kzstd.WithDecoderMaxWindow(1<<27))
			defer z.Close()
			defer reportCPU(b, len(c.data))()
			for b.Loop() {
				_ = z.Reset(plainReader{bytes.NewReader(c.z)})
				if _, err := io.Copy(io.Discard, z); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("all/ours/"+c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.data)))
			out := make([]byte, 0, len(c.data)+1<<20)
			defer reportCPU(b, len(c.data))()
			for b.Loop() {
				if _, err := DecodeAll(out[:0], c.z, 1<<27, 1<<30); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("all/klauspost/"+c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.data)))
			z, _ := kzstd.NewReader(nil, kzstd.WithDecoderConcurrency(1), kzstd.WithDecoderMaxWindow(1<<27))
			defer z.Close()
			out := make([]byte, 0, len(c.data)+1<<20)
			defer reportCPU(b, len(c.data))()
			for b.Loop() {
				if _, err := z.DecodeAll(c.z, out[:0]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// plainReader hides what its Reader is, as a file's is hidden: the
// decoders read it through their own buffers.
type plainReader struct{ io.Reader }

// reportCPU starts counting the process's CPU time; the function it
// returns reports it as cpu-MB/s (decoded bytes per CPU-second), beside
// the wall-clock MB/s, which other work on the machine inflates more.
func reportCPU(b *testing.B, size int) func() {
	start := cpuTime()
	return func() {
		if used := cpuTime() - start; used > 0 && b.N > 0 {
			b.ReportMetric(float64(size)*float64(b.N)/1e6/used.Seconds(), "cpu-MB/s")
		}
	}
}

// TestWriteBenchCorpora writes the benchmarks' corpora to the folder
// ZSTD_BENCH_OUT names, for scripts/bench-zstd.sh to time the zstd CLI on
// the same bytes; without it, it does nothing.
func TestWriteBenchCorpora(t *testing.T) {
	dir := os.Getenv("ZSTD_BENCH_OUT")
	if dir == "" {
		t.Skip("ZSTD_BENCH_OUT not set")
	}
	for name, data := range map[string][]byte{
		"text":   textLike(16<<20, 11),
		"random": randomBytes(16<<20, 12),
		"pak":    pakLike(16<<20, 13),
	} {
		if err := os.WriteFile(dir+"/"+name, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
