package machine

import (
	"context"
	"fmt"
	"sync"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/packset"
	"github.com/mjolnir-forge/forgesync/setsync"
)

// setOptions are the options of a Syncer from the configuration.
func (m *Machine) setOptions() (setsync.Options, error) {
	cfg := m.opts.Config
	keys, err := packset.ParsePublicKeys(cfg.Sets.TrustedKeys)
	if err != nil {
		return setsync.Options{}, err
	}
	f := m.opts.Fetcher
	f.AllowPrivate = f.AllowPrivate || cfg.Sets.AllowPrivateMirrors
	return setsync.Options{State: cfg.Paths.State, Follow: cfg.Sets.Source, TrustedKeys: keys,
		CacheMax: cfg.Sets.CacheMax, Log: m.opts.Log, Fetcher: f}, nil
}

// SyncSet makes the enabled packs exactly the pack set of the lock at arg
// (a file, a folder or a URL; with prune, the packs the set does not pin
// are removed rather than disabled): the daemon fetches and applies it, or
// else it is fetched and applied locally and the scripts and module
// deployed. A local sync that ran and failed returns its result with the
// error; with [ErrDeploy] the result is complete.
func (m *Machine) SyncSet(ctx context.Context, arg string, prune bool) (*api.SetSyncResult, error) {
	src, err := packset.LockSource(arg)
	if err != nil {
		return nil, err
	}
	if c := m.Daemon(ctx); c != nil {
		return c.SetApply(ctx, api.SetApplyRequest{URL: src.String(), Prune: prune})
	}
	opts, err := m.setOptions()
	if err != nil {
		return nil, err
	}
	p, err := m.local(ctx)
	if err != nil {
		return nil, err
	}
	if w := m.opts.Progress; w != nil {
		var mu sync.Mutex
		opts.Events = func(d api.EventData) {
			if dl, ok := d.(api.Download); ok && dl.Done == 0 {
				mu.Lock()
				fmt.Fprintf(w, "fetching %s (%d bytes) from %s\n", dl.Pack, dl.Total, dl.URL)
				mu.Unlock()
			}
		}
	}
	s, err := setsync.New(p, opts)
	if err != nil {
		return nil, err
	}
	res, err := s.SyncSet(ctx, setsync.Request{From: src, Prune: prune})
	if err != nil {
		return res, err
	}
	// What opening the state recovered or republished counts with the run.
	if res.Summary != nil {
		res.Summary = m.rec.Merge(res.Summary)
	}
	return res, m.deploy(ctx, res.Summary)
}
