package verdict

import (
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/installer/intake"
)

// TestWritePacked: pack says the pack, the zip and its files, counted.
func TestWritePacked(t *testing.T) {
	for _, tc := range []struct {
		files int
		want  string
	}{
		{1, "a 1.0.0: wrote a.zip (1 file)\n"},
		{3, "a 1.0.0: wrote a.zip (3 files)\n"},
	} {
		r := &Report{Archive: "a.zip", Pack: PackRef{ID: "a", Version: "1.0.0"}, Files: make([]intake.File, tc.files)}
		var b strings.Builder
		if err := WritePacked(&b, r.Packed()); err != nil || b.String() != tc.want {
			t.Errorf("WritePacked(%d files) = %v, %q; want %q", tc.files, err, b.String(), tc.want)
		}
	}
}
