package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/cmd/forgesync/cli"
	"github.com/mjolnir-forge/forgesync/cmd/forgesync/view"
	"github.com/mjolnir-forge/forgesync/daemon"
)

func statusCommand() *cli.Command {
	var watch bool
	return &cli.Command{
		Name: "status", Args: "", Nargs: cli.NoArgs,
		Summary: "ask the running daemon what is installed, what was rejected and why\n" +
			"--watch follows the event stream, with a progress bar for a running install.\n" +
			"Exit status: 0 daemon running, 1 no daemon, 2 failure.",
		Flags: func(fs *flag.FlagSet) { fs.BoolVar(&watch, "watch", false, "follow the daemon's events") },
		Run: func(ctx context.Context, e *cli.Env, args []string) int {
			c := daemon.Dial(ctx, e.Config)
			if c == nil {
				n := view.NotRunning{Socket: e.Config.Paths.Socket}
				if e.JSON {
					gates := daemon.Gates(e.Config.Paths.Mods)
					n.Gates = &gates
				}
				cli.Show(e, n, view.WriteNotRunning)
				return cli.ExitInvalid
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

// watchEvents prints the daemon's events as they come, drawing a progress
// bar for a running extraction, until interrupted.
func watchEvents(ctx context.Context, e *cli.Env, c *daemon.Client) int {
	ew := &view.EventWriter{W: e.Stdout}
	err := c.Events(ctx, daemon.Live, func(ev api.Event) error {
		if e.JSON {
			return json.NewEncoder(e.Stdout).Encode(ev)
		}
		return ew.Write(ev)
	})
	ew.Close()
	if err != nil && !errors.Is(err, context.Canceled) && ctx.Err() == nil {
		fmt.Fprintf(e.Stderr, "forgesync status --watch: %v\n", err)
		return cli.ExitFailure
	}
	return cli.ExitOK
}
