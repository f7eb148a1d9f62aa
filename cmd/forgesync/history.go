package main

import (
	"context"
	"fmt"
	"strconv"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/pipeline"
)

func historyCommand() *command {
	return &command{
		name: "history", args: "", nargs: argSpec{0, 0, "no arguments"},
		summary: "list the kept generations of the installed set, newest first, with what changed in each\n" +
			"Reads the state without its lock, so it works beside a running daemon.",
		run: func(ctx context.Context, e *env, args []string) int {
			h, err := pipeline.ReadHistory(e.cfg.Paths.State)
			if err != nil {
				return e.fail(err)
			}
			if e.json {
				writeJSON(e.stdout, h)
				return exitOK
			}
			api.WriteHistory(e.stdout, h)
			return exitOK
		},
	}
}

func rollbackCommand() *command {
	return &command{
		name: "rollback", args: "[N]", nargs: argSpec{0, 1, "at most one generation number"},
		summary: "make the installed set equal to generation N (default: the one before the current one)\n" +
			"From kept archives only, no network; recorded as a new generation. Exit status: 0 done,\n" +
			"1 refused (a generation not kept, or over the global limits), 2 failure.",
		run: func(ctx context.Context, e *env, args []string) int {
			n := 0
			if len(args) == 1 {
				v, err := strconv.Atoi(args[0])
				if err != nil || v < 1 {
					return e.fail(fmt.Errorf("%q is not a generation number (see `forgesync history`)", args[0]))
				}
				n = v
			}
			m := e.open()
			defer m.Close()
			sum, err := m.Rollback(ctx, n)
			if err != nil {
				return e.fail(err)
			}
			if !e.json {
				if sum.Generation == 0 {
					fmt.Fprintln(e.stdout, "nothing to do: the installed set is already that generation's")
				} else {
					fmt.Fprintf(e.stdout, "rolled back: now generation %d\n", sum.Generation)
				}
			}
			return printSummary(e, sum)
		},
	}
}
