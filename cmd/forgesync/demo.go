package main

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"time"

	"github.com/mjolnir-forge/forgesync/cmd/forgesync/cli"
	"github.com/mjolnir-forge/forgesync/cmd/forgesync/examples"
)

func demoCommand() *cli.Command {
	var root string
	var runFor time.Duration
	return &cli.Command{
		Name: "demo", Args: "", NoConfig: true, Serves: true, Nargs: cli.NoArgs,
		Summary: "see the whole flow without the game: example packs installed by a daemon in a temp folder\n" +
			"Lays out drop/mods/paks/state under one folder, drops the example packs (and one bad\n" +
			"archive) in as archives, and runs the daemon in the foreground.\n" +
			"Ctrl-C stops it; --for stops it after a while.",
		Flags: func(fs *flag.FlagSet) {
			fs.StringVar(&root, "root", filepath.Join(os.TempDir(), "forgesync-demo"), "the `DIR` to lay everything out in")
			fs.DurationVar(&runFor, "for", 0, "stop after this long (0: until interrupted)")
		},
		Run: func(ctx context.Context, e *cli.Env, args []string) int {
			cfg, err := examples.Demo(root, e.Stdout)
			if err != nil {
				return e.Fail(err)
			}
			e.Config = cfg
			if e.Log, err = e.NewLogger(); err != nil {
				return e.Fail(err)
			}
			if runFor > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, runFor)
				defer cancel()
			}
			err = serveDaemon(ctx, e, "", func() { examples.WriteDemoGuide(e.Stdout, cfg) })
			if err != nil && !errors.Is(err, context.DeadlineExceeded) {
				return e.Fail(err)
			}
			return cli.ExitOK
		},
	}
}
