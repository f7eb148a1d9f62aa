package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/mjolnir-forge/forgesync/config"
	"github.com/mjolnir-forge/forgesync/daemon"
	"github.com/mjolnir-forge/forgesync/machine"
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

// serveDaemon runs the daemon until ctx ends; started, when set, is called
// once everything is up.
func serveDaemon(ctx context.Context, e *env, started func()) error {
	m := machine.New(machine.Options{Config: e.cfg, Log: e.log, LockWait: lockWait, Fetcher: setFetcher})
	defer m.Close()
	return m.Serve(ctx, machine.ServeOptions{Owner: e.owner, Version: version, LogFile: e.serviceLog, Started: started})
}

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
				if err := machine.SecureFolders(e.cfg, ""); err != nil {
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
