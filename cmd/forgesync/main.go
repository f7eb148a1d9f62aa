// Command forgesync keeps MJOLNIR Forge mod packs installed, validated and in
// sync: a daemon that watches a drop folder, and the CLI that packs, scans
// and manages packs. This package parses flags and calls one function per
// sub-command; the work happens in the packages it wires together.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/mjolnir-forge/forgesync/cmd/forgesync/cli"
	"github.com/mjolnir-forge/forgesync/installer/intake"
)

func main() {
	if len(os.Args) == 2 && os.Args[1] == intake.ChildCommand {
		stopProfile := cli.StartProfile(cli.ChildProfileEnv)
		code := intake.RunChild(os.Stdin, os.Stdout) // unpacks one archive for its parent
		stopProfile()
		os.Exit(code)
	}
	stopProfile := cli.StartProfile(cli.ProfileEnv)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, cli.OSArgs(), os.Stdout, os.Stderr)
	stop()
	stopProfile()
	os.Exit(code)
}
