package main

import (
	"context"
	"flag"
	"log/slog"

	"github.com/mjolnir-forge/forgesync/cmd/forgesync/cli"
	"github.com/mjolnir-forge/forgesync/daemon"
)

func daemonCommand() *cli.Command {
	return &cli.Command{
		Name: "daemon", Args: "", Serves: true, Nargs: cli.NoArgs,
		Summary: "run the daemon in the foreground: watch the drop folder, install, publish, deploy, serve status\n" +
			"Under a service manager (see `forgesync service`) it runs as that service, logging JSON.",
		Run: func(ctx context.Context, e *cli.Env, args []string) int {
			if daemon.Interactive() {
				return serveExit(e, serveDaemon(ctx, e, "", nil))
			}
			return serveExit(e, daemon.RunAsService(e.Config, e.Log, e.Stderr, func(ctx context.Context, log *slog.Logger) error {
				e.Log = log // the service's: the OS log and a rotated file
				return serveDaemon(ctx, e, e.Config.Log.File, nil)
			}))
		},
	}
}

// serveExit is the exit status of a daemon that stopped with err.
func serveExit(e *cli.Env, err error) int {
	if err != nil {
		return e.Fail(err)
	}
	return cli.ExitOK
}

// serveDaemon runs the daemon until ctx ends; logFile is the service's log
// file ("": none); started, when set, is called once everything is up.
func serveDaemon(ctx context.Context, e *cli.Env, logFile string, started func()) error {
	m := openMachine(e)
	defer m.Close()
	b := currentBuild()
	return m.Serve(ctx, daemon.ServeOptions{Owner: e.Owner, Version: b.Version, Commit: b.Commit, BuildDate: b.BuildDate,
		LogFile: logFile, Started: started})
}

func serviceCommand() *cli.Command {
	var user, noNative bool
	return &cli.Command{
		Name: "service", Args: "install|uninstall|start|stop|status", Nargs: cli.One("one of install, uninstall, start, stop, status"),
		Summary: "manage the OS service that runs the daemon (systemd, Windows services, launchd)\n" +
			"install records `forgesync daemon --config FILE` with the config's absolute path;\n" +
			"--user installs a service of the current user (systemd --user, LaunchAgent).\n" +
			"Without systemd, launchd or the Windows service manager it installs nothing: run `forgesync daemon` under your own supervisor.",
		Flags: func(fs *flag.FlagSet) {
			fs.BoolVar(&user, "user", false, "a service of the current user")
			fs.BoolVar(&noNative, "no-native", false, "install without the native door module's bundle (or set [deploy] native = false)")
		},
		Run: func(ctx context.Context, e *cli.Env, args []string) int {
			if args[0] == daemon.ActionInstall {
				e.Name = "service install"
			}
			opts := daemon.ServiceOptions{User: user, NoNative: noNative}
			if err := daemon.ControlService(e.Config, args[0], opts, e.Log, e.Stdout); err != nil {
				return e.Fail(err)
			}
			return cli.ExitOK
		},
	}
}
