// Command forgesync keeps MJOLNIR Forge mod packs installed, validated and in
// sync: a daemon that watches a drop folder, and the CLI that packs, scans
// and manages packs. This package parses flags and calls one function per
// sub-command; the work happens in the packages it wires together.
package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/mjolnir-forge/forgesync/cmd/forgesync/author"
	"github.com/mjolnir-forge/forgesync/cmd/forgesync/browser"
	"github.com/mjolnir-forge/forgesync/cmd/forgesync/cli"
	"github.com/mjolnir-forge/forgesync/cmd/forgesync/stage"
	"github.com/mjolnir-forge/forgesync/cmd/forgesync/update"
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
	update.Recover(ctx) // an update a crash cut short; Windows: the old .exe
	code := run(ctx, cli.OSArgs(), os.Stdout, os.Stderr, cli.CollectSeldom)
	stop()
	stopProfile()
	os.Exit(code)
}

// version is the program's version, set at link time by `make dist`.
var version = cli.DevVersion

// commit and buildDate are the commit the binary was built from and when,
// set at link time by `make dist` and `make release` (see cli.Build).
var commit, buildDate string

// currentBuild is this binary's build.
func currentBuild() cli.Build { return cli.CurrentBuild(version, commit, buildDate) }

// run runs the sub-command args names (shortLived: cli.Program.ShortLived)
// and returns its exit status: 1 when the machine refused (cli.Env.Fail).
func run(ctx context.Context, args []string, stdout, stderr io.Writer, shortLived func()) int {
	p := &cli.Program{Version: version, Commands: commands(), ShortLived: shortLived}
	return p.Run(ctx, args, stdout, stderr)
}

func commands() []*cli.Command {
	return []*cli.Command{
		daemonCommand(),
		demoCommand(),
		statusCommand(),
		reloadCommand(),
		browser.Open(),
		browser.OpenLink(),
		syncCommand(),
		installCommand(),
		packsCommand(),
		lockCommand(),
		exportCommand(),
		diffCommand(),
		keygenCommand(),
		enableCommand(),
		disableCommand(),
		removeCommand(),
		historyCommand(),
		rollbackCommand(),
		profileCommand(),
		stage.Command(openMachine),
		retryCommand(),
		author.Scan(version),
		author.Pack(),
		author.Init(version),
		author.Schema(),
		openapiCommand(),
		author.LiftPreview(),
		author.Utoc(),
		author.PackageID(),
		serviceCommand(),
		setupCommand(),
		uninstallCommand(),
		update.Command(version),
		cli.VersionCommand(currentBuild),
	}
}
