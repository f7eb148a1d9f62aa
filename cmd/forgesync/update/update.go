// Package update owns the `forgesync update` command: checking for,
// installing and rolling back a newer forgesync (package selfupdate does
// the work), asking first on a terminal, and restarting the service so
// that it runs the new binary.
package update

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"

	"github.com/mjolnir-forge/forgesync/cmd/forgesync/cli"
	"github.com/mjolnir-forge/forgesync/daemon"
	"github.com/mjolnir-forge/forgesync/selfupdate"
)

// Command is `forgesync update` for a binary of version.
func Command(version string) *cli.Command {
	var check, rollback, yes bool
	return &cli.Command{
		Name: "update", Args: "", Nargs: cli.NoArgs,
		Summary: "update forgesync itself from the release feed ([update] feed): the signature and the archive's\n" +
			"SHA-256 checked, the binary and modules/ replaced, the previous version kept, the service restarted.\n" +
			"--check only says whether a newer version exists; --rollback goes back to the previous version.\n" +
			"It asks first on a terminal (without one: --yes). Refused where apt installed forgesync.\n" +
			"Exit status: 0 updated or already the newest (--check: the newest), 1 --check: a newer version\n" +
			"exists, or refused, 2 could not tell or could not update (the feed, the signature or the download\n" +
			"failed: nothing changed; a binary built without the release key).",
		Flags: func(fs *flag.FlagSet) {
			fs.BoolVar(&check, "check", false, "only say whether a newer version exists")
			fs.BoolVar(&rollback, "rollback", false, "go back to the version the last update replaced")
			fs.BoolVar(&yes, "yes", false, "do not ask (needed without a terminal)")
		},
		Run: func(ctx context.Context, e *cli.Env, args []string) int {
			if check && rollback {
				return e.Failf("--check and --rollback: give one")
			}
			o := selfupdate.Options{Feed: e.Config.Update.Feed, Current: version}
			switch {
			case check:
				return updateCheck(ctx, e, o)
			case rollback:
				return updateRun(ctx, e, o, yes, true)
			}
			return updateRun(ctx, e, o, yes, false)
		},
	}
}

// updateCheck prints whether the feed has a newer version: exit 1 when it
// has.
func updateCheck(ctx context.Context, e *cli.Env, o selfupdate.Options) int {
	r, err := selfupdate.Check(ctx, o)
	if err != nil {
		return e.Fail(err)
	}
	cli.Show(e, r, func(w io.Writer, r selfupdate.Release) error {
		if r.Available {
			_, err := fmt.Fprintf(w, "forgesync %s is available (this is %s): run `forgesync update`\n", r.Latest, r.Current)
			return err
		}
		_, err := fmt.Fprintf(w, "forgesync %s is the newest (the feed's is %s)\n", r.Current, r.Latest)
		return err
	})
	if r.Available {
		return cli.ExitInvalid
	}
	return cli.ExitOK
}

// updateRun updates (or rolls back) the running executable, asking first
// on a terminal, then restarts the service when one runs.
func updateRun(ctx context.Context, e *cli.Env, o selfupdate.Options, yes, rollback bool) int {
	exe, err := os.Executable()
	if err != nil {
		return e.Fail(fmt.Errorf("update: find the running executable: %w", err))
	}
	if !yes {
		if !cli.StdinTerminal() {
			return e.Failf("without a terminal, pass --yes to replace %s", exe)
		}
		if !askYes(e.Stdout, os.Stdin, updateQuestion(ctx, o, rollback)) {
			fmt.Fprintln(e.Stdout, "nothing changed")
			return cli.ExitOK
		}
	}
	var res selfupdate.Result
	if rollback {
		res, err = selfupdate.Rollback(ctx, exe, o.Current)
	} else {
		res, err = selfupdate.Update(ctx, o, exe)
	}
	if err != nil {
		return e.Fail(err)
	}
	var note string
	if res.Changed {
		note = restartService(ctx, e)
	}
	return cli.Show(e, res, func(w io.Writer, r selfupdate.Result) error {
		if !r.Changed {
			_, err := fmt.Fprintf(w, "forgesync %s is the newest: nothing changed\n", r.From)
			return err
		}
		verb := "updated"
		if rollback {
			verb = "rolled back"
		}
		_, err := fmt.Fprintf(w, "%s forgesync %s → %s (`forgesync update --rollback` goes back)\n%s", verb, r.From, r.To, note)
		return err
	})
}

// updateQuestion is what update asks on a terminal.
func updateQuestion(ctx context.Context, o selfupdate.Options, rollback bool) string {
	if rollback {
		return fmt.Sprintf("go back from forgesync %s to the previous version?", o.Current)
	}
	if r, err := selfupdate.Check(ctx, o); err == nil && r.Available {
		return fmt.Sprintf("update forgesync %s → %s?", r.Current, r.Latest)
	}
	return fmt.Sprintf("update forgesync %s if a newer version exists?", o.Current)
}

// askYes asks question and reports whether the answer was yes.
func askYes(w io.Writer, in io.Reader, question string) bool {
	fmt.Fprintf(w, "%s [y/N]: ", question)
	line, _ := bufio.NewReader(in).ReadString('\n')
	a := strings.ToLower(strings.TrimSpace(line))
	return a == "y" || a == "yes"
}

// restartService restarts the forgesync service when one runs, so that it
// runs the new binary, and returns a line saying what it did.
func restartService(ctx context.Context, e *cli.Env) string {
	opts := daemon.ServiceOptions{GOOS: runtime.GOOS, User: !e.Machine && runtime.GOOS != "windows"}
	var state strings.Builder
	if err := daemon.ControlService(e.Config, "status", opts, e.Log, &state); err != nil || strings.TrimSpace(state.String()) != daemon.StateRunning {
		if c := daemon.Dial(ctx, e.Config); c != nil { // a daemon started by hand
			c.Close()
			return "a daemon runs the previous version: stop it and start it again to run this one\n"
		}
		return "" // nothing runs: the next start runs this version
	}
	err := errors.Join(daemon.ControlService(e.Config, daemon.ActionStop, opts, e.Log, io.Discard),
		daemon.ControlService(e.Config, daemon.ActionStart, opts, e.Log, io.Discard))
	if err != nil {
		return fmt.Sprintf("the service could not be restarted (%v): restart it with `forgesync service stop` and `forgesync service start`\n", err)
	}
	return "the service was restarted and runs the new version\n"
}

// Recover finishes or undoes an update of this executable a crash
// cut short, and on Windows removes the executable the last update set
// aside. A failure is said on stderr; the next update tries again.
func Recover(ctx context.Context) {
	exe, err := os.Executable()
	if err == nil {
		err = selfupdate.Recover(ctx, exe)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "forgesync: %v\n", err)
	}
}
