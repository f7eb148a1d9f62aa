package daemon

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/config"
	"github.com/mjolnir-forge/forgesync/installer/intake"
	"github.com/mjolnir-forge/forgesync/pipeline"
	"github.com/mjolnir-forge/forgesync/selfupdate"
	"github.com/mjolnir-forge/forgesync/sets/follow"
	"github.com/mjolnir-forge/forgesync/watch"
)

// batchQuiet is how long the watcher waits after an archive last appeared
// or changed, once none is settling, before it hands a batch to the
// writer: a lone archive, whose settling was longer, goes when it is
// ready.
const batchQuiet = 20 * time.Millisecond

// ServeOptions are what serving adds to a machine's options.
type ServeOptions struct {
	// Owner is the SID of the installing user that the socket's folder
	// admits on Windows besides SYSTEM and Administrators ("": the
	// current user).
	Owner string
	// Version is the program's version, for the status answer.
	Version string
	// Commit and BuildDate are the program's commit and build date, for
	// the status answer ("": unknown).
	Commit, BuildDate string
	// LogFile is the log file of a running service, for the status
	// answer ("": none).
	LogFile string
	// Started, when set, is called once everything is up.
	Started func()
	// Reload, when set, reads the config again for a reload (SIGHUP,
	// POST /v1/reload); without it the daemon reloads nothing.
	Reload func() (*config.Config, error)
}

// Serve runs the daemon until ctx ends: the status socket, the single
// writer, the watcher, the periodic redeploy and the set follower, under
// one errgroup.
func (m *Machine) Serve(ctx context.Context, so ServeOptions) error {
	cfg, log := m.opts.Config, m.opts.Log
	if err := cfg.RequireGame(); err != nil {
		return err
	}
	reserveProcs()
	lim, err := ArchiveLimits(cfg)
	if err != nil {
		return err
	}
	lowerPriority(cfg, log)
	// The daemon keeps an unpacker started ahead of the next archive, and
	// ends it when it stops.
	if x := m.opts.Extractor; x != nil {
		x.Warm()
		defer x.Close()
	}
	ev := NewEvents(EventsOptions{})
	defer ev.Close()
	if err := secureFolders(cfg, so.Owner, log); err != nil {
		return err
	}
	eps, err := listenAll(cfg.Paths.Socket, cfg.API.Listen, cfg.Paths.State, log)
	if err != nil {
		return err
	}
	opts := pipelineOptions(cfg, lim, m.opts.Extractor, log, m.opts.LockWait)
	opts.Observer = publisher{ev}
	p, _, err := pipeline.Open(ctx, opts)
	if err != nil {
		eps.Close()
		return err
	}
	defer p.Close()
	// The Runner deploys at start, after every transaction and every
	// rescan period: a game update can wipe the scripts or the module.
	r := pipeline.NewRunner(p, pipeline.RunnerOptions{Deploy: true, Redeploy: cfg.Watch.Rescan})
	if _, err := m.watcherFor(cfg, r); err != nil { // said before anything runs
		eps.Close()
		return err
	}
	sets, err := m.newFollower(r, ev)
	if err != nil {
		eps.Close()
		return err
	}
	var follower atomic.Pointer[follow.Syncer]
	follower.Store(sets)
	backend := NewBackend(r, &follower)
	load := so.Reload
	if load == nil {
		load = func() (*config.Config, error) {
			return nil, errors.New("this daemon was started without a config file to read again; restart it instead")
		}
	}
	rl := newReloader(m, load, r, &follower, m.opts.Extractor)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return r.Run(gctx) })
	// The watcher and, with [sets] source, the set follower (a check at
	// once, then every interval), started again by each reload.
	g.Go(func() error { return rl.run(gctx) })
	update := startUpdateCheck(gctx, g, cfg, so.Version, log)
	g.Go(func() error { return m.serveLAN(gctx, &follower) }) // [lan] share (SPEC §13)
	g.Go(func() error {
		return eps.Serve(gctx, backend, ev, ServerOptions{Logger: log, Version: so.Version, LogFile: so.LogFile,
			Commit: so.Commit, BuildDate: so.BuildDate, Priority: cfg.Performance.Priority, PriorityNow: rl.Priority, Reload: rl.Reload,
			Folders: statusFolders(cfg), MaxArchiveBytes: archiveUploadLimit(lim), Update: update})
	})
	log.Info("daemon started", "socket", cfg.Paths.Socket, "drop", cfg.Paths.Drop, "state", cfg.Paths.State)
	if so.Started != nil {
		so.Started()
	}
	err = g.Wait()
	log.Info("daemon stopped")
	return err
}

// startUpdateCheck starts in g, with [update] check, the check for a newer
// forgesync (at most daily) and returns what GET /v1/update answers; nil
// without it.
func startUpdateCheck(ctx context.Context, g *errgroup.Group, cfg *config.Config, version string, log *slog.Logger) func() api.UpdateStatus {
	if !cfg.Update.Check {
		return nil
	}
	u := newUpdateChecker(selfupdate.Options{Feed: cfg.Update.Feed, Current: version}, cfg.Paths.State, log)
	g.Go(func() error { return u.run(ctx) })
	return u.Status
}

// newFollower returns the set follower of the configuration, which
// publishes its checks and downloads on ev.
func (m *Machine) newFollower(r *pipeline.Runner, ev *Events) (*follow.Syncer, error) {
	setOpts, err := m.setOptions()
	if err != nil {
		return nil, err
	}
	setOpts.Observer = publisher{ev}
	return follow.New(r, setOpts)
}

// statusFolders are the folders of cfg that GET /v1/status names, made
// absolute (a service starts in system32: a relative path would mean
// nothing to a client).
func statusFolders(cfg *config.Config) api.Folders {
	abs := func(p string) string {
		if a, err := filepath.Abs(p); err == nil {
			return a
		}
		return p
	}
	return api.Folders{Drop: abs(cfg.Paths.Drop), State: abs(cfg.Paths.State), Inventory: abs(pipeline.InventoryDir(cfg.Paths.Mods))}
}

// watcherFor watches the drop folder with cfg's [watch] and hands each
// settled batch to r.
func (m *Machine) watcherFor(cfg *config.Config, r *pipeline.Runner) (*watch.Watcher, error) {
	log := m.opts.Log
	return watch.New(watch.Options{
		Drop: cfg.Paths.Drop, Settle: cfg.Watch.Settle, Rescan: cfg.Watch.Rescan, Ignore: intake.IgnoredDropName, Logger: log,
		// Archives dropped together settle together, so a short quiet
		// window still batches them, and a lone pack is not held back.
		BatchQuiet: batchQuiet,
		OnBatch: func(ctx context.Context, names []string) error {
			// A failed batch is reported and retried by the next rescan;
			// it must not stop the watcher.
			if _, err := r.Claim(ctx, names); err != nil && ctx.Err() == nil {
				log.Error("batch failed", "archives", names, "err", err)
			}
			return nil
		},
	})
}

// secureFolders gives the state folder (the API key) and the socket's
// folder the ACL of SPEC §8 on Windows: SYSTEM, Administrators and owner
// (the installing user; the current one when empty). A shared folder is
// refused ([errSharedFolder]); on a file system that keeps no ACLs
// (FAT, exFAT) it warns on log and goes on, since the daemon works there,
// only less private.
func secureFolders(cfg *config.Config, owner string, log *slog.Logger) error {
	for _, f := range []struct{ what, dir string }{{"state", cfg.Paths.State}, {"status socket", filepath.Dir(cfg.Paths.Socket)}} {
		err := secureFolder(f.what, f.dir, owner)
		if errors.Is(err, errNoACL) {
			log.Warn("folder left open: its file system keeps no permissions; put it on an NTFS drive to make it private", "folder", f.dir, "err", err)
			continue
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// secureFolder is SecureFolder; tests make it fail as FAT does.
var secureFolder = osSecureFolder
