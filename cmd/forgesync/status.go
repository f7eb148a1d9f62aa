package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/daemon"
	"github.com/mjolnir-forge/forgesync/native"
)

func statusCommand() *command {
	var watch bool
	return &command{
		name: "status", args: "",
		summary: "ask the running daemon what is installed, what was rejected and why\n" +
			"--watch follows the event stream, with a progress bar for a running install.\n" +
			"Exit status: 0 daemon running, 1 no daemon, 2 failure.",
		flags: func(fs *flag.FlagSet) { fs.BoolVar(&watch, "watch", false, "follow the daemon's events") },
		run: func(ctx context.Context, e *env, args []string) int {
			if !needArgs(e, "status", args, 0, 0, "no arguments") {
				return exitFailure
			}
			c := daemonClient(ctx, e.cfg)
			if c == nil {
				gates := native.CheckGatesDir(e.cfg.Paths.Mods)
				if e.json {
					writeJSON(e.stdout, map[string]any{"running": false, "socket": e.cfg.Paths.Socket, "gates": gates})
				} else {
					fmt.Fprintf(e.stdout, "no forgesync daemon is answering on %s\n", e.cfg.Paths.Socket)
					fmt.Fprintln(e.stdout, "start one with `forgesync daemon`, or use `forgesync sync` and `forgesync packs` directly")
				}
				return exitInvalid
			}
			defer c.Close()
			if watch {
				return watchEvents(ctx, e, c)
			}
			st, err := c.Status(ctx)
			if err != nil {
				fmt.Fprintf(e.stderr, "forgesync status: %v\n", err)
				return exitFailure
			}
			if e.json {
				writeJSON(e.stdout, st)
				return exitOK
			}
			printStatus(e, st)
			rej, err := c.Rejections(ctx)
			if err == nil && len(rej) > 0 {
				fmt.Fprintf(e.stdout, "\nrejected archives (in drop/rejected/):\n")
				for _, r := range rej {
					fmt.Fprintf(e.stdout, "  %s  (%s)\n", r.Archive, r.Time.Local().Format("2006-01-02 15:04"))
					for _, reason := range r.Reasons {
						fmt.Fprintf(e.stdout, "    - %s\n", reason)
					}
				}
			}
			return exitOK
		},
	}
}

func printStatus(e *env, st api.Status) {
	fmt.Fprintf(e.stdout, "forgesync %s (pid %d): %s, up %s\n", st.Version, st.PID, st.State, fmtSeconds(st.UptimeSeconds))
	if ls := st.LastSync; ls != nil {
		fmt.Fprintf(e.stdout, "last sync: %s, %s in %s\n", ls.Time.Local().Format("2006-01-02 15:04:05"), ls.Result, fmtSeconds(ls.DurationSeconds))
		if ls.Error != "" {
			fmt.Fprintf(e.stdout, "  error: %s\n", ls.Error)
		}
	}
	c := st.Counts
	fmt.Fprintf(e.stdout, "packs: %d installed, %d enabled; %d pieces, %d lifts, %d doors; %d rejected archives\n",
		c.Packs, c.Enabled, c.Pieces, c.Lifts, c.Doors, c.Rejected)
	if len(st.Queue) > 0 {
		fmt.Fprintf(e.stdout, "queue: %s\n", strings.Join(st.Queue, ", "))
	}
	if m := st.Modules; m != nil {
		for _, mv := range m.Gates.Mods {
			fmt.Fprintf(e.stdout, "%-20s %-10s %s (needs %s)\n", mv.Mod, cmp.Or(mv.Version, "-"), mv.State, mv.Minimum)
		}
		// Door automation needs the gates and the module in place: the
		// deploy's result, not the gates alone.
		fmt.Fprintf(e.stdout, "door automation: %s; pack lifts: %s; native module builds: %s\n",
			yesNo(m.DoorAutomation), yesNo(m.Gates.PackLifts), strings.Join(m.SupportedBuilds, ", "))
	}
	for _, w := range st.Warnings {
		fmt.Fprintf(e.stdout, "warning: %s\n", w)
	}
	if st.LogFile != "" {
		fmt.Fprintf(e.stdout, "log: %s\n", st.LogFile)
	}
}

func yesNo(b bool) string {
	if b {
		return "can work"
	}
	return "off"
}

func fmtSeconds(s float64) string {
	switch {
	case s < 1:
		return fmt.Sprintf("%.0f ms", s*1000)
	case s < 120:
		return fmt.Sprintf("%.1f s", s)
	case s < 7200:
		return fmt.Sprintf("%.0f min", s/60)
	}
	return fmt.Sprintf("%.1f h", s/3600)
}

// watchEvents prints the daemon's events as they come, drawing a progress
// bar for a running extraction, until interrupted.
func watchEvents(ctx context.Context, e *env, c *daemon.Client) int {
	barOpen := false
	endBar := func() {
		if barOpen {
			fmt.Fprintln(e.stdout)
			barOpen = false
		}
	}
	err := c.Events(ctx, daemon.Live, func(ev api.Event) error {
		if e.json {
			return json.NewEncoder(e.stdout).Encode(ev)
		}
		ts := ev.Time.Local().Format("15:04:05")
		d, err := ev.Decode()
		if err != nil {
			endBar()
			fmt.Fprintf(e.stdout, "%s %s %s\n", ts, ev.Type, ev.Data) // a newer daemon's event
			return nil
		}
		if p, ok := d.(api.Progress); ok {
			fmt.Fprintf(e.stdout, "\r%s %s %s", ts, progressBar(p.Done, p.Total, 30), p.Archive)
			barOpen = true
			return nil
		}
		endBar()
		fmt.Fprintf(e.stdout, "%s %s\n", ts, describeEvent(d))
		return nil
	})
	endBar()
	if err != nil && !errors.Is(err, context.Canceled) && ctx.Err() == nil {
		fmt.Fprintf(e.stderr, "forgesync status --watch: %v\n", err)
		return exitFailure
	}
	return exitOK
}

// describeEvent says in a line what an event reports.
func describeEvent(d api.EventData) string {
	switch d := d.(type) {
	case api.ArchiveSeen:
		return fmt.Sprintf("claimed %s (%d bytes)", d.Archive, d.Size)
	case api.PackInstalled:
		s := fmt.Sprintf("%s %s %s from %s", d.Result, d.Pack, d.Version, d.Archive)
		if d.Previous != "" {
			s += " (was " + d.Previous + ")"
		}
		return s
	case api.PackRejected:
		s := "rejected " + d.Archive
		for _, r := range d.Reasons {
			s += "\n    - " + r.String()
		}
		return s
	case api.InventoryPublished:
		return fmt.Sprintf("published %s (%d enabled packs)", strings.Join(d.Files, ", "), d.Packs)
	case api.ModuleDeployed:
		if d.Pending {
			return fmt.Sprintf("staged %s %s until the game lets go of it", d.Component, d.Path)
		}
		return fmt.Sprintf("deployed %s %s", d.Component, d.Path)
	case api.Warning:
		return "warning: " + d.Message
	}
	return fmt.Sprintf("%s %+v", d.EventType(), d)
}

// progressBar draws [#####.....] 50% (or a byte count when the total is
// unknown).
func progressBar(done, total int64, width int) string {
	if total <= 0 {
		return fmt.Sprintf("[%s] %d MiB", strings.Repeat("?", width), done>>20)
	}
	n := int(float64(width) * float64(min(done, total)) / float64(total))
	return fmt.Sprintf("[%s%s] %3d%%", strings.Repeat("#", n), strings.Repeat(".", width-n), done*100/total)
}
