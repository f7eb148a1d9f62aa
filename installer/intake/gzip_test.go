package intake

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"hash/crc32"
	"os/exec"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/internal/toolcheck"
)

// TestGzipHeaders: every optional field of a member's header is read
// past (an extra field, a name, a comment, a header CRC-16), in the first
// member and in a later one; a header whose CRC-16 is wrong, or that sets
// a reserved flag, is damage, as gzip -t says; and a stream made by the
// gzip tool itself (which stores the name) unpacks.
func TestGzipHeaders(t *testing.T) {
	tb := goodTarPlus(t)
	half := len(tb) / 2
	// member compresses b with every optional header field, its CRC-16
	// made good or bad, and extra flag bits set.
	member := func(b []byte, goodCRC bool, flags byte) []byte {
		var buf bytes.Buffer
		w := gzip.NewWriter(&buf)
		w.Name, w.Comment, w.Extra = "pack.tar", "a comment", []byte{'F', 'S', 2, 0, 1, 2}
		w.Write(b)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		m := buf.Bytes()
		// Go's writer sets no header CRC: insert one before the data.
		end := 10 + 2 + len(w.Extra) + len(w.Name) + 1 + len(w.Comment) + 1
		m[3] |= 1<<1 | flags
		crc := uint16(crc32.ChecksumIEEE(m[:end]))
		if !goodCRC {
			crc ^= 1
		}
		return append(append(bytes.Clone(m[:end]), byte(crc), byte(crc>>8)), m[end:]...)
	}
	t.Run("every field, two members", func(t *testing.T) {
		two := append(member(tb[:half], true, 0), member(tb[half:], true, 0)...)
		mustExtractAny(t, writeArchive(t, "p.tar.gz", two))
	})
	for name, b := range map[string][]byte{
		"a wrong header CRC-16":                 member(tb, false, 0),
		"a wrong header CRC-16 in member two":   append(member(tb[:half], true, 0), member(tb[half:], false, 0)...),
		"a reserved flag":                       member(tb, true, 0x20),
		"a second member cut inside its header": append(member(tb[:half], true, 0), member(tb[half:], true, 0)[:14]...),
	} {
		t.Run(name, func(t *testing.T) {
			mustReject(t, writeArchive(t, "p.tar.gz", b), DefaultLimits(), want{rule: RuleCorrupt, anyEntry: true})
		})
	}
	t.Run("gzip -t agrees", func(t *testing.T) {
		toolcheck.Need(t, "gzip")
		gz := "gzip"
		for name, b := range map[string][]byte{"good": member(tb, true, 0), "bad CRC-16": member(tb, false, 0), "reserved flag": member(tb, true, 0x20)} {
			cmd := exec.Command(gz, "-t")
			cmd.Stdin = bytes.NewReader(b)
			if err := cmd.Run(); (err == nil) != (name == "good") {
				t.Errorf("gzip -t of the member with %s: %v", name, err)
			}
		}
	})
	t.Run("made by gzip", func(t *testing.T) {
		toolcheck.Need(t, "gzip")
		gz := "gzip"
		cmd := exec.Command(gz, "-N", "-c")
		cmd.Stdin = bytes.NewReader(tb)
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		if binary.LittleEndian.Uint16(out[:2]) != 0x8b1f {
			t.Fatalf("gzip wrote %q", out[:4])
		}
		st := mustExtractAny(t, writeArchive(t, "p.tar.gz", out))
		if !strings.HasSuffix(st.Format, "gz") {
			t.Errorf("format = %q", st.Format)
		}
	})
}
