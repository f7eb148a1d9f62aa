package verdict

import (
	"context"
	"fmt"
	"io"

	"github.com/mjolnir-forge/forgesync/installer/intake"
	"github.com/mjolnir-forge/forgesync/internal/text"
)

// Scan gives the verdict on each target (see [checkAll]) and writes the
// reports to w in format (see [write]), naming toolVersion where the
// format names the tool; valid reports whether every target is valid.
func Scan(ctx context.Context, w io.Writer, x *intake.Extractor, targets []string, lim intake.Limits, format, toolVersion string) (valid bool, err error) {
	reports, valid, err := checkAll(ctx, x, targets, lim)
	if err != nil {
		return false, err
	}
	return valid, write(w, format, reports, toolVersion)
}

// Packed is what `forgesync pack` says of the zip it wrote: where, the
// pack, and how many files it holds.
type Packed struct {
	Archive string  `json:"archive"`
	Files   int     `json:"files"`
	Pack    PackRef `json:"pack"`
}

// Packed returns what r, the report of a pack [Pack] wrote, says of the
// zip.
func (r *Report) Packed() Packed {
	return Packed{Archive: r.Archive, Files: len(r.Files), Pack: r.Pack}
}

// WritePacked writes what was packed as a line: the pack, the zip, how many
// files.
func WritePacked(w io.Writer, p Packed) error {
	_, err := fmt.Fprintf(w, "%s %s: wrote %s (%s)\n", p.Pack.ID, p.Pack.Version, p.Archive, text.Count(p.Files, "file"))
	return err
}
