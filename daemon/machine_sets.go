package daemon

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/sets/fetch"
	"github.com/mjolnir-forge/forgesync/sets/follow"
	"github.com/mjolnir-forge/forgesync/sets/lock"
	"github.com/mjolnir-forge/forgesync/sets/oci"
)

// setOptions are the options of a Syncer from the configuration.
func (m *Machine) setOptions() (follow.Options, error) {
	cfg := m.opts.Config
	keys, err := lock.ParsePublicKeys(cfg.Sets.TrustedKeys)
	if err != nil {
		return follow.Options{}, err
	}
	if cfg.Sets.Source != "" {
		// A source that cannot be read is said at once, not at each check.
		if _, err := fetch.LockSource(cfg.Sets.Source); err != nil {
			return follow.Options{}, fmt.Errorf("[sets] source: %w", err)
		}
	}
	f := m.Fetcher()
	peers, err := m.LANPeers()
	if err != nil {
		return follow.Options{}, fmt.Errorf("[lan] peers: %w", err)
	}
	if peers != nil {
		f.Peers = peers
	}
	return follow.Options{State: cfg.Paths.State, Follow: cfg.Sets.Source, TrustedKeys: keys,
		CacheMax: cfg.Sets.CacheMax, MaxStageBytes: cfg.Sets.MaxStageBytes, Log: m.opts.Log, Fetcher: f, Chunks: m.lanState().chunks}, nil
}

// Fetcher returns the template of every fetch of a set on this machine:
// the one given in Options with the configuration's [sets]
// allow_private_mirrors, and the registry client of OCI sets.
func (m *Machine) Fetcher() fetch.Fetcher {
	f := m.opts.Fetcher
	f.AllowPrivate = f.AllowPrivate || m.opts.Config.Sets.AllowPrivateMirrors
	f.Registry = m.Registry()
	return f
}

// Registry returns the client of OCI registries: the one given in
// Options.Fetcher, else one with the configuration's [sets]
// insecure_registries and docker_config, made once. Unless [sets]
// allow_private_mirrors, a registry not on loopback and not listed as
// insecure may not make it connect to a non-public address.
func (m *Machine) Registry() *oci.Registry {
	if m.opts.Fetcher.Registry != nil {
		return m.opts.Fetcher.Registry
	}
	if m.registry == nil {
		cfg := m.opts.Config.Sets
		opts := oci.Options{Insecure: cfg.InsecureRegistries, DockerConfig: cfg.DockerConfig, Guard: fetch.GuardClient}
		if cfg.AllowPrivateMirrors {
			opts.Guard = nil // a registry on the LAN, over https
		}
		m.registry = oci.New(opts)
	}
	return m.registry
}

// SyncSet makes the enabled packs exactly the pack set of the lock at arg
// (a file, a folder or a URL; with prune, the packs the set does not pin
// are removed rather than disabled): the daemon fetches and applies it, or
// else it is fetched and applied locally and the scripts and module
// deployed. A local sync that ran and failed returns its result with the
// error; with [ErrDeploy] the result is complete.
func (m *Machine) SyncSet(ctx context.Context, arg string, prune bool) (*api.SetSyncResult, error) {
	src, err := fetch.LockSource(arg)
	if err != nil {
		return nil, err
	}
	if c := m.Daemon(ctx); c != nil {
		return c.SetApply(ctx, api.SetApplyRequest{URL: src.String(), Prune: prune})
	}
	return m.syncLocal(ctx, func(s *follow.Syncer) (*follow.Result, error) {
		return s.SyncSet(ctx, follow.Request{From: src, Prune: prune})
	})
}

// ResumeFollow resumes following [sets] source after a set applied by
// hand paused it, and checks the source at once (`sync --set --follow`):
// through the daemon, or else locally, as SyncSet.
func (m *Machine) ResumeFollow(ctx context.Context) (*api.SetSyncResult, error) {
	if c := m.Daemon(ctx); c != nil {
		return c.SetFollow(ctx)
	}
	return m.syncLocal(ctx, func(s *follow.Syncer) (*follow.Result, error) { return s.Resume(ctx) })
}

// localSyncer returns a Syncer over the local state, printing its
// downloads to the Progress writer when there is one.
func (m *Machine) localSyncer(ctx context.Context) (*follow.Syncer, error) {
	opts, err := m.setOptions()
	if err != nil {
		return nil, err
	}
	p, err := m.local(ctx)
	if err != nil {
		return nil, err
	}
	if w := m.opts.Progress; w != nil {
		opts.Observer = &downloadPrinter{w: w}
	}
	return follow.New(p, opts)
}

// syncLocal runs do on a Syncer over the local state, then deploys.
func (m *Machine) syncLocal(ctx context.Context, do func(*follow.Syncer) (*follow.Result, error)) (*api.SetSyncResult, error) {
	s, err := m.localSyncer(ctx)
	if err != nil {
		return nil, err
	}
	res, err := do(s)
	if err != nil {
		return wireSetSync(res), err
	}
	// What opening the state recovered or republished counts with the run.
	if res.Summary != nil {
		res.Summary = m.rec.Merge(res.Summary)
	}
	err = m.deploy(ctx, res.Summary)
	return wireSetSync(res), err
}

// downloadPrinter prints the start of each download of a set sync run
// locally, for a headless host to see.
type downloadPrinter struct {
	follow.NopObserver
	mu sync.Mutex // guards w: downloads run at once
	w  io.Writer
}

// Downloading prints a download's start.
func (d *downloadPrinter) Downloading(p fetch.Progress) {
	if p.Done != 0 {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	fmt.Fprintf(d.w, "fetching %s (%d bytes) from %s\n", p.Pack, p.Total, p.URL)
}
