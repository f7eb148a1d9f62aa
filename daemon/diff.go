package daemon

import (
	"context"
	"path/filepath"
	"time"

	"github.com/mjolnir-forge/forgesync/sets/casync"
	"github.com/mjolnir-forge/forgesync/sets/fetch"
	"github.com/mjolnir-forge/forgesync/sets/follow"
)

// Diff compares this machine's packs with the pack set of the lock at arg
// (a file, a folder, a URL or an oci:// reference), its signature checked
// against the configuration's trusted keys and its expiry noted. It also
// estimates the expected delta updates: the new indexes are fetched, never
// a chunk; a seed without an index kept in the set cache is not chunked.
// An estimate that fails leaves the report without transfers and is told
// to noEstimate (nil: not told).
func (m *Machine) Diff(ctx context.Context, arg string, noEstimate func(error)) (*fetch.DiffReport, error) {
	f := m.Fetcher()
	rep, err := fetch.DiffLock(ctx, &f, arg, m.opts.Config.Sets.TrustedKeys, m.Installed)
	if err != nil {
		return nil, err
	}
	rep.CheckExpiry(time.Now())
	cache := filepath.Join(m.opts.Config.Paths.State, follow.CacheDir)
	err = rep.EstimateTransfers(ctx, &f, func(sha string) string { return filepath.Join(cache, sha+casync.IndexExt) })
	if err != nil && noEstimate != nil {
		noEstimate(err)
	}
	return rep, nil
}
