package verdict

import (
	"path/filepath"
	"testing"

	"github.com/mjolnir-forge/forgesync/installer/intake"
)

// TestCheckAll: a folder and an archive are checked alike, an invalid
// pack makes the whole invalid, and a target that cannot be read is an
// error.
func TestCheckAll(t *testing.T) {
	archive := filepath.Join(t.TempDir(), "gw.zip")
	zipDir(t, "../../cmd/forgesync/examples/glass-works", archive)
	bad, _, _ := badPack(t)
	lim := intake.DefaultLimits()
	tests := []struct {
		name    string
		targets []string
		valid   bool
		err     bool
	}{
		{"folder and archive", []string{"../../cmd/forgesync/examples/foundry-wide", archive}, true, false},
		{"one invalid", []string{"../../cmd/forgesync/examples/foundry-wide", bad}, false, false},
		{"missing", []string{"../../cmd/forgesync/examples/foundry-wide", filepath.Join(t.TempDir(), "nope.zip")}, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reports, valid, err := checkAll(t.Context(), testExtractor, tt.targets, lim)
			if valid != tt.valid || (err != nil) != tt.err || (err == nil && len(reports) != len(tt.targets)) {
				t.Fatalf("CheckAll(%q) = %d reports, %v, %v; want valid %v, error %v", tt.targets, len(reports), valid, err, tt.valid, tt.err)
			}
			for i, r := range reports {
				if r.Source != tt.targets[i] {
					t.Errorf("report %d is of %s; want %s", i, r.Source, tt.targets[i])
				}
			}
		})
	}
}

func TestFormatOf(t *testing.T) {
	tests := []struct {
		format string
		json   bool
		want   string
		err    string
	}{
		{"", false, formatText, ""},
		{"", true, formatJSON, ""},
		{formatSARIF, true, formatSARIF, ""},
		{"xml", false, "", `--format "xml": want one of text, json, github, sarif`},
	}
	for _, tt := range tests {
		got, err := FormatOf(tt.format, tt.json)
		if got != tt.want || (err == nil) != (tt.err == "") || (err != nil && err.Error() != tt.err) {
			t.Errorf("FormatOf(%q, %v) = %q, %v; want %q, %q", tt.format, tt.json, got, err, tt.want, tt.err)
		}
	}
}
