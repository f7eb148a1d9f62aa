package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/cmd/forgesync/cli"
	"github.com/mjolnir-forge/forgesync/cmd/forgesync/examples"
	"github.com/mjolnir-forge/forgesync/cmd/forgesync/view"
	"github.com/mjolnir-forge/forgesync/config"
	"github.com/mjolnir-forge/forgesync/daemon"
	"github.com/mjolnir-forge/forgesync/daemon/setup"
)

// The commands that run the daemon, install it as a service, lay out a
// demo or a first setup, and ask the running daemon its status.

func daemonCommand() *cli.Command {
	return &cli.Command{
		Name: "daemon", Args: "", Serves: true, Nargs: cli.NoArgs,
		Summary: "run the daemon in the foreground: watch the drop folder, install, publish, deploy, serve status\n" +
			"Under a service manager (see `forgesync service`) it runs as that service, logging JSON.",
		Run: func(ctx context.Context, e *cli.Env, args []string) int {
			if daemon.Interactive() {
				return e.Exit(serveDaemon(ctx, e, "", nil))
			}
			return e.Exit(daemon.RunAsService(e.Config, e.Log, e.Stderr, func(ctx context.Context, log *slog.Logger) error {
				e.Log = log // the service's: the OS log and a rotated file
				return serveDaemon(ctx, e, e.Config.Log.File, nil)
			}))
		},
	}
}

// serveDaemon runs the daemon until ctx ends; logFile is the service's log
// file ("": none); started, when set, is called once everything is up.
func serveDaemon(ctx context.Context, e *cli.Env, logFile string, started func()) error {
	m := openMachine(e)
	defer m.Close()
	b := currentBuild()
	so := daemon.ServeOptions{Owner: e.Owner, Version: b.Version, Commit: b.Commit, BuildDate: b.BuildDate,
		LogFile: logFile, Started: started}
	if file := e.Config.File; file != "" {
		// A reload reads the same file as this process did.
		so.Reload = func() (*config.Config, error) { return config.LoadEnv(file, config.Process(e.Machine)) }
	}
	return m.Serve(ctx, so)
}

func reloadCommand() *cli.Command {
	return &cli.Command{
		Name: "reload", Args: "", Nargs: cli.NoArgs,
		Summary: "ask the running daemon to read its config again (what SIGHUP does on Linux and macOS)\n" +
			"It applies [sets], [watch], [limits] and [performance], and names the other keys that changed:\n" +
			"they take effect at a restart. A bad config changes nothing. Exit status: 0 reloaded,\n" +
			"1 no daemon, 2 the config could not be read or is invalid, or failure.",
		Run: func(ctx context.Context, e *cli.Env, args []string) int {
			c := daemon.Dial(ctx, e.Config)
			if c == nil {
				fmt.Fprintf(e.Stderr, "forgesync reload: no daemon answers on %s: nothing to reload (a daemon reads its config when it starts)\n", e.Config.Paths.Socket)
				return cli.ExitInvalid
			}
			defer c.Close()
			res, err := c.Reload(ctx)
			return cli.Result(e, res, err, view.WriteReload)
		},
	}
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
			return e.Exit(daemon.ControlService(e.Config, args[0], opts, e.Log, e.Stdout))
		},
	}
}

func demoCommand() *cli.Command {
	var root string
	var runFor time.Duration
	return &cli.Command{
		Name: "demo", Args: "", NoConfig: true, Serves: true, Nargs: cli.NoArgs,
		Summary: "see the whole flow without the game: example packs installed by a daemon in a temp folder\n" +
			"Lays out drop/mods/paks/state under one folder, drops the example packs (and one bad\n" +
			"archive) in as archives, and runs the daemon in the foreground.\n" +
			"Ctrl-C stops it; --for stops it after a while.",
		Flags: func(fs *flag.FlagSet) {
			fs.StringVar(&root, "root", filepath.Join(os.TempDir(), "forgesync-demo"), "the `DIR` to lay everything out in")
			fs.DurationVar(&runFor, "for", 0, "stop after this long (0: until interrupted)")
		},
		Run: func(ctx context.Context, e *cli.Env, args []string) int {
			cfg, err := examples.Demo(root, e.Stdout)
			if err != nil {
				return e.Fail(err)
			}
			e.Config = cfg
			if e.Log, err = e.NewLogger(); err != nil {
				return e.Fail(err)
			}
			if runFor > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, runFor)
				defer cancel()
			}
			err = serveDaemon(ctx, e, "", func() { examples.WriteDemoGuide(e.Stdout, cfg) })
			if errors.Is(err, context.DeadlineExceeded) {
				return cli.ExitOK // --for ran out
			}
			return e.Exit(err)
		},
	}
}

// setupFlags are `forgesync setup`'s flags.
var setupFlags struct {
	mods, paks, state string
	undo, service     bool
}

func setupCommand() *cli.Command {
	return &cli.Command{
		Name: "setup", Args: "", NoConfig: true, Nargs: cli.NoArgs,
		Summary: "the one command after unzipping: check the game's folders, write the config where forgesync finds it\n" +
			"(the user's, or the machine's with --machine) and make the drop folder; it asks on a terminal,\n" +
			"offering its config's folders, else the game found in Steam's libraries; without a terminal it\n" +
			"takes those. --service also installs and starts the service;\n" +
			"--undo removes what setup made (never a pack, never a file it did not write).",
		Flags: func(fs *flag.FlagSet) {
			fs.StringVar(&setupFlags.mods, "mods", "", "the game's UE4SS Mods `DIR`")
			fs.StringVar(&setupFlags.paks, "paks", "", "the game's Paks `DIR`")
			fs.StringVar(&setupFlags.state, "state", "", "forgesync's state `DIR` (made when missing)")
			fs.BoolVar(&setupFlags.undo, "undo", false, "remove what setup made")
			fs.BoolVar(&setupFlags.service, "service", false, "also install and start the service")
		},
		Run: func(ctx context.Context, e *cli.Env, args []string) int {
			o := setup.SetupOptions{Mods: setupFlags.mods, Paks: setupFlags.paks, State: setupFlags.state, Env: config.Process(e.Machine), Log: e.Log}
			if setupFlags.undo {
				e.Name = "setup --undo"
				return e.Exit(setup.SetupUndo(ctx, o, e.Stdout))
			}
			if setupFlags.service {
				// Refused before it asks or writes anything.
				opts, err := daemon.SetupService(runtime.GOOS, e.Machine)
				if err != nil {
					return e.Fail(err)
				}
				o.Service = &opts
			}
			if err := setup.SetupAsk(&o, os.Stdin, e.Stdout, cli.StdinTerminal()); err != nil {
				return e.Fail(err)
			}
			return e.Exit(setup.Setup(ctx, o, e.Stdout))
		},
	}
}

func uninstallCommand() *cli.Command {
	var yes, deleteDropped bool
	return &cli.Command{
		Name: "uninstall", Args: "", Nargs: cli.NoArgs,
		Summary: "remove everything forgesync made: the service, every pack's content, the deployed scripts and module,\n" +
			"the inventory files, drop, the state and the config; the game's folders are left as before setup.\n" +
			"It names all of it and asks first (without a terminal: --yes); a file forgesync did not write stays,\n" +
			"named, and so do the archives you dropped unless --delete-dropped.",
		Flags: func(fs *flag.FlagSet) {
			fs.BoolVar(&yes, "yes", false, "do not ask (needed without a terminal)")
			fs.BoolVar(&deleteDropped, "delete-dropped", false, "also delete the archives you dropped that wait in drop or were rejected")
		},
		Run: func(ctx context.Context, e *cli.Env, args []string) int {
			opts, _ := daemon.SetupService(runtime.GOOS, e.Machine) // the service, if setup installed one
			return e.Exit(setup.Uninstall(ctx, setup.UninstallOptions{Config: e.Config, Service: opts, Log: e.Log, Yes: yes,
				Terminal: cli.StdinTerminal(), In: os.Stdin, DeleteDropped: deleteDropped, LockWait: lockWait}, e.Stdout))
		},
	}
}

func statusCommand() *cli.Command {
	var watch bool
	return &cli.Command{
		Name: "status", Args: "", Nargs: cli.NoArgs,
		Summary: "ask the running daemon what is installed, what was rejected and why\n" +
			"Without a daemon it shows the state on disk (read under its lock, changing nothing).\n" +
			"--watch follows the event stream, with a progress bar for a running install.\n" +
			"Exit status: 0 daemon running, 1 no daemon (the state on disk shown), 2 failure.",
		Flags: func(fs *flag.FlagSet) { fs.BoolVar(&watch, "watch", false, "follow the daemon's events") },
		Run: func(ctx context.Context, e *cli.Env, args []string) int {
			c := daemon.Dial(ctx, e.Config)
			if c == nil {
				return statusOnDisk(ctx, e)
			}
			defer c.Close()
			if watch {
				return watchEvents(ctx, e, c)
			}
			st, err := c.Status(ctx)
			if err != nil {
				return e.Fail(err)
			}
			if e.JSON {
				cli.WriteJSON(e.Stdout, view.RunningStatus{Status: &st, Socket: e.Config.Paths.Socket, LogFile: st.LogFile})
				return cli.ExitOK
			}
			rej, err := c.Rejections(ctx)
			if err != nil {
				return e.Fail(err)
			}
			view.WriteStatus(e.Stdout, st, rej)
			return cli.ExitOK
		},
	}
}

// openapiCommand prints the status socket's contract, the document the
// daemon serves at GET /v1/openapi.json.
func openapiCommand() *cli.Command {
	var asYAML bool
	return &cli.Command{
		Name: "openapi", Args: "[--yaml]", NoConfig: true, Nargs: cli.NoArgs,
		Summary: "print the OpenAPI 3.1 document of the status socket and the TCP API, for client generators\n" +
			"JSON, as the daemon serves it at GET /v1/openapi.json; --yaml prints its YAML source.\n" +
			"Exit status: 0 printed, 2 failure.",
		Flags: func(fs *flag.FlagSet) { fs.BoolVar(&asYAML, "yaml", false, "print the YAML source instead of JSON") },
		Run: func(ctx context.Context, e *cli.Env, args []string) int {
			if asYAML {
				e.Stdout.Write(api.OpenAPI)
				return cli.ExitOK
			}
			e.Stdout.Write(api.OpenAPIJSON)
			return cli.ExitOK
		},
	}
}

// statusOnDisk is status without a daemon: the state on disk, read under
// its shared lock; exit 1 (no daemon), or 2 when the state cannot be read.
func statusOnDisk(ctx context.Context, e *cli.Env) int {
	n := view.NotRunning{Socket: e.Config.Paths.Socket, StateDir: e.Config.Paths.State}
	if e.JSON {
		gates := daemon.Gates(e.Config.Paths.Mods)
		n.Gates = &gates
	}
	disk, err := daemon.ReadOnDisk(ctx, e.Config, lockWait)
	if disk != nil {
		n.Status, n.Rejections = &disk.Status, disk.Rejections
	}
	cli.Show(e, n, view.WriteNotRunning)
	if err != nil {
		return e.Fail(fmt.Errorf("no daemon, and the state on disk cannot be read: %w", err))
	}
	return cli.ExitInvalid
}

// watchEvents prints the daemon's events as they come, drawing a progress
// bar for a running extraction, until interrupted.
func watchEvents(ctx context.Context, e *cli.Env, c *daemon.Client) int {
	ew := &view.EventWriter{W: e.Stdout, JSON: e.JSON}
	err := c.Events(ctx, daemon.Live, ew.Write)
	ew.Close()
	if err != nil && !errors.Is(err, context.Canceled) && ctx.Err() == nil {
		fmt.Fprintf(e.Stderr, "forgesync status --watch: %v\n", err)
		return cli.ExitFailure
	}
	return cli.ExitOK
}
