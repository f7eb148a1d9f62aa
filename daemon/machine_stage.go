package daemon

import (
	"context"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/sets/fetch"
	"github.com/mjolnir-forge/forgesync/sets/follow"
)

// StageSet stages the pack set of the lock at arg (a file, a folder, a URL
// or an oci:// reference) as the profile as (empty: named after the set),
// trusting key (a minisign public key, or empty) for it (SPEC §12): the
// daemon stages it, or else it is staged locally. Nothing installed
// changes; the result says what was fetched.
func (m *Machine) StageSet(ctx context.Context, arg, as, key string) (*api.SetStageResult, error) {
	src, err := fetch.LockSource(arg)
	if err != nil {
		return nil, err
	}
	if c := m.Daemon(ctx); c != nil {
		return c.SetStage(ctx, api.SetStageRequest{URL: src.String(), As: as, Key: key})
	}
	s, err := m.localSyncer(ctx)
	if err != nil {
		return nil, err
	}
	st, err := s.Stage(ctx, follow.StageRequest{From: src, Name: as, Key: key})
	return wireStaged(st), err
}
