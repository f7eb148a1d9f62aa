package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/config"
	"github.com/mjolnir-forge/forgesync/daemon"
	"github.com/mjolnir-forge/forgesync/installer"
	"github.com/mjolnir-forge/forgesync/pipeline"
)

// openPipeline opens the installed state for a command that changes or
// reads it, recovering from any interrupted transaction first.
func openPipeline(ctx context.Context, e *env) (*pipeline.Pipeline, *pipeline.Summary, error) {
	if err := e.cfg.RequireGame(); err != nil {
		return nil, nil, err
	}
	lim, err := e.cfg.ArchiveLimits()
	if err != nil {
		return nil, nil, err
	}
	return pipeline.Open(ctx, pipelineOptions(e.cfg, lim, e))
}

func pipelineOptions(cfg *config.Config, lim installer.Limits, e *env) pipeline.Options {
	return pipeline.Options{
		Drop: cfg.Paths.Drop, Mods: cfg.Paths.Mods, Paks: cfg.Paths.Paks, State: cfg.Paths.State,
		Limits: lim, Log: e.log, LockWait: lockWait,
		DeployLua: cfg.Deploy.Lua, DeployNative: cfg.Deploy.Native, Modules: cfg.Deploy.Modules,
		KeepGenerations: cfg.Sets.KeepGenerations,
	}
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
			if c := daemonClient(ctx, e.cfg); c != nil {
				// The daemon is the single writer: have it rescan now.
				defer c.Close()
				sum, err := c.Sync(ctx)
				if err != nil {
					fmt.Fprintf(e.stderr, "forgesync sync: %v\n", err)
					return apiExit(err)
				}
				return printSummary(e, sum)
			}
			p, rec, err := openPipeline(ctx, e)
			if err != nil {
				return e.fail(err)
			}
			defer p.Close()
			sum, err := p.Sync(ctx)
			if err != nil {
				return e.fail(err)
			}
			sum = rec.Merge(sum)
			reports, derr := p.Deploy(ctx)
			warnings, deployFailed := pipeline.DeployWarnings(reports, derr)
			sum.Warnings = append(sum.Warnings, warnings...)
			code := printSummary(e, sum)
			if deployFailed {
				return exitFailure
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
		return summaryExit(sum)
	}
	api.WriteSummary(e.stdout, sum)
	return summaryExit(sum)
}

// summaryExit is 1 when an archive was rejected, else 0.
func summaryExit(sum *api.Summary) int {
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
			if c := daemonClient(ctx, e.cfg); c != nil {
				c.Close()
				fmt.Fprintf(e.stderr, "forgesync install: a daemon is running and holds the state: copy %s into %s and it installs it,\n"+
					"or stop the daemon (forgesync service stop) to install with --force\n", args[0], e.cfg.Paths.Drop)
				return exitFailure
			}
			p, _, err := openPipeline(ctx, e)
			if err != nil {
				return e.fail(err)
			}
			defer p.Close()
			sum, err := p.Install(ctx, args[0], force)
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
			packs, err := listPacks(ctx, e)
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

// listPacks asks the running daemon, which holds the state, or else reads
// the state under its lock.
func listPacks(ctx context.Context, e *env) ([]api.Pack, error) {
	if c := daemonClient(ctx, e.cfg); c != nil {
		defer c.Close()
		return c.Packs(ctx)
	}
	p, _, err := openPipeline(ctx, e)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	installed, err := p.Packs()
	out := []api.Pack{}
	for _, pk := range installed {
		out = append(out, pipeline.PackView(pk))
	}
	return out, err
}

// changeCommand builds enable, disable and remove: through the daemon when
// one is running (it is the single writer), else on the state directly,
// under its lock.
func changeCommand(name, summary string, do func(p *pipeline.Pipeline, ctx context.Context, id string) (*pipeline.Summary, error),
	remote func(c *daemon.Client, ctx context.Context, id string) (*api.Summary, error)) *command {
	return &command{
		name: name, args: "ID", summary: summary, nargs: argSpec{1, 1, "one pack ID"},
		run: func(ctx context.Context, e *env, args []string) int {
			if c := daemonClient(ctx, e.cfg); c != nil {
				defer c.Close()
				sum, err := remote(c, ctx, args[0])
				if err != nil {
					fmt.Fprintf(e.stderr, "forgesync %s: %v\n", name, err)
					return apiExit(err)
				}
				if !e.json {
					fmt.Fprintf(e.stdout, "%s: %sd (by the running daemon)\n", args[0], name)
				}
				printSummary(e, sum)
				return exitOK
			}
			p, _, err := openPipeline(ctx, e)
			if err != nil {
				return e.fail(err)
			}
			defer p.Close()
			sum, err := do(p, ctx, args[0])
			if err != nil {
				fmt.Fprintf(e.stderr, "forgesync %s: %v\n", name, err)
				if errors.Is(err, pipeline.ErrNotInstalled) || errors.Is(err, pipeline.ErrRefused) {
					return exitInvalid
				}
				return exitFailure
			}
			if !e.json {
				fmt.Fprintf(e.stdout, "%s: %sd\n", args[0], name)
			}
			printSummary(e, sum)
			return exitOK
		},
	}
}

func enableCommand() *command {
	return changeCommand("enable", "enable an installed pack (refused past 256 doors across enabled packs)", (*pipeline.Pipeline).Enable, (*daemon.Client).Enable)
}

func disableCommand() *command {
	return changeCommand("disable", "disable a pack: it stays installed but leaves lifts.txt, doors.txt and installed.txt", (*pipeline.Pipeline).Disable, (*daemon.Client).Disable)
}

func removeCommand() *command {
	return changeCommand("remove", "uninstall a pack: its entry, content and kept archive go", (*pipeline.Pipeline).Remove, (*daemon.Client).Remove)
}
