package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/mjolnir-forge/forgesync/cmd/forgesync/cli"
	"github.com/mjolnir-forge/forgesync/cmd/forgesync/view"
	"github.com/mjolnir-forge/forgesync/daemon"
	"github.com/mjolnir-forge/forgesync/pipeline"
)

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
				fmt.Fprintln(e.Stderr, "forgesync retry: name the archives in drop/rejected/ (`forgesync status` lists them), or say --all")
				return cli.ExitFailure
			}
			m := openMachine(e)
			defer m.Close()
			sum, err := m.Retry(ctx, pipeline.RetryOptions{Archives: args, All: all})
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
