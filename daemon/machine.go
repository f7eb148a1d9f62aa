package daemon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/config"
	"github.com/mjolnir-forge/forgesync/installer/intake"
	"github.com/mjolnir-forge/forgesync/installer/store"
	"github.com/mjolnir-forge/forgesync/internal/prio"
	"github.com/mjolnir-forge/forgesync/native"
	"github.com/mjolnir-forge/forgesync/pipeline"
	"github.com/mjolnir-forge/forgesync/sets/export"
	"github.com/mjolnir-forge/forgesync/sets/fetch"
	"github.com/mjolnir-forge/forgesync/sets/lock"
	"github.com/mjolnir-forge/forgesync/sets/oci"
)

// ErrDeploy is returned with a complete summary when a local run could not
// deploy the scripts or the module: the summary's warnings say what
// failed.
var ErrDeploy = errors.New("deploy failed")

// probeWait bounds the wait for a daemon's answer to a probe.
const probeWait = 2 * time.Second

// Options say which machine to act on and how.
type Options struct {
	Config *config.Config
	Log    *slog.Logger
	// LockWait is how long a local operation waits for another process
	// holding the state folder before it gives up and names the holder.
	LockWait time.Duration
	// Fetcher is the template of every fetch of a set (its retries and
	// delays); the zero value takes package fetch's defaults.
	Fetcher fetch.Fetcher
	// Progress, when set, is told each download's start (and each retry)
	// of a set sync run locally; a daemon's downloads are its own.
	Progress io.Writer
	// Extractor unpacks every archive a local pipeline or the daemon
	// installs, each in its child process; the caller builds it (see
	// intake.NewExtractor). A pipeline is not opened without it.
	Extractor *intake.Extractor
}

// Machine is this machine's forgesync state, reached through the running
// daemon or else opened locally under its lock, each at its first use.
// Close releases what was opened. It is for one goroutine.
type Machine struct {
	opts   Options
	probed bool
	client *Client            // nil: no daemon answers
	p      *pipeline.Pipeline // opened locally
	rec    *pipeline.Summary  // what opening the state recovered
	// registry is the client of OCI registries, made at first use.
	registry *oci.Registry
	// lan is the LAN peers, made at first use and shared with the
	// machines a reload makes.
	lan *lanPeers
	// warmed says SyncDrop started an unpacker ahead (Close ends it,
	// should no archive have taken it).
	warmed bool
}

// New returns the machine of opts.Config; it opens nothing yet.
func New(opts Options) *Machine {
	return &Machine{opts: opts}
}

// Close releases the daemon client and the state's lock, if a change
// took it.
func (m *Machine) Close() error {
	if m.client != nil {
		m.client.Close()
	}
	if m.warmed {
		m.opts.Extractor.EndWarm()
	}
	if m.p != nil {
		return m.p.Close()
	}
	return nil
}

// Daemon returns the client of the running daemon, or nil when none
// answers; the first call probes, later ones return the same answer.
func (m *Machine) Daemon(ctx context.Context) *Client {
	if !m.probed {
		m.probed = true
		m.client = Dial(ctx, m.opts.Config)
	}
	return m.client
}

// Dial returns a client when a daemon answers on the configured socket,
// or else on the TCP API, else nil. The caller closes the client.
func Dial(ctx context.Context, cfg *config.Config) *Client {
	pctx, cancel := context.WithTimeout(ctx, probeWait)
	defer cancel()
	if cfg.Paths.Socket != "" && probe(pctx, cfg.Paths.Socket) {
		return NewClient(cfg.Paths.Socket)
	}
	if cfg.API.Listen != "" && probeTCP(pctx, cfg.API.Listen) {
		if key, err := readAPIKey(cfg.Paths.State); err == nil {
			return newTCPClient(cfg.API.Listen, key)
		}
	}
	return nil
}

// local opens the installed state under its lock, recovering from any
// interrupted transaction first; later calls return the same pipeline.
func (m *Machine) local(ctx context.Context) (*pipeline.Pipeline, error) {
	if m.p != nil {
		return m.p, nil
	}
	cfg := m.opts.Config
	if err := cfg.RequireGame(); err != nil {
		return nil, err
	}
	lim, err := ArchiveLimits(cfg)
	if err != nil {
		return nil, err
	}
	lowerPriority(cfg, m.opts.Log)
	m.p, m.rec, err = pipeline.Open(ctx, pipelineOptions(cfg, lim, m.opts.Extractor, m.opts.Log, m.opts.LockWait))
	return m.p, err
}

// lowerPriority lowers this process, which is about to install, to the
// installer's priority when cfg's [performance] priority is background
// (see prio.Installer): the daemon is a background service, and a command
// that installs does the same work. Processor and I/O priorities are kept
// per thread by Linux and goroutines move between threads, so the whole
// process is lowered, for good: it does nothing else. A priority that
// cannot be lowered is logged, and the install goes on at the one it has.
func lowerPriority(cfg *config.Config, log *slog.Logger) {
	if cfg.Performance.Priority == config.PriorityNormal {
		return
	}
	if err := prio.Installer(); err != nil && log != nil {
		log.Warn("could not lower the install's priority", "err", err)
	}
}

// pipelineOptions are the pipeline's options from the configuration.
func pipelineOptions(cfg *config.Config, lim intake.Limits, x *intake.Extractor, log *slog.Logger, lockWait time.Duration) pipeline.Options {
	return pipeline.Options{
		Drop: cfg.Paths.Drop, Mods: cfg.Paths.Mods, Paks: cfg.Paths.Paks, State: cfg.Paths.State,
		Limits: lim, Extractor: x, Log: log, LockWait: lockWait,
		DeployLua: cfg.Deploy.Lua, DeployNative: cfg.Deploy.Native, Modules: cfg.Deploy.Modules,
		KeepGenerations: cfg.Sets.KeepGenerations,
		KeepProfiles:    cfg.Sets.KeepProfiles,
	}
}

// mutate runs one change of the installed state: remote through the
// daemon when one answers, else local on the state opened under its lock.
func (m *Machine) mutate(ctx context.Context, remote func(*Client) (*api.Summary, error),
	local func(*pipeline.Pipeline) (*pipeline.Summary, error)) (*api.Summary, error) {
	if c := m.Daemon(ctx); c != nil {
		return remote(c)
	}
	p, err := m.local(ctx)
	if err != nil {
		return nil, err
	}
	return wired(local(p))
}

// wired passes a transaction's result on with its summary in the wire
// shape a daemon answers with.
func wired(sum *pipeline.Summary, err error) (*api.Summary, error) {
	return wireSummary(sum), err
}

// deploy deploys the scripts and the module after a local run, as the
// daemon does after each transaction, and adds its warnings to sum (when
// there is one). It returns [ErrDeploy] when a deploy failed.
func (m *Machine) deploy(ctx context.Context, sum *pipeline.Summary) error {
	reports, derr := m.p.Deploy(ctx)
	warnings, failed := pipeline.DeployWarnings(reports, derr)
	if sum != nil {
		sum.Warnings = append(sum.Warnings, warnings...)
	}
	if failed {
		return ErrDeploy
	}
	return nil
}

// SyncDrop processes every archive in the drop folder once: the daemon rescans
// now, or else the state is synced locally, what opening it recovered
// counted with the run, and the scripts and module deployed. With
// [ErrDeploy] the summary is complete.
func (m *Machine) SyncDrop(ctx context.Context) (*api.Summary, error) {
	if c := m.Daemon(ctx); c != nil {
		return c.SyncDrop(ctx)
	}
	m.warmAhead()
	p, err := m.local(ctx)
	if err != nil {
		return nil, err
	}
	sum, err := p.SyncDrop(ctx)
	if err != nil {
		return nil, err
	}
	return m.finish(ctx, sum)
}

// warmAhead starts the unpacker of a local sync while the state opens,
// when the drop folder holds an archive to claim: a sync then waits for
// the one and the other at once, not one after the other.
func (m *Machine) warmAhead() {
	x := m.opts.Extractor
	if x == nil || m.p != nil || m.warmed {
		return
	}
	entries, err := os.ReadDir(m.opts.Config.Paths.Drop)
	if err != nil || !slices.ContainsFunc(entries, func(e os.DirEntry) bool {
		return e.Type().IsRegular() && !intake.IgnoredDropName(e.Name())
	}) {
		return
	}
	x.WarmOnce()
	m.warmed = true
}

// finish counts what opening the state recovered with a local run's
// summary, deploys the scripts and the module as the daemon would, and
// returns the summary in its wire shape, complete also with [ErrDeploy].
func (m *Machine) finish(ctx context.Context, sum *pipeline.Summary) (*api.Summary, error) {
	sum = m.rec.Merge(sum)
	err := m.deploy(ctx, sum)
	return wireSummary(sum), err
}

// Install installs one archive from anywhere. A running daemon installs
// it: the archive is copied into a new folder under drop/.install/ (the
// daemon reads nothing outside drop on a client's word), installed by the
// daemon, and the copy removed; else it is installed locally.
func (m *Machine) Install(ctx context.Context, archive string, o pipeline.InstallOptions) (*api.Summary, error) {
	if c := m.Daemon(ctx); c != nil {
		return m.installHanded(ctx, c, archive, o)
	}
	p, err := m.local(ctx)
	if err != nil {
		return nil, err
	}
	return wired(p.Install(ctx, archive, o))
}

// installHanded hands archive to the daemon through drop/.install/.
func (m *Machine) installHanded(ctx context.Context, c *Client, archive string, o pipeline.InstallOptions) (*api.Summary, error) {
	in, err := os.Open(archive)
	if err != nil {
		return nil, fmt.Errorf("install: %w", err)
	}
	defer in.Close()
	base := filepath.Join(m.opts.Config.Paths.Drop, pipeline.InstallDir)
	if err := os.MkdirAll(base, 0o755); err != nil {
		return nil, fmt.Errorf("install %s: hand it to the daemon: %w", archive, err)
	}
	dir, err := os.MkdirTemp(base, "")
	if err != nil {
		return nil, fmt.Errorf("install %s: hand it to the daemon: %w", archive, err)
	}
	defer os.RemoveAll(dir)
	name := filepath.Base(archive)
	out, err := os.OpenFile(filepath.Join(dir, name), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, fmt.Errorf("install %s: hand it to the daemon: %w", archive, err)
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("install %s: copy it to %s for the daemon: %w", archive, dir, err)
	}
	// The daemon may have made the folder its own (a service): let it read.
	_ = os.Chmod(dir, 0o755)
	return c.Install(ctx, api.Install{Archive: filepath.Base(dir) + "/" + name, Force: o.Force})
}

// Retry moves the rejected archives o names back from drop/rejected/
// into drop and processes drop: through the daemon, or else locally under
// the lock, like SyncDrop. A name not in drop/rejected/ is a refusal.
func (m *Machine) Retry(ctx context.Context, o pipeline.RetryOptions) (*api.Summary, error) {
	if c := m.Daemon(ctx); c != nil {
		return c.Retry(ctx, api.Retry{Archives: o.Archives, All: o.All})
	}
	p, err := m.local(ctx)
	if err != nil {
		return nil, err
	}
	sum, err := p.RetrySync(ctx, o)
	if err != nil {
		return nil, err
	}
	return m.finish(ctx, sum)
}

// Enable enables an installed pack.
func (m *Machine) Enable(ctx context.Context, id string) (*api.Summary, error) {
	return m.change(ctx, id, (*Client).Enable, (*pipeline.Pipeline).Enable)
}

// Disable disables a pack: it stays installed.
func (m *Machine) Disable(ctx context.Context, id string) (*api.Summary, error) {
	return m.change(ctx, id, (*Client).Disable, (*pipeline.Pipeline).Disable)
}

// Remove uninstalls a pack.
func (m *Machine) Remove(ctx context.Context, id string) (*api.Summary, error) {
	return m.change(ctx, id, (*Client).Remove, (*pipeline.Pipeline).Remove)
}

// change runs enable, disable or remove of one pack.
func (m *Machine) change(ctx context.Context, id string,
	remote func(*Client, context.Context, string) (*api.Summary, error),
	local func(*pipeline.Pipeline, context.Context, string) (*pipeline.Summary, error)) (*api.Summary, error) {
	return m.mutate(ctx, func(c *Client) (*api.Summary, error) { return remote(c, ctx, id) },
		func(p *pipeline.Pipeline) (*pipeline.Summary, error) { return local(p, ctx, id) })
}

// Rollback makes the installed set equal to generation n (0: the one
// before the current one). A generation not kept, or whose archive is not
// kept, is a refusal, as the daemon answers it.
func (m *Machine) Rollback(ctx context.Context, n int) (*api.Summary, error) {
	return m.mutate(ctx, func(c *Client) (*api.Summary, error) { return c.Rollback(ctx, n) },
		func(p *pipeline.Pipeline) (*pipeline.Summary, error) { return p.Rollback(ctx, n) })
}

// Packs returns the installed packs, from the daemon or else read from the
// state: a read finishes nothing a crash or a held file interrupted, so it
// never waits on the game (see pipeline.ReadPacks).
func (m *Machine) Packs(ctx context.Context) ([]api.Pack, error) {
	if c := m.Daemon(ctx); c != nil {
		return c.Packs(ctx)
	}
	installed, err := pipeline.ReadPacks(m.opts.Config.Paths.State)
	return wirePacks(installed), err
}

// ReadHistory reads the kept generations of the state folder without
// taking its lock (see pipeline.ReadHistory), in their wire shape:
// `forgesync history` works beside a running daemon.
func ReadHistory(state string) (*api.History, error) {
	h, err := pipeline.ReadHistory(state)
	if err != nil {
		return nil, err
	}
	return wireHistory(h), nil
}

// Gates returns the version gates of the mods folder in their wire shape,
// as status shows them when no daemon answers.
func Gates(mods string) api.Gates {
	return wireGates(native.CheckGatesDir(mods))
}

// Installed returns the installed packs as a pack set sees them, from the
// daemon or else read from the state, as Packs does.
func (m *Machine) Installed(ctx context.Context) ([]lock.Installed, error) {
	if c := m.Daemon(ctx); c == nil {
		packs, err := pipeline.ReadPacks(m.opts.Config.Paths.State)
		if err != nil {
			return nil, err
		}
		return pipeline.SetPacks(packs), nil
	}
	packs, err := m.client.Packs(ctx)
	if err != nil {
		return nil, err
	}
	var out []lock.Installed
	for _, p := range packs {
		out = append(out, lock.Installed{ID: p.ID, Version: p.Version, SHA256: p.ArchiveSHA256, Enabled: p.Enabled})
	}
	return out, nil
}

// Kept returns each enabled pack with its kept archive. It is a read: it
// takes no lock and writes nothing, not even the state folder or its lock
// file on a machine that has none (issue 37). The state file, replaced
// atomically, is read as it stands, with or without a daemon, and every
// archive's SHA-256 is checked while it is copied: a transaction that
// replaced one meanwhile makes the copy fail, and the command says to
// try again.
func (m *Machine) Kept(ctx context.Context) ([]export.Kept, error) {
	installed, err := m.Installed(ctx)
	if err != nil {
		return nil, err
	}
	ps := &store.Store{Dir: m.opts.Config.Paths.State}
	st, err := ps.Load()
	if err != nil {
		return nil, err
	}
	var kept []export.Kept
	for _, p := range installed {
		if !p.Enabled {
			continue
		}
		r := st.Find(p.ID)
		if r == nil || r.ArchiveSHA256 != p.SHA256 || r.Archive == "" {
			return nil, fmt.Errorf("pack %s %s: its kept archive is not in the state (a transaction ran meanwhile? try again)", p.ID, p.Version)
		}
		kept = append(kept, export.Kept{ID: p.ID, Version: p.Version, SHA256: p.SHA256,
			Path: ps.Path(store.ArchivesDir, r.Archive), Ext: export.ArchiveExt(r.Archive)})
	}
	return kept, nil
}
