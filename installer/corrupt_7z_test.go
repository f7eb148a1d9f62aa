//go:build !windows

package installer

import (
	"bytes"
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
