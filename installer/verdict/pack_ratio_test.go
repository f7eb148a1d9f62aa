package verdict

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/installer/intake"
)

// TestPackNeverWritesWhatScanRefuses: a pack with a 4 MB CHANGELOG.md of
// one line repeated (Deflate shrinks it about 1000:1, past the 1:200 rule
// for an entry over 1 MiB) packs to a zip that the scan, run on the
// written file with the same limits, admits: the entry is stored. With a
// lower max_ratio, a text Deflate shrinks less is stored too, and a text
// within the limit stays deflated.
func TestPackNeverWritesWhatScanRefuses(t *testing.T) {
	repetitive := bytes.Repeat([]byte("- fixed a typo in the lift script\n"), 4_000_000/34)
	var varied bytes.Buffer // about 5:1 under Deflate
	for i := 0; varied.Len() < 2<<20; i++ {
		varied.WriteString("- " + strings.Repeat("x", i%7) + " version " + string(rune('a'+i%26)) + " changed line " + string(rune('0'+i%10)) + "\n")
	}
	low := intake.DefaultLimits()
	low.MaxRatio = 3
	tests := []struct {
		name      string
		changelog []byte
		lim       intake.Limits
		method    uint16
	}{
		{"repetitive, default limits", repetitive, intake.DefaultLimits(), zip.Store},
		{"varied, max_ratio 3", varied.Bytes(), low, zip.Store},
		{"varied, default limits", varied.Bytes(), intake.DefaultLimits(), zip.Deflate},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.CopyFS(dir, os.DirFS("../../cmd/forgesync/examples/glass-works")); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "CHANGELOG.md"), tt.changelog, 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "gw.zip")
			rep, err := Pack(dir, out, tt.lim)
			if err != nil || !rep.Valid {
				t.Fatalf("Pack = %+v, %v", rep, err)
			}
			reports, valid, err := checkAll(t.Context(), testExtractor, []string{out}, tt.lim)
			if err != nil || !valid {
				var why strings.Builder
				if len(reports) == 1 {
					write(&why, formatText, reports, "test")
				}
				t.Fatalf("scan of the zip pack wrote = valid %v, %v\n%s", valid, err, why.String())
			}
			zr, err := zip.OpenReader(out)
			if err != nil {
				t.Fatal(err)
			}
			defer zr.Close()
			for _, f := range zr.File {
				if f.Name == "CHANGELOG.md" && f.Method != tt.method {
					t.Errorf("CHANGELOG.md: method %d (%d of %d bytes); want %d", f.Method, f.CompressedSize64, f.UncompressedSize64, tt.method)
				}
			}
		})
	}
}
