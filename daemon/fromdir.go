package daemon

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mjolnir-forge/forgesync/config"
	"github.com/mjolnir-forge/forgesync/installer/intake"
	"github.com/mjolnir-forge/forgesync/installer/verdict"
	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
	"github.com/mjolnir-forge/forgesync/internal/errkind"
	"github.com/mjolnir-forge/forgesync/internal/semver"
	"github.com/mjolnir-forge/forgesync/sets/export"
)

// Folder is what a folder of archives gives a set published without a
// game (`export DIR --from ARCHIVES`, `lock --from ARCHIVES`), never nil: the newest
// valid version of each pack id, each archive's verdict, the archives left
// out as older versions, and the entries not read (folders, links).
type Folder struct {
	Packs   []export.Kept
	Reports []*verdict.Report
	Older   []string
	NotRead []string
}

// Rejected returns the reports of the archives a scan rejects.
func (f *Folder) Rejected() []*verdict.Report {
	var out []*verdict.Report
	for _, r := range f.Reports {
		if !r.Valid {
			out = append(out, r)
		}
	}
	return out
}

// KeptFrom checks each archive in dir exactly as `forgesync scan` does
// (the limits of cfg, unpacked in a child) and returns the newest version
// of each pack id found there, needing no game, state or daemon. The
// folder is read as the drop folder is: each regular file except those a
// drop folder leaves alone (intake.IgnoredDropName); sub-folders and links
// are not read. A folder with an archive a scan rejects fails with
// [errkind.Refused] (the Folder says which and why), as do two archives of
// one pack version with other bytes: nothing is published from it.
func KeptFrom(ctx context.Context, cfg *config.Config, dir string) (*Folder, error) {
	f := &Folder{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return f, fmt.Errorf("read the archives of %s: %w", dir, err)
	}
	lim, err := ArchiveLimits(cfg)
	if err != nil {
		return f, err
	}
	var targets []string
	for _, e := range entries {
		switch p := filepath.Join(dir, e.Name()); {
		case intake.IgnoredDropName(e.Name()):
		case !e.Type().IsRegular():
			f.NotRead = append(f.NotRead, p)
		default:
			targets = append(targets, p)
		}
	}
	if len(targets) == 0 {
		return f, fmt.Errorf("%s holds no archive to publish: put the packs' archives (zip, 7z, tar.*) there: %w", dir, errkind.Invalid)
	}
	x := SelfExtractor(cfg)
	defer x.Close()
	sums := map[*verdict.Report]string{}
	for _, t := range targets {
		rep, sum, err := checkArchive(ctx, x, t, lim)
		if err != nil {
			return f, err
		}
		f.Reports = append(f.Reports, rep)
		sums[rep] = sum
	}
	if bad := f.Rejected(); len(bad) > 0 {
		names := make([]string, len(bad))
		for i, r := range bad {
			names[i] = filepath.Base(r.Source)
		}
		return f, fmt.Errorf("%s: %d of %d archives rejected (%s): nothing published; fix them or move them out of the folder, then publish again: %w",
			dir, len(bad), len(f.Reports), strings.Join(names, ", "), errkind.Refused)
	}
	return f, f.newest(sums)
}

// checkArchive gives the verdict on one archive as scan does, and the
// SHA-256 of the bytes it judged (empty for a rejected archive).
func checkArchive(ctx context.Context, x *intake.Extractor, path string, lim intake.Limits) (*verdict.Report, string, error) {
	if rep := verdict.NotArchive(path); rep != nil {
		return rep, "", nil
	}
	staging, err := os.MkdirTemp("", "forgesync-from-")
	if err != nil {
		return nil, "", fmt.Errorf("staging: %w", err)
	}
	defer atomicfile.RemoveAll(atomicfile.Renamer{}, staging)
	rep, staged, err := verdict.Archive(ctx, x, path, staging, lim, nil)
	if err != nil {
		return nil, "", fmt.Errorf("check %s: %w", path, err)
	}
	if staged == nil {
		return rep, "", nil
	}
	defer staged.Remove()
	return rep, staged.SHA256, nil
}

// newest keeps the newest version of each pack id among the valid
// reports, by Semantic Versioning precedence, and names the others as
// older; two archives of one version must be the same bytes.
func (f *Folder) newest(sums map[*verdict.Report]string) error {
	best := map[string]*verdict.Report{}
	for _, r := range f.Reports {
		b := best[r.Pack.ID]
		if b == nil {
			best[r.Pack.ID] = r
			continue
		}
		c := compareVersions(r.Pack.Version, b.Pack.Version)
		switch {
		case c == 0 && sums[r] != sums[b]:
			return fmt.Errorf("%s and %s are both %s %s with other bytes: keep one of them in the folder: %w",
				b.Source, r.Source, r.Pack.ID, r.Pack.Version, errkind.Refused)
		case c > 0:
			f.Older = append(f.Older, b.Source)
			best[r.Pack.ID] = r
		default:
			f.Older = append(f.Older, r.Source)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(best)) {
		r := best[id]
		f.Packs = append(f.Packs, export.Kept{ID: id, Version: r.Pack.Version, SHA256: sums[r], Path: r.Source, Ext: export.ArchiveExt(r.Source)})
	}
	slices.Sort(f.Older)
	return nil
}

// compareVersions compares two valid manifests' versions.
func compareVersions(a, b string) int {
	va, errA := semver.Parse(a)
	vb, errB := semver.Parse(b)
	if errA != nil || errB != nil {
		return strings.Compare(a, b) // a valid manifest has a valid version
	}
	return semver.Compare(va, vb)
}
