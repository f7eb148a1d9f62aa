// Package browser owns the commands that open the daemon's status page
// in the player's browser (SPEC §14): open, and open-link, which a
// forgesync:// link runs; and how a browser is started on each system.
package browser

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/mjolnir-forge/forgesync/cmd/forgesync/cli"
	"github.com/mjolnir-forge/forgesync/daemon"
	"github.com/mjolnir-forge/forgesync/internal/errkind"
)

// Open is `forgesync open [--print]`.
func Open() *cli.Command {
	var printURL bool
	return &cli.Command{
		Name: "open", Args: "", Nargs: cli.NoArgs,
		Summary: "open the status page in the default browser\n" +
			"The daemon makes a one-time link on its loopback TCP API ([api] listen, which setup turns on);\n" +
			"--print prints the link instead (it works once, within two minutes). Exit status: 0 opened,\n" +
			"1 no daemon, 2 the daemon serves no page or the browser could not be started.",
		Flags: func(fs *flag.FlagSet) {
			fs.BoolVar(&printURL, "print", false, "print the page's one-time URL instead of opening a browser")
		},
		Run: func(ctx context.Context, e *cli.Env, args []string) int {
			return openPage(ctx, e, "", printURL)
		},
	}
}

// OpenLink is `forgesync open-link LINK`, what the system runs for a
// forgesync:// link once setup registered the scheme.
func OpenLink() *cli.Command {
	var printURL bool
	return &cli.Command{
		Name: "open-link", Args: "LINK", Nargs: cli.One("one forgesync:// link"),
		Summary: "open the status page on a host's link to a pack set, to confirm it (what the browser runs for a forgesync:// link)\n" +
			"The link is checked strictly: forgesync://set, the parameters url (https://, http:// or oci://) and key only.\n" +
			"Nothing is fetched but the set's lock, and nothing changes until you confirm on the page.",
		Flags: func(fs *flag.FlagSet) {
			fs.BoolVar(&printURL, "print", false, "print the page's one-time URL instead of opening a browser")
		},
		Run: func(ctx context.Context, e *cli.Env, args []string) int {
			if _, err := daemon.ParseLink(args[0]); err != nil {
				return e.Fail(errkind.Wrap(errkind.Invalid, err))
			}
			return openPage(ctx, e, args[0], printURL)
		},
	}
}

// openPage asks the running daemon for a one-time URL of its page, on link
// when set, and opens it in the browser, or prints it.
func openPage(ctx context.Context, e *cli.Env, link string, printURL bool) int {
	c := daemon.Dial(ctx, e.Config)
	if c == nil {
		fmt.Fprintf(e.Stderr, "forgesync %s: no daemon answers on %s or the TCP API: the page is the daemon's; start it (forgesync service start)\n", e.Name, e.Config.Paths.Socket)
		return cli.ExitInvalid
	}
	defer c.Close()
	tok, err := c.PageToken(ctx, link)
	if err != nil {
		return e.Fail(err)
	}
	if printURL {
		fmt.Fprintln(e.Stdout, tok.URL)
		return cli.ExitOK
	}
	if err := openBrowser(ctx, tok.URL); err != nil {
		return e.Fail(err)
	}
	fmt.Fprintln(e.Stdout, "Opened the status page in your browser (forgesync open --print prints its link instead).")
	return cli.ExitOK
}

// openBrowser opens url in the user's default browser: rundll32's URL
// handler on Windows, open on macOS, elsewhere the program $BROWSER names
// (the first of its list, as xdg-open reads it) or else xdg-open. The
// launchers return once the browser has the URL, and are waited for; a
// $BROWSER program may be the browser itself, and is only started. Their
// output goes to this process's stderr, never into a pipe a browser
// would hold open.
func openBrowser(ctx context.Context, url string) error {
	var cmd *exec.Cmd
	wait := true
	switch runtime.GOOS {
	case "windows":
		rundll := "rundll32.exe"
		if root := os.Getenv("SystemRoot"); filepath.IsAbs(root) {
			rundll = filepath.Join(root, "System32", rundll) // not one a folder earlier in PATH holds
		}
		cmd = exec.CommandContext(ctx, rundll, "url.dll,FileProtocolHandler", url)
	case "darwin":
		cmd = exec.CommandContext(ctx, "open", url)
	default:
		browser, _, _ := strings.Cut(os.Getenv("BROWSER"), ":")
		if wait = browser == ""; wait {
			browser = "xdg-open"
		}
		cmd = exec.Command(browser, url)
	}
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	err := cmd.Start()
	if err == nil && wait {
		err = cmd.Wait()
	} else if err == nil {
		err = cmd.Process.Release()
	}
	if err != nil {
		return errkind.Wrap(errkind.Unavailable, fmt.Errorf("open the page with %s: %w; run forgesync open --print and open the link yourself", cmd.Path, err))
	}
	return nil
}
