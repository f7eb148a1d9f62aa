package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/cmd/forgesync/cli"
	"github.com/mjolnir-forge/forgesync/cmd/forgesync/view"
	"github.com/mjolnir-forge/forgesync/daemon"
	"github.com/mjolnir-forge/forgesync/inventory/rejection"
	"github.com/mjolnir-forge/forgesync/pipeline"
	"github.com/mjolnir-forge/forgesync/sets/fetch"
)

// lockWait is how long a command waits for another process holding the
// state folder before it gives up and names the holder.
const lockWait = 2 * time.Second

// setFetcher is the template of every fetch of a set: the defaults of
// fetch.Fetcher, which tests shorten.
var setFetcher fetch.Fetcher

// openMachine returns the machine of the command's configuration: its
// running daemon, or else its state opened under the lock at first use.
func openMachine(e *cli.Env) *daemon.Machine {
	opts := daemon.Options{Config: e.Config, Log: e.Log, LockWait: lockWait, Fetcher: setFetcher, Extractor: newExtractor(e.Config)}
	if !e.JSON {
		opts.Progress = e.Stderr // a headless host sees each download start
	}
	return daemon.New(opts)
}

func syncCommand() *cli.Command {
	var set setArg
	var prune bool
	return &cli.Command{
		Name: "sync", Args: "[--set [LOCK|URL] [--prune]]", Nargs: cli.Args{Min: 0, Max: 1},
		Summary: "process every archive in the drop folder once, publish the inventory, then exit\n" +
			"For headless hosts and scripts. Exit status: 0 all good, 1 something rejected, 2 failure\n" +
			"or an archive waiting for the machine (a file held by the game, a full disk; it stays in drop).\n" +
			"--set makes the enabled packs exactly a pack set's (SPEC §10): fetch and verify the lock,\n" +
			"download what the machine lacks, apply it all as one transaction (exit 1: the set was refused).",
		Flags: func(fs *flag.FlagSet) {
			fs.Var(&set, "set", "make the enabled packs exactly the pack set of this lock `FILE|DIR|URL|oci://REF` (none: [sets] source)")
			fs.BoolVar(&prune, "prune", false, "with --set: remove the installed packs the set does not pin, instead of disabling them")
		},
		Run: func(ctx context.Context, e *cli.Env, args []string) int {
			if set.given {
				return runSyncSet(ctx, e, set.lock(args), prune)
			}
			if len(args) > 0 {
				fmt.Fprintf(e.Stderr, "forgesync sync: want no arguments, got %d argument(s)\n", len(args))
				return cli.ExitFailure
			}
			if prune {
				fmt.Fprintln(e.Stderr, "forgesync sync: --prune goes with --set LOCK|URL")
				return cli.ExitFailure
			}
			m := openMachine(e)
			defer m.Close()
			sum, err := m.SyncDrop(ctx)
			if err != nil && !errors.Is(err, daemon.ErrDeploy) {
				return e.Fail(err)
			}
			code := printSummary(e, sum, view.WriteSummary)
			if err != nil {
				return cli.ExitFailure // the summary's warnings say what failed
			}
			return code
		},
	}
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
		Name: "install", Args: "ARCHIVE", Nargs: cli.Args{Min: 1, Max: 1, Want: "one ARCHIVE"},
		Summary: "install one archive now, from anywhere (the file stays where it is)\n" +
			"--force replaces a same-version install with other bytes, or downgrades.\n" +
			"Exit status: 0 installed or already installed, 1 rejected, 2 failure.",
		Flags: func(fs *flag.FlagSet) {
			fs.BoolVar(&force, "force", false, "allow a same-version reinstall or a downgrade")
		},
		Run: func(ctx context.Context, e *cli.Env, args []string) int {
			m := openMachine(e)
			defer m.Close()
			sum, err := m.Install(ctx, args[0], pipeline.InstallOptions{Force: force})
			if err != nil {
				return e.Fail(err)
			}
			return printSummary(e, sum, view.WriteSummary)
		},
	}
}

func packsCommand() *cli.Command {
	return &cli.Command{
		Name: "packs", Args: "",
		Summary: "list the installed packs",
		Run: func(ctx context.Context, e *cli.Env, args []string) int {
			m := openMachine(e)
			defer m.Close()
			packs, err := m.Packs(ctx)
			if err != nil {
				return e.Fail(err)
			}
			return cli.Show(e, packs, view.WritePacks)
		},
	}
}

// changeCommand builds enable, disable and remove: through the daemon when
// one answers, else on the state under its lock.
func changeCommand(name, summary string, do func(*daemon.Machine, context.Context, string) (*api.Summary, error)) *cli.Command {
	return &cli.Command{
		Name: name, Args: "ID", Summary: summary, Nargs: cli.Args{Min: 1, Max: 1, Want: "one pack ID"},
		Run: func(ctx context.Context, e *cli.Env, args []string) int {
			m := openMachine(e)
			defer m.Close()
			sum, err := do(m, ctx, args[0])
			if err != nil {
				return e.Fail(err)
			}
			if !e.JSON && (name == "enable" || name == "disable") && sum.Generation == 0 && len(sum.Outcomes) == 0 {
				// Nothing changed: the pack was so already.
				fmt.Fprintf(e.Stdout, "%s is already %sd\n", rejection.Escape(args[0]), name)
				return cli.ExitOK
			}
			if !e.JSON {
				by := ""
				if m.Daemon(ctx) != nil {
					by = " (by the running daemon)"
				}
				fmt.Fprintf(e.Stdout, "%s: %sd%s\n", args[0], name, by)
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
	return changeCommand("remove", "uninstall a pack: its entry, content and kept archive go", (*daemon.Machine).Remove)
}
