//go:build !windows

package intake

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/mjolnir-forge/forgesync/internal/toolcheck"
)

// TestCorrupt7zFileCRC: the CRC-32 a 7z stores for each file was never
// compared, so an archive with one byte of a file changed installed it
// changed, whichever coder packed it. Random content is stored as is by
// LZMA2 (in a folder of its own) and Deflate too, so the byte changed is
// the file's own.
func TestCorrupt7zFileCRC(t *testing.T) {
	random := randomBytes(7, 64<<10)
	files := map[string]string{"content/random.pak": string(random)}
	for _, tc := range []struct {
		name     string
		switches []string
	}{
		{"Copy", []string{"-m0=Copy", "-mhc=off"}},
		{"LZMA2", []string{"-m0=LZMA2", "-ms=off", "-mhc=off"}},
		{"Deflate", []string{"-m0=Deflate", "-mhc=off"}},
		{"LZMA2, header packed", []string{"-m0=LZMA2", "-ms=off"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := sevenZip(t, files, tc.switches...)
			i := bytes.Index(b, random[30000:30032])
			if i < 0 {
				t.Fatalf("the random file's bytes are not stored as they are")
			}
			b[i+10] ^= 0x20
			re := mustReject(t, writeArchive(t, "p.7z", b), DefaultLimits(), want{entry: "content/random.pak", rule: RuleCorrupt})
			checkDamageValue(t, re, "content/random.pak", "CRC-32 mismatch")
		})
	}
}

// TestCorrupt7zLZMA2End: the 7z reader stops reading a folder at its
// declared size, so the LZMA2 end marker after the last byte was never
// read: a damaged one installed. 7z t refuses it.
func TestCorrupt7zLZMA2End(t *testing.T) {
	for _, v := range []byte{0x03, 0x80, 0x01} {
		t.Run(fmt.Sprintf("%#02x", v), func(t *testing.T) {
			b := sevenZip(t, nil, "-m0=LZMA2", "-mhc=off")
			end := 32 + int(binary.LittleEndian.Uint64(b[12:]))
			if b[end-1] != 0 {
				t.Fatalf("the packed stream ends in %#02x, not the LZMA2 end marker", b[end-1])
			}
			b[end-1] = v
			mustReject(t, writeArchive(t, "p.7z", b), DefaultLimits(), want{rule: RuleCorrupt, anyEntry: true})
		})
	}
}

// TestCorrupt7zLZMAEnd: the LZMA (LZMA1) decoder did not check the range
// decoder's state after the last byte, so a 7z whose LZMA pack stream was
// damaged in its last bytes, after the end marker or in the range coder's
// flush, installed intact files. 7z t refuses it. 7z writes no end marker,
// bsdtar one.
func TestCorrupt7zLZMAEnd(t *testing.T) {
	toolcheck.Need(t, "7z", "bsdtar")
	for _, tc := range []struct {
		name string
		make func(t *testing.T) []byte
	}{
		{"7z -m0=LZMA", func(t *testing.T) []byte { return sevenZip(t, nil, "-m0=LZMA", "-mhc=off") }},
		{"7z -m0=LZMA:eos", func(t *testing.T) []byte { return sevenZip(t, nil, "-m0=LZMA:eos", "-mhc=off") }},
		{"bsdtar", bsdtar7z},
	} {
		for k := 1; k <= 3; k++ {
			t.Run(fmt.Sprintf("%s, byte -%d", tc.name, k), func(t *testing.T) {
				b := tc.make(t)
				end := dataPackEnd(b)
				b[end-k] ^= 0x01
				mustReject(t, writeArchive(t, "p.7z", b), DefaultLimits(), want{rule: RuleCorrupt, anyEntry: true})
			})
		}
	}
}

// bsdtar7z makes a 7z of a good pack with bsdtar, whose 7z coder is LZMA.
func bsdtar7z(t *testing.T) []byte {
	t.Helper()
	work := t.TempDir()
	goodTree(t, work)
	out := filepath.Join(t.TempDir(), "p.7z")
	cmd := exec.Command("bsdtar", "--format", "7zip", "-cf", out, ".")
	cmd.Dir = work
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("bsdtar: %v\n%s", err, b)
	}
	b, err := os.ReadFile(out)
	must(t, err)
	return b
}

// dataPackEnd is where the pack streams of a 7z's files end: before the
// header, or before the header's own pack stream when it is packed.
func dataPackEnd(b []byte) int {
	off := int(binary.LittleEndian.Uint64(b[12:]))
	if h := b[32+off:]; h[0] == 0x17 && h[1] == 0x06 && h[2] < 0x80 {
		return 32 + int(h[2])
	} else if h[0] == 0x17 && h[1] == 0x06 && h[2] < 0xc0 {
		return 32 + int(h[2]&0x3f)<<8 + int(h[3])
	} else if h[0] == 0x17 && h[1] == 0x06 && h[2] < 0xe0 {
		return 32 + int(h[2]&0x1f)<<16 + int(h[3]) + int(h[4])<<8
	}
	return 32 + off
}
