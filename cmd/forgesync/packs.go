package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/mjolnir-forge/forgesync/config"
	"github.com/mjolnir-forge/forgesync/daemon"
	"github.com/mjolnir-forge/forgesync/installer"
	"github.com/mjolnir-forge/forgesync/inventory"
	"github.com/mjolnir-forge/forgesync/pipeline"
)

// openPipeline opens the installed state for a command that changes or
// reads it, recovering from any interrupted transaction first.
func openPipeline(ctx context.Context, e *env) (*pipeline.Pipeline, *pipeline.Summary, error) {
	if err := e.cfg.RequireGame(); err != nil {
		return nil, nil, err
	}
	lim, err := archiveLimits(e.cfg)
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
	}
}

func syncCommand() *command {
	return &command{
		name: "sync", args: "",
		summary: "process every archive in the drop folder once, publish the inventory, then exit\n" +
			"For headless hosts and scripts. Exit status: 0 all good, 1 something rejected, 2 failure.",
		run: func(ctx context.Context, e *env, args []string) int {
			if !needArgs(e, "sync", args, 0, 0, "no arguments") {
				return exitFailure
			}
			if c := daemonClient(ctx, e.cfg); c != nil {
				// The daemon is the single writer: have it rescan now.
				defer c.Close()
				res, err := c.Sync(ctx)
				if err != nil {
					fmt.Fprintf(e.stderr, "forgesync sync: %v\n", err)
					return apiExit(err)
				}
				var sum pipeline.Summary
				json.Unmarshal(res, &sum)
				printSummary(e, &sum)
				if sum.Rejected() {
					return exitInvalid
				}
				return exitOK
			}
			p, rec, err := openPipeline(ctx, e)
			if err != nil {
				fmt.Fprintf(e.stderr, "forgesync sync: %v\n", err)
				return exitFailure
			}
			defer p.Close()
			sum, err := p.Sync(ctx)
			if err != nil {
				fmt.Fprintf(e.stderr, "forgesync sync: %v\n", err)
				return exitFailure
			}
			sum = merge(rec, sum)
			reports, derr := p.Deploy(ctx)
			warnings, deployFailed := pipeline.DeployWarnings(reports, derr)
			sum.Warnings = append(sum.Warnings, warnings...)
			printSummary(e, sum)
			switch {
			case deployFailed:
				return exitFailure
			case sum.Rejected():
				return exitInvalid
			}
			return exitOK
		},
	}
}

// merge folds the recovery pass's summary into the sync's.
func merge(a, b *pipeline.Summary) *pipeline.Summary {
	if a == nil {
		return b
	}
	out := *b
	out.Outcomes = append(append([]pipeline.Outcome{}, a.Outcomes...), b.Outcomes...)
	seen := map[string]bool{}
	out.Published = nil
	for _, f := range append(append([]string{}, a.Published...), b.Published...) {
		if !seen[f] {
			seen[f] = true
			out.Published = append(out.Published, f)
		}
	}
	if out.Published == nil {
		out.Published = []string{}
	}
	out.Duration += a.Duration
	return &out
}

func printSummary(e *env, sum *pipeline.Summary) {
	if e.json {
		writeJSON(e.stdout, sum)
		return
	}
	for _, o := range sum.Outcomes {
		pack := strings.TrimSpace(o.Pack + " " + o.Version)
		switch o.Result {
		case pipeline.ResultRejected:
			fmt.Fprintf(e.stdout, "%s: rejected\n", o.Archive)
			for _, r := range o.Reasons {
				fmt.Fprintf(e.stdout, "  - %s\n", r)
			}
		case pipeline.ResultUpgraded, pipeline.ResultDowngraded, pipeline.ResultReinstalled:
			fmt.Fprintf(e.stdout, "%s: %s %s (was %s)\n", o.Archive, o.Result, pack, o.Previous)
		default:
			fmt.Fprintf(e.stdout, "%s: %s %s\n", o.Archive, o.Result, pack)
		}
	}
	for _, w := range sum.Warnings {
		fmt.Fprintf(e.stdout, "warning: %s\n", w)
	}
	if len(sum.Published) > 0 {
		fmt.Fprintf(e.stdout, "published %s\n", strings.Join(sum.Published, ", "))
	} else if len(sum.Outcomes) == 0 {
		fmt.Fprintf(e.stdout, "nothing to do; the inventory is up to date\n")
	}
}

func installCommand() *command {
	var force bool
	return &command{
		name: "install", args: "ARCHIVE",
		summary: "install one archive now, from anywhere (the file stays where it is)\n" +
			"--force replaces a same-version install with other bytes, or downgrades.\n" +
			"Exit status: 0 installed or already installed, 1 rejected, 2 failure.",
		flags: func(fs *flag.FlagSet) {
			fs.BoolVar(&force, "force", false, "allow a same-version reinstall or a downgrade")
		},
		run: func(ctx context.Context, e *env, args []string) int {
			if !needArgs(e, "install", args, 1, 1, "one ARCHIVE") {
				return exitFailure
			}
			if c := daemonClient(ctx, e.cfg); c != nil {
				c.Close()
				fmt.Fprintf(e.stderr, "forgesync install: a daemon is running and holds the state: copy %s into %s and it installs it,\n"+
					"or stop the daemon (forgesync service stop) to install with --force\n", args[0], e.cfg.Paths.Drop)
				return exitFailure
			}
			p, _, err := openPipeline(ctx, e)
			if err != nil {
				fmt.Fprintf(e.stderr, "forgesync install: %v\n", err)
				return exitFailure
			}
			defer p.Close()
			sum, err := p.Install(ctx, args[0], force)
			if err != nil {
				fmt.Fprintf(e.stderr, "forgesync install: %v\n", err)
				return exitFailure
			}
			printSummary(e, sum)
			if sum.Rejected() {
				return exitInvalid
			}
			return exitOK
		},
	}
}

func packsCommand() *command {
	return &command{
		name: "packs", args: "",
		summary: "list the installed packs",
		run: func(ctx context.Context, e *env, args []string) int {
			type row struct {
				ID      string `json:"id"`
				Version string `json:"version"`
				Name    string `json:"name"`
				Enabled bool   `json:"enabled"`
				Pieces  int    `json:"pieces"`
				Doors   int    `json:"doors"`
				SHA256  string `json:"archive_sha256"`
			}
			rows := []row{}
			if c := daemonClient(ctx, e.cfg); c != nil {
				// The daemon holds the state: ask it.
				defer c.Close()
				packs, err := c.Packs(ctx)
				if err != nil {
					fmt.Fprintf(e.stderr, "forgesync packs: %v\n", err)
					return exitFailure
				}
				for _, pk := range packs {
					var pieces []inventory.Piece
					json.Unmarshal(pk.Pieces, &pieces)
					doors := 0
					for _, pc := range pieces {
						if pc.Door != nil {
							doors++
						}
					}
					rows = append(rows, row{pk.ID, pk.Version, pk.Name, pk.Enabled, len(pieces), doors, pk.ArchiveSHA256})
				}
			} else {
				p, _, err := openPipeline(ctx, e)
				if err != nil {
					fmt.Fprintf(e.stderr, "forgesync packs: %v\n", err)
					return exitFailure
				}
				defer p.Close()
				packs, err := p.Packs()
				if err != nil {
					fmt.Fprintf(e.stderr, "forgesync packs: %v\n", err)
					return exitFailure
				}
				for _, pk := range packs {
					m := pk.Manifest
					rows = append(rows, row{m.ID, m.Version, m.Name, pk.Enabled, len(m.Pieces), m.Doors(), pk.ArchiveSHA256})
				}
			}
			if e.json {
				writeJSON(e.stdout, rows)
				return exitOK
			}
			if len(rows) == 0 {
				fmt.Fprintln(e.stdout, "no packs installed")
				return exitOK
			}
			tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tVERSION\tENABLED\tPIECES\tDOORS\tNAME")
			for _, r := range rows {
				fmt.Fprintf(tw, "%s\t%s\t%v\t%d\t%d\t%s\n", r.ID, r.Version, r.Enabled, r.Pieces, r.Doors, r.Name)
			}
			tw.Flush()
			return exitOK
		},
	}
}

// changeCommand builds enable, disable and remove: through the daemon when
// one is running (it is the single writer), else on the state directly,
// under its lock.
func changeCommand(name, summary string, do func(p *pipeline.Pipeline, ctx context.Context, id string) (*pipeline.Summary, error),
	remote func(c *daemon.Client, ctx context.Context, id string) (json.RawMessage, error)) *command {
	return &command{
		name: name, args: "ID", summary: summary,
		run: func(ctx context.Context, e *env, args []string) int {
			if !needArgs(e, name, args, 1, 1, "one pack ID") {
				return exitFailure
			}
			if c := daemonClient(ctx, e.cfg); c != nil {
				defer c.Close()
				res, err := remote(c, ctx, args[0])
				if err != nil {
					fmt.Fprintf(e.stderr, "forgesync %s: %v\n", name, err)
					return apiExit(err)
				}
				var sum pipeline.Summary
				json.Unmarshal(res, &sum)
				if e.json {
					writeJSON(e.stdout, sum)
				} else {
					fmt.Fprintf(e.stdout, "%s: %sd (by the running daemon)\n", args[0], name)
					printSummary(e, &sum)
				}
				return exitOK
			}
			p, _, err := openPipeline(ctx, e)
			if err != nil {
				fmt.Fprintf(e.stderr, "forgesync %s: %v\n", name, err)
				return exitFailure
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
			if e.json {
				writeJSON(e.stdout, sum)
			} else {
				fmt.Fprintf(e.stdout, "%s: %sd\n", args[0], name)
				printSummary(e, sum)
			}
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

// deployWarnings turns what a deploy could not do into warnings: a pack
// install does not fail because a script could not be refreshed, but the
// user must hear of it, once.
func deployWarnings(reports []installer.FileReport, err error) []string {
	w, _ := pipeline.DeployWarnings(reports, err)
	return w
}
