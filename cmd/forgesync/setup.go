package main

import (
	"context"
	"flag"
	"os"
	"runtime"

	"github.com/mjolnir-forge/forgesync/cmd/forgesync/cli"
	"github.com/mjolnir-forge/forgesync/config"
	"github.com/mjolnir-forge/forgesync/daemon"
	"github.com/mjolnir-forge/forgesync/daemon/setup"
)

// setupFlags are `forgesync setup`'s flags.
var setupFlags struct {
	mods, paks, state string
	undo, service     bool
}

func setupCommand() *cli.Command {
	return &cli.Command{
		Name: "setup", Args: "", NoConfig: true, Nargs: cli.NoArgs,
		Summary: "the one command after unzipping: check the game's folders, write the config where forgesync finds it\n" +
			"(the user's, or the machine's with --machine) and make the drop folder; it asks on a terminal,\n" +
			"and without one every folder must be a flag. --service also installs and starts the service;\n" +
			"--undo removes what setup made (never a pack, never a file it did not write).",
		Flags: func(fs *flag.FlagSet) {
			fs.StringVar(&setupFlags.mods, "mods", "", "the game's UE4SS Mods `DIR`")
			fs.StringVar(&setupFlags.paks, "paks", "", "the game's Paks `DIR`")
			fs.StringVar(&setupFlags.state, "state", "", "forgesync's state `DIR` (made when missing)")
			fs.BoolVar(&setupFlags.undo, "undo", false, "remove what setup made")
			fs.BoolVar(&setupFlags.service, "service", false, "also install and start the service")
		},
		Run: func(ctx context.Context, e *cli.Env, args []string) int {
			o := setup.SetupOptions{Mods: setupFlags.mods, Paks: setupFlags.paks, State: setupFlags.state, Env: config.Process(e.Machine), Log: e.Log}
			if setupFlags.undo {
				e.Name = "setup --undo"
				if err := setup.SetupUndo(ctx, o, e.Stdout); err != nil {
					return e.Fail(err)
				}
				return cli.ExitOK
			}
			if setupFlags.service {
				// Refused before it asks or writes anything.
				opts, err := daemon.SetupService(runtime.GOOS, e.Machine)
				if err != nil {
					return e.Fail(err)
				}
				o.Service = &opts
			}
			if err := setup.SetupAsk(&o, os.Stdin, e.Stdout, cli.StdinTerminal()); err != nil {
				return e.Fail(err)
			}
			if err := setup.Setup(ctx, o, e.Stdout); err != nil {
				return e.Fail(err)
			}
			return cli.ExitOK
		},
	}
}
