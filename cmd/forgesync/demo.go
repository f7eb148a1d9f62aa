package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/mjolnir-forge/forgesync/config"
	"github.com/mjolnir-forge/forgesync/examples"
	"github.com/mjolnir-forge/forgesync/installer"
)

func demoCommand() *command {
	var root string
	var runFor time.Duration
	return &command{
		name: "demo", args: "", noConfig: true, serves: true, nargs: argSpec{0, 0, "no arguments"},
		summary: "see the whole flow without the game: example packs installed by a daemon in a temp folder\n" +
			"Lays out drop/mods/paks/state under one folder, drops the example packs (and one bad\n" +
			"archive) in as archives, and runs the daemon in the foreground.\n" +
			"Ctrl-C stops it; --for stops it after a while.",
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&root, "root", filepath.Join(os.TempDir(), "forgesync-demo"), "the `DIR` to lay everything out in")
			fs.DurationVar(&runFor, "for", 0, "stop after this long (0: until interrupted)")
		},
		run: func(ctx context.Context, e *env, args []string) int {
			cfgPath, err := examples.LayOutDemo(root)
			if err != nil {
				return e.fail(err)
			}
			cfg, err := config.Load(cfgPath)
			if err != nil {
				return e.fail(err)
			}
			e.cfg = cfg
			if e.log, err = newLogger(e.stderr, e); err != nil {
				return e.fail(err)
			}
			if runFor > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, runFor)
				defer cancel()
			}
			err = serveDaemon(ctx, e, func() { printDemoGuide(e, cfg) })
			if err != nil && !errors.Is(err, context.DeadlineExceeded) {
				return e.fail(err)
			}
			return exitOK
		},
	}
}

func printDemoGuide(e *env, cfg *config.Config) {
	root := filepath.Dir(cfg.File)
	fmt.Fprintf(e.stdout, `forgesync demo is running in %s
  drop folder:   %s   (drop more pack archives here)
  inventory:     %s
  pack content:  %s
  state:         %s
Ask it, from another terminal:
  forgesync status --config %s
  forgesync status --watch --config %s
  forgesync packs --config %s
  curl --unix-socket %s http://forgesync/v1/status
Ctrl-C stops the daemon.
`, root, cfg.Paths.Drop, filepath.Join(cfg.Paths.Mods, "MJOLNIRForgePacks"), filepath.Join(cfg.Paths.Paks, installer.ContentRoot),
		cfg.Paths.State, cfg.File, cfg.File, cfg.File, cfg.Paths.Socket)
}
