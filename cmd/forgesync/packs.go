package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/cmd/forgesync/cli"
	"github.com/mjolnir-forge/forgesync/cmd/forgesync/view"
	"github.com/mjolnir-forge/forgesync/daemon"
	"github.com/mjolnir-forge/forgesync/pipeline"
	"github.com/mjolnir-forge/forgesync/sets/fetch"
)

// The commands on this machine's installed set, each through the running
// daemon when one answers, else on the state under its lock (openMachine).

// lockWait is how long a command waits for another process holding the
// state folder before it gives up and names the holder.
const lockWait = 2 * time.Second

// setFetcher is the template of every fetch of a set: the defaults of
// fetch.Fetcher, which tests shorten.
var setFetcher fetch.Fetcher

// openMachine returns the machine of the command's configuration: its
// running daemon, or else its state opened under the lock at first use.
func openMachine(e *cli.Env) *daemon.Machine {
	opts := daemon.Options{Config: e.Config, Log: e.Log, LockWait: lockWait, Fetcher: setFetcher, Extractor: daemon.SelfExtractor(e.Config)}
	if !e.JSON {
		opts.Progress = e.Stderr // a headless host sees each download start
	}
	return daemon.New(opts)
}

func syncCommand() *cli.Command {
	var set cli.OptionalValue // --set [LOCK|DIR|URL|oci://REF]; none: the configured [sets] source
	var prune, follow bool
	return &cli.Command{
		Name: "sync", Args: "[--set [LOCK|DIR|URL|oci://REF] [--prune] | --set --follow]", Nargs: cli.Args{Min: 0, Max: 1},
		Summary: "process every archive in the drop folder once, publish the inventory, then exit\n" +
			"For headless hosts and scripts. Exit status: 0 all good, 1 something rejected, 2 failure\n" +
			"or an archive waiting for the machine (a file held by the game, a full disk; it stays in drop).\n" +
			"--set makes the enabled packs exactly a pack set's (SPEC §10): fetch and verify the lock,\n" +
			"download what the machine lacks, apply it all as one transaction (exit 1: the set was refused).\n" +
			"On a machine that follows [sets] source, a set given by hand pauses following (status says so);\n" +
			"--set --follow resumes it and syncs the source now.",
		Flags: func(fs *flag.FlagSet) {
			fs.Var(&set, "set", "make the enabled packs exactly the pack set of this lock `FILE|DIR|URL|oci://REF` (none: [sets] source)")
			fs.BoolVar(&prune, "prune", false, "with --set: remove the installed packs the set does not pin, instead of disabling them")
			fs.BoolVar(&follow, "follow", false, "with --set: follow [sets] source again after a set given by hand paused it, and sync it now")
		},
		Run: func(ctx context.Context, e *cli.Env, args []string) int {
			if follow {
				return runResumeFollow(ctx, e, set, args, prune)
			}
			if set.Given {
				return runSyncSet(ctx, e, set.With(args), prune)
			}
			if len(args) > 0 {
				return e.Failf("want no arguments, got %d argument(s)", len(args))
			}
			if prune {
				return e.Failf("--prune goes with --set LOCK|URL")
			}
			return runSummary(ctx, e, view.WriteSummary, (*daemon.Machine).SyncDrop)
		},
	}
}

// runSummary runs a transaction on the command's machine with do, prints
// what it did (text writes it for people) and returns the exit status (see
// printSummary). A run whose deploy failed (daemon.ErrDeploy) is complete:
// its summary's warnings say what failed, and it exits 2.
func runSummary(ctx context.Context, e *cli.Env, text func(io.Writer, *api.Summary) error,
	do func(*daemon.Machine, context.Context) (*api.Summary, error)) int {
	m := openMachine(e)
	defer m.Close()
	sum, err := do(m, ctx)
	if err != nil && !errors.Is(err, daemon.ErrDeploy) {
		return e.Fail(err)
	}
	code := printSummary(e, sum, text)
	if err != nil {
		return cli.ExitFailure
	}
	return code
}

// printSummary prints what a transaction did (text writes it for people)
// and returns the exit status: 2 when an archive waits for the machine's
// condition (a held file, a full disk: its reasons say what to do), else
// 1 when an archive was rejected.
func printSummary(e *cli.Env, sum *api.Summary, text func(io.Writer, *api.Summary) error) int {
	cli.Show(e, sum, text)
	if sum.Waiting() {
		return cli.ExitFailure
	}
	if sum.Rejected() {
		return cli.ExitInvalid
	}
	return cli.ExitOK
}

func installCommand() *cli.Command {
	var force bool
	return &cli.Command{
		Name: "install", Args: "ARCHIVE", Nargs: cli.One("one ARCHIVE"),
		Summary: "install one archive now, from anywhere (the file stays where it is)\n" +
			"--force replaces a same-version install with other bytes, or downgrades.\n" +
			"Exit status: 0 installed or already installed, 1 rejected, 2 failure.",
		Flags: func(fs *flag.FlagSet) {
			fs.BoolVar(&force, "force", false, "allow a same-version reinstall or a downgrade")
		},
		Run: func(ctx context.Context, e *cli.Env, args []string) int {
			return runSummary(ctx, e, view.WriteSummary, func(m *daemon.Machine, ctx context.Context) (*api.Summary, error) {
				return m.Install(ctx, args[0], pipeline.InstallOptions{Force: force})
			})
		},
	}
}

func packsCommand() *cli.Command {
	return &cli.Command{
		Name: "packs", Args: "", Nargs: cli.NoArgs,
		Summary: "list the installed packs",
		Run: func(ctx context.Context, e *cli.Env, args []string) int {
			m := openMachine(e)
			defer m.Close()
			packs, err := m.Packs(ctx)
			return cli.Result(e, packs, err, view.WritePacks)
		},
	}
}

// changeCommand builds enable, disable and remove: through the daemon when
// one answers, else on the state under its lock.
func changeCommand(name, summary string, do func(*daemon.Machine, context.Context, string) (*api.Summary, error)) *cli.Command {
	return &cli.Command{
		Name: name, Args: "ID", Summary: summary, Nargs: cli.One("one pack ID"),
		Run: func(ctx context.Context, e *cli.Env, args []string) int {
			m := openMachine(e)
			defer m.Close()
			sum, err := do(m, ctx, args[0])
			if err != nil {
				return e.Fail(err)
			}
			if !e.JSON && view.WriteChange(e.Stdout, name, args[0], sum, m.Daemon(ctx) != nil) {
				return cli.ExitOK // the pack was so already
			}
			if printSummary(e, sum, view.WriteSummary) == cli.ExitFailure {
				return cli.ExitFailure // committed; the game does not see it yet
			}
			return cli.ExitOK
		},
	}
}

func enableCommand() *cli.Command {
	return changeCommand("enable", "enable an installed pack (refused past 256 doors across enabled packs)", (*daemon.Machine).Enable)
}

func disableCommand() *cli.Command {
	return changeCommand("disable", "disable a pack: it stays installed but leaves lifts.txt, doors.txt and installed.txt", (*daemon.Machine).Disable)
}

func removeCommand() *cli.Command {
	return changeCommand("remove", "uninstall a pack: its entry and content go; its archive stays kept while a kept generation\n"+
		"needs it, so that `forgesync rollback` can bring the pack back ([sets] keep_generations).", (*daemon.Machine).Remove)
}

func retryCommand() *cli.Command {
	var all bool
	return &cli.Command{
		Name: "retry", Args: "NAME...|--all", Nargs: cli.Args{Min: 0, Max: -1, Want: "NAME... or --all"},
		Summary: "move rejected archives from drop/rejected/ back into drop and process them now\n" +
			"For an archive refused because of what was installed, once that changed. Their notes go.\n" +
			"Exit status: 0 all good, 1 rejected again or not in drop/rejected/, 2 failure.",
		Flags: func(fs *flag.FlagSet) {
			fs.BoolVar(&all, "all", false, "retry every archive in drop/rejected/")
		},
		Run: func(ctx context.Context, e *cli.Env, args []string) int {
			if all == (len(args) > 0) {
				return e.Failf("name the archives in drop/rejected/ (`forgesync status` lists them), or say --all")
			}
			return runSummary(ctx, e, view.WriteSummary, func(m *daemon.Machine, ctx context.Context) (*api.Summary, error) {
				return m.Retry(ctx, pipeline.RetryOptions{Archives: args, All: all})
			})
		},
	}
}

func historyCommand() *cli.Command {
	return &cli.Command{
		Name: "history", Args: "", Nargs: cli.NoArgs,
		Summary: "list the kept generations of the installed set, newest first, with what changed in each\n" +
			"Reads the state without its lock, so it works beside a running daemon.",
		Run: func(ctx context.Context, e *cli.Env, args []string) int {
			h, err := daemon.ReadHistory(e.Config.Paths.State)
			return cli.Result(e, h, err, view.WriteHistory)
		},
	}
}

func rollbackCommand() *cli.Command {
	return &cli.Command{
		Name: "rollback", Args: "[N]", Nargs: cli.Args{Min: 0, Max: 1, Want: "at most one generation number"},
		Summary: "make the installed set equal to generation N (default: the one before the current one)\n" +
			"From kept archives only, no network; recorded as a new generation. Exit status: 0 done,\n" +
			"1 refused (a generation not kept, or over the global limits), 2 failure.",
		Run: func(ctx context.Context, e *cli.Env, args []string) int {
			n := 0
			if len(args) == 1 {
				v, err := strconv.Atoi(args[0])
				if err != nil || v < 1 {
					return e.Fail(fmt.Errorf("%q is not a generation number (see `forgesync history`)", args[0]))
				}
				n = v
			}
			return runSummary(ctx, e, view.WriteRollback, func(m *daemon.Machine, ctx context.Context) (*api.Summary, error) {
				return m.Rollback(ctx, n)
			})
		},
	}
}
