package lzma2

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"sync"
	"testing"

	"github.com/ulikunitz/xz"
	"github.com/ulikunitz/xz/lzma"
)

// benchData is the text the benchmarks decode: the file named by
// LZMA2_BENCH_FILE, or 16 MiB of textLike; raw, xz and alone are it
// compressed by `xz -6` as raw LZMA2, as an .xz file and as an .lzma file
// (read from FILE.lzma2, FILE.xz and FILE.lzma when they exist).
var benchData struct {
	once                sync.Once
	text, raw, x, alone []byte
	err                 error
}

const benchDict = 8 << 20 // xz -6

func loadBench(b *testing.B) ([]byte, []byte, []byte) {
	d := &benchData
	d.once.Do(func() {
		if f := os.Getenv("LZMA2_BENCH_FILE"); f != "" {
			d.text, d.err = os.ReadFile(f)
		} else {
			d.text = textLike(16<<20, 13)
		}
		if d.err != nil {
			return
		}
		xz := func(args ...string) []byte {
			cmd := exec.Command("xz", args...)
			cmd.Stdin = bytes.NewReader(d.text)
			out, err := cmd.Output()
			if err != nil && d.err == nil {
				d.err = err
			}
			return out
		}
		// Made beforehand (FILE.lzma2, FILE.xz), they spare the minutes
		// xz takes on a large file.
		f := os.Getenv("LZMA2_BENCH_FILE")
		if d.raw, _ = os.ReadFile(f + ".lzma2"); f == "" || d.raw == nil {
			d.raw = xz("--format=raw", "--lzma2=preset=6", "-c")
		}
		if d.x, _ = os.ReadFile(f + ".xz"); f == "" || d.x == nil {
			d.x = xz("-6", "-c")
		}
		if d.alone, _ = os.ReadFile(f + ".lzma"); f == "" || d.alone == nil {
			d.alone = xz("--format=lzma", "-6", "-c")
		}
	})
	if d.err != nil {
		b.Skipf("bench data: %v", d.err)
	}
	return d.text, d.raw, d.x
}

func benchDecode(b *testing.B, open func() io.Reader) {
	text, _, _ := loadBench(b)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		n, err := io.Copy(io.Discard, open())
		if err != nil || n != int64(len(text)) {
			b.Fatalf("decoded %d bytes: %v", n, err)
		}
	}
}

func BenchmarkDecode(b *testing.B) {
	b.Run("lzma2", func(b *testing.B) {
		text, raw, _ := loadBench(b)
		benchDecode(b, func() io.Reader { return NewReader(bytes.NewReader(raw), benchDict, uint64(len(text))) })
	})
	b.Run("xz", func(b *testing.B) {
		_, _, x := loadBench(b)
		benchDecode(b, func() io.Reader {
			r, err := NewXZReader(bytes.NewReader(x), benchDict)
			if err != nil {
				b.Fatal(err)
			}
			return r
		})
	})
	b.Run("ulikunitz-xz", func(b *testing.B) {
		_, _, x := loadBench(b)
		benchDecode(b, func() io.Reader {
			r, err := xz.ReaderConfig{DictCap: benchDict}.NewReader(bytes.NewReader(x))
			if err != nil {
				b.Fatal(err)
			}
			return r
		})
	})
	b.Run("ulikunitz", func(b *testing.B) {
		_, raw, _ := loadBench(b)
		benchDecode(b, func() io.Reader {
			r, err := lzma.Reader2Config{DictCap: benchDict}.NewReader2(bytes.NewReader(raw))
			if err != nil {
				b.Fatal(err)
			}
			return r
		})
	})
}

// BenchmarkDecodeLZMA decodes the LZMA (LZMA1) stream of an .lzma file,
// its header stripped for this package's reader, as a 7z LZMA coder's.
func BenchmarkDecodeLZMA(b *testing.B) {
	b.Run("lzma", func(b *testing.B) {
		text, _, _ := loadBench(b)
		alone := benchData.alone
		benchDecode(b, func() io.Reader {
			r, err := NewLZMAReader(bytes.NewReader(alone[13:]), [5]byte(alone), uint64(len(text)))
			if err != nil {
				b.Fatal(err)
			}
			return r
		})
	})
	b.Run("ulikunitz", func(b *testing.B) {
		loadBench(b)
		alone := benchData.alone
		benchDecode(b, func() io.Reader {
			r, err := lzma.NewReader(bytes.NewReader(alone))
			if err != nil {
				b.Fatal(err)
			}
			return r
		})
	})
}
