package intake

import (
	"archive/zip"
	"bytes"
	"fmt"
	"hash/crc32"
	"slices"
	"strings"
	"testing"
)

// zstdRawFrame is a zstd frame that declares a window of 1<<windowLog
// bytes and holds data in raw blocks: what a --long=N compressor writes,
// without having to allocate the window to make it.
func zstdRawFrame(windowLog int, data []byte) []byte {
	b := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, byte(windowLog-10) << 3}
	for first := true; first || len(data) > 0; first = false {
		n := min(len(data), 128<<10)
		last := 0
		if n == len(data) {
			last = 1
		}
		h := uint32(n)<<3 | uint32(last) // raw block
		b = append(b, byte(h), byte(h>>8), byte(h>>16))
		b = append(b, data[:n]...)
		data = data[n:]
	}
	return b
}

// zipWithRaw is a good pack plus one entry whose data is written raw under
// the given method number.
func zipWithRaw(t *testing.T, method uint16, raw []byte, size uint64) []byte {
	t.Helper()
	return zipWithRawCRC(t, method, raw, size, 0)
}

func zipWithRawCRC(t *testing.T, method uint16, raw []byte, size uint64, crc uint32) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range goodPack("") {
		fw, err := zw.Create(e.name)
		if err != nil {
			t.Fatal(err)
		}
		fw.Write(e.body)
	}
	fw, err := zw.CreateRaw(&zip.FileHeader{Name: "content/odd.pak", Method: method, CRC32: crc,
		CompressedSize64: uint64(len(raw)), UncompressedSize64: size})
	if err != nil {
		t.Fatal(err)
	}
	fw.Write(raw)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestExtractRejectsUnboundedDecoders holds the cases of issue 10 that Go
// can build: each is refused by its rule before a decoder runs.
func TestExtractRejectsUnboundedDecoders(t *testing.T) {
	tarball := func(t *testing.T) []byte { return tarBytes(t, goodPack("")) }
	payload := []byte("forge pack content\n")
	for _, tc := range []struct {
		name  string
		build func(t *testing.T) []byte
		wants []want
	}{
		{"lzip header that panicked the identifier", func(*testing.T) []byte { return []byte("LZIP\x01\x0cAB") }, []want{{rule: RuleNotArchive}}},
		{"lzip of a tar", func(t *testing.T) []byte { return append([]byte("LZIP\x01\x0c"), tarball(t)...) }, []want{{rule: RuleNotArchive}}},
		{"bzip2 stream", func(*testing.T) []byte { return []byte("BZh91AY&SY\x00\x00") }, []want{{rule: RuleNotArchive}}},
		{"lz4 frame", func(*testing.T) []byte { return []byte{0x04, 0x22, 0x4d, 0x18, 0x64, 0x40, 0xa7, 0, 0, 0, 0} }, []want{{rule: RuleNotArchive}}},
		{"brotli-looking bytes", func(*testing.T) []byte { return []byte{0x8b, 0x02, 0x80, 'h', 'i', 0x03} }, []want{{rule: RuleNotArchive}}},
		{"gzip of no tar", func(t *testing.T) []byte { return gzipBytes(t, []byte("not a tar at all")) }, []want{{rule: RuleNotArchive}}},
		{"zstd of no tar", func(*testing.T) []byte { return zstdRawFrame(20, []byte("not a tar at all")) }, []want{{rule: RuleNotArchive}}},
		{"tar.zst --long=27", func(t *testing.T) []byte { return zstdRawFrame(27, tarball(t)) }, []want{{rule: RuleDecoderMemory}}},
		{"tar.zst --long=30", func(t *testing.T) []byte { return zstdRawFrame(30, tarball(t)) }, []want{{rule: RuleDecoderMemory}}},
		{"tar.zst --long=31", func(t *testing.T) []byte { return zstdRawFrame(31, tarball(t)) }, []want{{rule: RuleDecoderMemory}}},
		{"zip zstd entry with a 256 MiB window", func(t *testing.T) []byte {
			return zipWithRaw(t, zipZstd, zstdRawFrame(28, payload), uint64(len(payload)))
		}, []want{w("content/odd.pak", RuleDecoderMemory)}},
		{"zip bzip2 method", func(t *testing.T) []byte { return zipWithRaw(t, 12, []byte("BZh9"), 10) }, []want{w("content/odd.pak", RuleMethod)}},
		{"zip LZMA method", func(t *testing.T) []byte { return zipWithRaw(t, 14, []byte{9, 20, 5, 0}, 10) }, []want{w("content/odd.pak", RuleMethod)}},
		{"zip xz method", func(t *testing.T) []byte { return zipWithRaw(t, 95, []byte{0xfd, '7'}, 10) }, []want{w("content/odd.pak", RuleMethod)}},
		{"zip unknown method", func(t *testing.T) []byte { return zipWithRaw(t, 77, []byte{1}, 10) }, []want{w("content/odd.pak", RuleMethod)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mustReject(t, writeArchive(t, "evil.zip", tc.build(t)), DefaultLimits(), tc.wants...)
		})
	}
}

// TestExtractZipZstdWithinWindow installs a zip whose entry is zstd with
// an ordinary window.
func TestExtractZipZstdWithinWindow(t *testing.T) {
	body := []byte("zstd in a zip\n")
	b := zipWithRawCRC(t, zipZstd, zstdRawFrame(20, body), uint64(len(body)), crc32.ChecksumIEEE(body))
	want := append(goodFiles(), File{Path: "content/odd.pak", Size: int64(len(body))})
	slices.SortFunc(want, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	st := mustExtract(t, writeArchive(t, "z.zip", b), want)
	st.Remove()
}

// TestZstdDamageSaysWhere: a damaged zstd stream, in a tar.zst or in a
// zip entry of method 93, is refused as damage that names the frame, the
// block and the byte of the stream where it lies, and what is wrong.
func TestZstdDamageSaysWhere(t *testing.T) {
	tb := tarBytes(t, goodPack(""))
	half := len(tb) / 2
	first := zstdRawFrame(20, tb[:half])
	reserved := func(f []byte) []byte {
		f[6] |= 3 << 1 // the first block's type: 3 is reserved
		return f
	}
	payload := []byte("forge pack content\n")
	for _, tc := range []struct {
		name, file string
		b          []byte
		entry      string
		value      string
	}{
		{"tar.zst, second frame", "p.tar.zst", append(bytes.Clone(first), reserved(zstdRawFrame(20, tb[half:]))...), "",
			fmt.Sprintf("frame 1, block 0 at byte %d: reserved block type", len(first)+6)},
		{"zip entry", "p.zip", zipWithRaw(t, zipZstd, reserved(zstdRawFrame(20, payload)), uint64(len(payload))), "content/odd.pak",
			"frame 0, block 0 at byte 6: reserved block type"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			re := mustReject(t, writeArchive(t, tc.file, tc.b), DefaultLimits(), want{entry: tc.entry, rule: RuleCorrupt, anyEntry: tc.entry == ""})
			if !slices.ContainsFunc(re.Problems, func(p Problem) bool { return strings.Contains(p.Value, tc.value) }) {
				t.Errorf("problems = %v; want one that says %q", re.Problems, tc.value)
			}
		})
	}
}

// TestZstdDictionaryIsMethod: a tar.zst whose frame names a dictionary
// (zstd --dict) is refused by the method rule, which says to compress
// without one, not as damage.
func TestZstdDictionaryIsMethod(t *testing.T) {
	frame := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x21, 0x07, 0, 1, 0, 0} // dictionary 7, one empty raw block
	re := mustReject(t, writeArchive(t, "p.tar.zst", frame), DefaultLimits(), want{rule: RuleMethod, anyEntry: true})
	if !slices.ContainsFunc(re.Problems, func(p Problem) bool { return strings.Contains(p.Value, "zstd frame 0 at byte 0 needs a dictionary") }) {
		t.Errorf("problems = %v; want the dictionary named as the reason", re.Problems)
	}
}
