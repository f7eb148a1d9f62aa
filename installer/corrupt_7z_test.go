//go:build !windows

package installer

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"testing"
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
