package main

import (
	"context"
	"fmt"
	"strconv"

	"github.com/mjolnir-forge/forgesync/cmd/forgesync/cli"
	"github.com/mjolnir-forge/forgesync/cmd/forgesync/view"
	"github.com/mjolnir-forge/forgesync/daemon"
)

func historyCommand() *cli.Command {
	return &cli.Command{
		Name: "history", Args: "", Nargs: cli.Args{Min: 0, Max: 0, Want: "no arguments"},
		Summary: "list the kept generations of the installed set, newest first, with what changed in each\n" +
			"Reads the state without its lock, so it works beside a running daemon.",
		Run: func(ctx context.Context, e *cli.Env, args []string) int {
			h, err := daemon.ReadHistory(e.Config.Paths.State)
			if err != nil {
				return e.Fail(err)
			}
			return cli.Show(e, h, view.WriteHistory)
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
			m := openMachine(e)
			defer m.Close()
			sum, err := m.Rollback(ctx, n)
			if err != nil {
				return e.Fail(err)
			}
			return printSummary(e, sum, view.WriteRollback)
		},
	}
}
