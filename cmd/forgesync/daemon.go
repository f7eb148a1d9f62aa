package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/config"
	"github.com/mjolnir-forge/forgesync/daemon"
	"github.com/mjolnir-forge/forgesync/installer"
	"github.com/mjolnir-forge/forgesync/pipeline"
	"github.com/mjolnir-forge/forgesync/setsync"
	"github.com/mjolnir-forge/forgesync/watch"
)

func daemonCommand() *command {
	return &command{
		name: "daemon", args: "", serves: true, nargs: argSpec{0, 0, "no arguments"},
		summary: "run the daemon in the foreground: watch the drop folder, install, publish, deploy, serve status\n" +
			"Under a service manager (see `forgesync service`) it runs as that service, logging JSON.",
		run: func(ctx context.Context, e *env, args []string) int {
			var err error
			if !daemon.Interactive() {
				// A service logs to the OS log (the journal reads stderr;
				// Windows has the Event Log) and to a rotated file.
				sys, serr := daemon.SystemLogger(serviceConfig(e, nil))
				log, closer, lerr := daemon.NewServiceLog(daemon.LogOptions{File: e.cfg.Log.File, Level: e.cfg.Log.Level, Stderr: e.stderr, System: sys})
				if lerr != nil {
					fmt.Fprintf(e.stderr, "forgesync daemon: %v\n", errors.Join(serr, lerr))
					return exitFailure
				}
				defer closer.Close()
				e.log, e.serviceLog = log, e.cfg.Log.File
			}
			if daemon.Interactive() {
				err = serveDaemon(ctx, e, nil)
			} else {
				err = daemon.RunService(serviceConfig(e, func(ctx context.Context) error { return serveDaemon(ctx, e, nil) }))
			}
			if err != nil {
				return e.fail(err)
			}
			return exitOK
		},
	}
}

// serveDaemon runs the daemon until ctx ends: the status socket, the
// single writer, the watcher and the periodic redeploy, under one errgroup.
// started, when set, is called once everything is up.
func serveDaemon(ctx context.Context, e *env, started func()) error {
	cfg := e.cfg
	if err := cfg.RequireGame(); err != nil {
		return err
	}
	daemon.ReserveProcs()
	lim, err := cfg.ArchiveLimits()
	if err != nil {
		return err
	}
	ev := daemon.NewEvents(daemon.EventsOptions{})
	defer ev.Close()
	if err := secureFolders(cfg, e.owner); err != nil {
		return err
	}
	eps, err := daemon.ListenAll(cfg.Paths.Socket, cfg.API.Listen, cfg.Paths.State, e.log)
	if err != nil {
		return err
	}
	opts := pipelineOptions(cfg, lim, e)
	opts.Events = func(d api.EventData) { ev.Publish(d) }
	p, _, err := pipeline.Open(ctx, opts)
	if err != nil {
		eps.Close()
		return err
	}
	defer p.Close()
	// The Runner deploys at start, after every transaction and every
	// rescan period: a game update can wipe the scripts or the module.
	r := pipeline.NewRunner(p, pipeline.RunnerOptions{Deploy: true, Redeploy: cfg.Watch.Rescan})
	var sets *setsync.Syncer
	w, err := watch.New(watch.Options{
		Drop: cfg.Paths.Drop, Settle: cfg.Watch.Settle, Rescan: cfg.Watch.Rescan, Ignore: installer.IgnoredDropName, Logger: e.log,
		// Archives dropped together settle together, so a short quiet
		// window still batches them, and a lone pack is not held back.
		BatchQuiet: batchQuiet,
		OnBatch: func(ctx context.Context, names []string) error {
			// A failed batch is reported and retried by the next rescan;
			// it must not stop the watcher.
			if _, err := r.Claim(ctx, names); err != nil && ctx.Err() == nil {
				e.log.Error("batch failed", "archives", names, "err", err)
			}
			return nil
		},
	})
	if err != nil {
		eps.Close()
		return err
	}
	setOpts, err := setOptions(e)
	if err == nil {
		setOpts.Events = opts.Events
		sets, err = setsync.New(r, setOpts)
	}
	if err != nil {
		eps.Close()
		return err
	}
	backend := setsync.Backend{Runner: r, Sets: sets}
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return r.Run(gctx) })
	g.Go(func() error { return w.Run(gctx) })
	// With [sets] source the daemon follows the set: a check at once,
	// then every interval.
	g.Go(func() error { return sets.Run(gctx, cfg.Sets.Interval) })
	g.Go(func() error {
		return eps.Serve(gctx, backend, ev, daemon.ServerOptions{Logger: e.log, Version: version, LogFile: e.serviceLog})
	})
	e.log.Info("daemon started", "socket", cfg.Paths.Socket, "drop", cfg.Paths.Drop, "state", cfg.Paths.State)
	if started != nil {
		started()
	}
	err = g.Wait()
	e.log.Info("daemon stopped")
	return err
}

// batchQuiet is how long the watcher waits after the last ready archive
// before it hands a batch to the writer.
const batchQuiet = 20 * time.Millisecond

// serviceConfig describes the OS service that runs `forgesync daemon`.
func serviceConfig(e *env, run func(ctx context.Context) error) daemon.ServiceConfig {
	args := []string{"daemon"}
	if e.cfg.File != "" {
		args = append(args, "--config", e.cfg.File)
	}
	if !userService {
		args = append(args, "--machine")
		if sid, err := daemon.CurrentUserSID(); err == nil {
			args = append(args, "--owner", sid)
		}
	}
	return daemon.ServiceConfig{
		Name: "forgesync", DisplayName: "forgesync",
		Description: "Keeps MJOLNIR Forge packs installed, validated and in sync",
		Arguments:   args, Run: run, Logger: e.log, UserService: userService,
	}
}

// userService is set by `forgesync service --user`.
var userService bool

func serviceCommand() *command {
	return &command{
		name: "service", args: "install|uninstall|start|stop|status", nargs: argSpec{1, 1, "one of install, uninstall, start, stop, status"},
		summary: "manage the OS service that runs the daemon (systemd, Windows services, launchd)\n" +
			"install records `forgesync daemon --config FILE` with the config's absolute path;\n" +
			"--user installs a service of the current user (systemd --user, LaunchAgent).",
		flags: func(fs *flag.FlagSet) { fs.BoolVar(&userService, "user", false, "a service of the current user") },
		run: func(ctx context.Context, e *env, args []string) int {
			if args[0] == daemon.ActionInstall {
				if err := config.CheckServiceInstall(e.cfg.File, userService); err != nil {
					fmt.Fprintf(e.stderr, "forgesync service install: %v\n", err)
					return exitFailure
				}
				if err := e.cfg.RequireGame(); err != nil {
					fmt.Fprintf(e.stderr, "forgesync service install: %v\n", err)
					return exitFailure
				}
				if err := secureFolders(e.cfg, ""); err != nil {
					fmt.Fprintf(e.stderr, "forgesync service install: %v\n", err)
					return exitFailure
				}
			}
			svc, err := daemon.NewService(serviceConfig(e, nil))
			if err == nil {
				err = daemon.Control(svc, args[0], e.stdout)
			}
			if err != nil {
				return e.fail(err)
			}
			return exitOK
		},
	}
}

// daemonClient returns a client when a daemon answers on the configured
// socket, or else on the TCP API, else nil.
func daemonClient(ctx context.Context, cfg *config.Config) *daemon.Client {
	pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if cfg.Paths.Socket != "" && daemon.Probe(pctx, cfg.Paths.Socket) {
		return daemon.NewClient(cfg.Paths.Socket)
	}
	if cfg.API.Listen != "" && daemon.ProbeTCP(pctx, cfg.API.Listen) {
		if key, err := daemon.ReadAPIKey(cfg.Paths.State); err == nil {
			return daemon.NewTCPClient(cfg.API.Listen, key)
		}
	}
	return nil
}

// secureFolders gives the state folder (the API key) and the socket's
// folder the ACL of SPEC §8 on Windows: SYSTEM, Administrators and owner
// (the installing user; the current one when empty).
func secureFolders(cfg *config.Config, owner string) error {
	for _, d := range []string{cfg.Paths.State, filepath.Dir(cfg.Paths.Socket)} {
		if err := daemon.SecureFolder(d, owner); err != nil {
			return err
		}
	}
	return nil
}

// apiExit maps a daemon error to an exit status.
func apiExit(err error) int {
	if errors.Is(err, api.ErrNotFound) || errors.Is(err, api.ErrConflict) {
		return exitInvalid
	}
	return exitFailure
}
