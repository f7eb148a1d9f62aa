package verdict

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/mjolnir-forge/forgesync/installer/intake"
	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
)

// Check gives the verdict on target, a pack folder or an archive; an
// archive is extracted by x with every limit into a temp folder that is
// removed before Check returns.
// The error is only for a target that cannot be read.
func Check(ctx context.Context, x *intake.Extractor, target string, lim intake.Limits) (*Report, error) {
	info, err := os.Stat(target)
	if err != nil {
		return nil, err
	}
	if info.IsDir() {
		return checkDir(target, lim)
	}
	staging, err := os.MkdirTemp("", "forgesync-scan-")
	if err != nil {
		return nil, fmt.Errorf("staging: %w", err)
	}
	defer atomicfile.RemoveAll(atomicfile.Renamer{}, staging) // retried where a scanner holds a file
	rep, staged, err := Archive(ctx, x, target, staging, lim, nil)
	if staged != nil {
		staged.Remove()
	}
	return rep, err
}

// checkAll gives the verdict on each target in turn (see [Check]) and
// reports whether every one is valid; it stops at the first target that
// cannot be read.
func checkAll(ctx context.Context, x *intake.Extractor, targets []string, lim intake.Limits) (reports []*Report, valid bool, err error) {
	valid = true
	for _, target := range targets {
		rep, err := Check(ctx, x, target, lim)
		if err != nil {
			return nil, false, err
		}
		valid = valid && rep.Valid
		reports = append(reports, rep)
	}
	return reports, valid, nil
}

// FormatOf returns the output format of `forgesync scan`: format when it
// is one of [Formats], else JSON when asJSON, else text.
func FormatOf(format string, asJSON bool) (string, error) {
	switch {
	case format == "" && asJSON:
		return formatJSON, nil
	case format == "":
		return formatText, nil
	case !slices.Contains(Formats, format):
		return "", fmt.Errorf("--format %q: want one of %s", format, strings.Join(Formats, ", "))
	}
	return format, nil
}
