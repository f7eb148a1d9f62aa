package lzma2

import (
	"bytes"
	"errors"
	"io"
	"os/exec"
	"testing"

	"github.com/mjolnir-forge/forgesync/internal/toolcheck"
)

// xzTool compresses data with the xz program and these arguments.
func xzTool(t *testing.T, data []byte, args ...string) []byte {
	t.Helper()
	xz := toolcheck.Need(t, "xz")[0]
	cmd := exec.Command(xz, append(args, "-c")...)
	cmd.Stdin = bytes.NewReader(data)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("xz %v: %v", args, err)
	}
	return out
}

func decodeXZ(in []byte, maxDict int) ([]byte, error) {
	r, err := NewXZReader(bytes.NewReader(in), maxDict)
	if err != nil {
		return nil, err
	}
	return io.ReadAll(r)
}

const testMaxDict = 16 << 20

// TestXZReader decodes what the xz program writes: each check type, the
// presets of the dictionary limit, empty input, several blocks, several
// streams and stream padding.
func TestXZReader(t *testing.T) {
	data := append(textLike(300<<10, 3), randomBytes(100<<10, 4)...)
	for _, tc := range []struct {
		name string
		data []byte
		args []string
	}{
		{"crc64", data, []string{"-6"}},
		{"crc32", data, []string{"-1", "-C", "crc32"}},
		{"sha256", data, []string{"-3", "-C", "sha256"}},
		{"no check", data, []string{"-0", "-C", "none"}},
		{"empty", nil, []string{"-6"}},
		{"blocks", data, []string{"-6", "--block-size=65536"}},
		{"blocks with sizes", data, []string{"-6", "-T2", "--block-size=100000"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := xzTool(t, tc.data, tc.args...)
			got, err := decodeXZ(x, testMaxDict)
			if err != nil || !bytes.Equal(got, tc.data) {
				t.Fatalf("decodeXZ(xz %v) = %d bytes, %v; want the %d bytes", tc.args, len(got), err, len(tc.data))
			}
		})
	}
	t.Run("streams and padding", func(t *testing.T) {
		a, b := textLike(5000, 5), randomBytes(3000, 6)
		x := append(xzTool(t, a, "-6"), make([]byte, 8)...)
		x = append(x, xzTool(t, b, "-2", "-C", "crc32")...)
		x = append(x, make([]byte, 1024)...)
		got, err := decodeXZ(x, testMaxDict)
		if err != nil || !bytes.Equal(got, append(a, b...)) {
			t.Fatalf("decodeXZ(two streams, padding) = %d bytes, %v", len(got), err)
		}
		for _, bad := range [][]byte{append(x, 0), append(x, 0, 0, 0, 1), append(x, 'x', 'y', 'z', 'w')} {
			if _, err := decodeXZ(bad, testMaxDict); !errors.Is(err, errData) {
				t.Errorf("decodeXZ(bad padding %x) = %v; want ErrData", bad[len(x):], err)
			}
		}
	})
}

// TestXZReaderRefuses: a dictionary over the limit and a filter other
// than LZMA2 are refused by rule, before decoding.
func TestXZReaderRefuses(t *testing.T) {
	data := textLike(10000, 7)
	if _, err := decodeXZ(xzTool(t, data, "-9"), testMaxDict); !errors.Is(err, ErrDictTooLarge) {
		t.Errorf("decodeXZ(xz -9) = %v; want ErrDictTooLarge", err)
	}
	for args, name := range map[[2]string]string{{"--arm", "--lzma2=preset=6"}: "ARM BCJ", {"--sparc", "--lzma2=preset=6"}: "SPARC BCJ"} {
		_, err := decodeXZ(xzTool(t, data, args[:]...), testMaxDict)
		var fe *FilterError
		if !errors.As(err, &fe) || fe.Name != name || fe.Offset != 12 {
			t.Errorf("decodeXZ(xz %v) = %v; want a *FilterError naming %s at byte 12", args, err, name)
		}
	}
}

// TestXZReaderFilters decodes what xz writes with the delta and x86 BCJ
// filters before LZMA2, on data where they change bytes: x86 code-like
// bytes (E8 and E9 followed by addresses) and samples.
func TestXZReaderFilters(t *testing.T) {
	code := randomBytes(200<<10, 10)
	for i := 0; i+5 < len(code); i += 7 {
		code[i] = 0xe8 + byte(i%2)
		code[i+4] = byte(i%3) * 0x7f // 0x00, 0x7f or 0xfe
		if i%3 == 2 {
			code[i+4] = 0xff
		}
	}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"x86", []string{"--x86", "--lzma2=preset=6"}},
		{"x86 with a start offset", []string{"--x86=start=4096", "--lzma2=preset=6"}},
		{"delta", []string{"--delta=dist=4", "--lzma2=preset=6"}},
		{"delta 256", []string{"--delta=dist=256", "--lzma2=preset=1"}},
		{"delta then x86", []string{"--delta=dist=2", "--x86", "--lzma2=preset=6"}},
		{"x86 in blocks", []string{"--x86", "--lzma2=preset=6", "--block-size=65536"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, data := range [][]byte{code, textLike(100<<10, 11), code[:3], nil} {
				x := xzTool(t, data, tc.args...)
				got, err := decodeXZ(x, testMaxDict)
				if err != nil || !bytes.Equal(got, data) {
					t.Fatalf("decodeXZ(xz %v of %d bytes) = %d bytes, %v", tc.args, len(data), len(got), err)
				}
			}
		})
	}
}

// TestXZReaderDamage: every byte of a small .xz file with a CRC64 check
// is covered, by the structure or a checksum: any one byte changed, and
// the file cut anywhere, is an error, never other data.
func TestXZReaderDamage(t *testing.T) {
	data := append(textLike(3000, 8), randomBytes(500, 9)...)
	x := xzTool(t, data, "--lzma2=preset=6,dict=64KiB")
	for i := range x {
		for _, flip := range []byte{0x01, 0x80, 0xff} {
			bad := bytes.Clone(x)
			bad[i] ^= flip
			if got, err := decodeXZ(bad, testMaxDict); err == nil {
				t.Fatalf("decodeXZ with byte %d ^ %#02x = %d bytes, no error", i, flip, len(got))
			}
		}
	}
	for n := range len(x) {
		if _, err := decodeXZ(x[:n], testMaxDict); err == nil {
			t.Fatalf("decodeXZ(first %d of %d bytes) = no error", n, len(x))
		}
	}
}
