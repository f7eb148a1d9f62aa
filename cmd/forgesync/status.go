package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/daemon"
	"github.com/mjolnir-forge/forgesync/machine"
	"github.com/mjolnir-forge/forgesync/native"
)

func statusCommand() *command {
	var watch bool
	return &command{
		name: "status", args: "", nargs: argSpec{0, 0, "no arguments"},
		summary: "ask the running daemon what is installed, what was rejected and why\n" +
			"--watch follows the event stream, with a progress bar for a running install.\n" +
			"Exit status: 0 daemon running, 1 no daemon, 2 failure.",
		flags: func(fs *flag.FlagSet) { fs.BoolVar(&watch, "watch", false, "follow the daemon's events") },
		run: func(ctx context.Context, e *env, args []string) int {
			c := machine.Dial(ctx, e.cfg)
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
				return e.fail(err)
			}
			if e.json {
				writeJSON(e.stdout, st)
				return exitOK
			}
			rej, err := c.Rejections(ctx)
			if err != nil {
				return e.fail(err)
			}
			api.WriteStatus(e.stdout, st, rej)
			return exitOK
		},
	}
}

// watchEvents prints the daemon's events as they come, drawing a progress
// bar for a running extraction, until interrupted.
func watchEvents(ctx context.Context, e *env, c *daemon.Client) int {
	ew := &api.EventWriter{W: e.stdout}
	err := c.Events(ctx, daemon.Live, func(ev api.Event) error {
		if e.json {
			return json.NewEncoder(e.stdout).Encode(ev)
		}
		return ew.Write(ev)
	})
	ew.Close()
	if err != nil && !errors.Is(err, context.Canceled) && ctx.Err() == nil {
		fmt.Fprintf(e.stderr, "forgesync status --watch: %v\n", err)
		return exitFailure
	}
	return exitOK
}
