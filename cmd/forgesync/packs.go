package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/machine"
	"github.com/mjolnir-forge/forgesync/packset"
)

// lockWait is how long a command waits for another process holding the
// state folder before it gives up and names the holder.
const lockWait = 2 * time.Second

// setFetcher is the template of every fetch of a set: the defaults of
// packset.Fetcher, which tests shorten.
var setFetcher packset.Fetcher

// open returns the machine of the command's configuration: its running
// daemon, or else its state opened under the lock at first use.
func (e *env) open() *machine.Machine {
	opts := machine.Options{Config: e.cfg, Log: e.log, LockWait: lockWait, Fetcher: setFetcher}
	if !e.json {
		opts.Progress = e.stderr // a headless host sees each download start
	}
	return machine.New(opts)
}

func syncCommand() *command {
	var set string
	var prune bool
	return &command{
		name: "sync", args: "[--set LOCK|URL [--prune]]", nargs: argSpec{0, 0, "no arguments"},
		summary: "process every archive in the drop folder once, publish the inventory, then exit\n" +
			"For headless hosts and scripts. Exit status: 0 all good, 1 something rejected, 2 failure.\n" +
			"--set makes the enabled packs exactly a pack set's (SPEC §10): fetch and verify the lock,\n" +
			"download what the machine lacks, apply it all as one transaction (exit 1: the set was refused).",
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&set, "set", "", "make the enabled packs exactly the pack set of this lock `FILE|DIR|URL`")
			fs.BoolVar(&prune, "prune", false, "with --set: remove the installed packs the set does not pin, instead of disabling them")
		},
		run: func(ctx context.Context, e *env, args []string) int {
			if set != "" {
				return runSyncSet(ctx, e, set, prune)
			}
			if prune {
				fmt.Fprintln(e.stderr, "forgesync sync: --prune goes with --set LOCK|URL")
				return exitFailure
			}
			m := e.open()
			defer m.Close()
			sum, err := m.Sync(ctx)
			if err != nil && !errors.Is(err, machine.ErrDeploy) {
				return e.fail(err)
			}
			code := printSummary(e, sum)
			if err != nil {
				return exitFailure // the summary's warnings say what failed
			}
			return code
		},
	}
}

// printSummary prints what a transaction did and returns the exit status:
// 1 when an archive was rejected.
func printSummary(e *env, sum *api.Summary) int {
	if e.json {
		writeJSON(e.stdout, sum)
	} else {
		api.WriteSummary(e.stdout, sum)
	}
	if sum.Rejected() {
		return exitInvalid
	}
	return exitOK
}

func installCommand() *command {
	var force bool
	return &command{
		name: "install", args: "ARCHIVE", nargs: argSpec{1, 1, "one ARCHIVE"},
		summary: "install one archive now, from anywhere (the file stays where it is)\n" +
			"--force replaces a same-version install with other bytes, or downgrades.\n" +
			"Exit status: 0 installed or already installed, 1 rejected, 2 failure.",
		flags: func(fs *flag.FlagSet) {
			fs.BoolVar(&force, "force", false, "allow a same-version reinstall or a downgrade")
		},
		run: func(ctx context.Context, e *env, args []string) int {
			m := e.open()
			defer m.Close()
			sum, err := m.Install(ctx, args[0], force)
			if err != nil {
				return e.fail(err)
			}
			return printSummary(e, sum)
		},
	}
}

func packsCommand() *command {
	return &command{
		name: "packs", args: "",
		summary: "list the installed packs",
		run: func(ctx context.Context, e *env, args []string) int {
			m := e.open()
			defer m.Close()
			packs, err := m.Packs(ctx)
			if err != nil {
				return e.fail(err)
			}
			if e.json {
				writeJSON(e.stdout, packs)
				return exitOK
			}
			api.WritePacks(e.stdout, packs)
			return exitOK
		},
	}
}

// changeCommand builds enable, disable and remove: through the daemon when
// one answers, else on the state under its lock.
func changeCommand(name, summary string, do func(*machine.Machine, context.Context, string) (*api.Summary, error)) *command {
	return &command{
		name: name, args: "ID", summary: summary, nargs: argSpec{1, 1, "one pack ID"},
		run: func(ctx context.Context, e *env, args []string) int {
			m := e.open()
			defer m.Close()
			sum, err := do(m, ctx, args[0])
			if err != nil {
				return e.fail(err)
			}
			if !e.json {
				by := ""
				if m.Daemon(ctx) != nil {
					by = " (by the running daemon)"
				}
				fmt.Fprintf(e.stdout, "%s: %sd%s\n", args[0], name, by)
			}
			printSummary(e, sum)
			return exitOK
		},
	}
}

func enableCommand() *command {
	return changeCommand("enable", "enable an installed pack (refused past 256 doors across enabled packs)", (*machine.Machine).Enable)
}

func disableCommand() *command {
	return changeCommand("disable", "disable a pack: it stays installed but leaves lifts.txt, doors.txt and installed.txt", (*machine.Machine).Disable)
}

func removeCommand() *command {
	return changeCommand("remove", "uninstall a pack: its entry, content and kept archive go", (*machine.Machine).Remove)
}
