package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/cmd/forgesync/cli"
)

// The messages a player reads, tested by their exact text: through a
// running daemon and without one, they say the same.

// exe runs the built binary with the game's config and returns its exit
// status, stdout and stderr.
func (g *game) exe(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(binary, append(args, "--config", g.config)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return ee.ExitCode(), out.String(), errb.String()
	case err != nil:
		t.Fatalf("run %v: %v", args, err)
	}
	return 0, out.String(), errb.String()
}

// dropPacks writes the two small packs into drop and syncs them.
func (g *game) dropPacks(t *testing.T) {
	t.Helper()
	os.WriteFile(filepath.Join(g.drop, "a.zip"), packZip(t, "glass-works", "1.0.0", 0), 0o644)
	os.WriteFile(filepath.Join(g.drop, "b.zip"), packZip(t, "foundry-wide", "1.4.0", 0), 0o644)
	if code, out, errs := g.exe(t, "sync"); code != cli.ExitOK {
		t.Fatalf("sync = %d\n%s%s", code, out, errs)
	}
}

// TestErrorsWithoutPlumbing: a refusal reads the same with and without a
// daemon, with no HTTP method, path, code or status in it.
func TestErrorsWithoutPlumbing(t *testing.T) {
	g := newGame(t)
	g.dropPacks(t)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"disable", "nope"}, "forgesync disable: nope: pack is not installed (see `forgesync packs`)\n"},
		{[]string{"enable", "nope"}, "forgesync enable: nope: pack is not installed (see `forgesync packs`)\n"},
		{[]string{"remove", "nope"}, "forgesync remove: nope: pack is not installed (see `forgesync packs`)\n"},
		{[]string{"rollback", "9"}, "forgesync rollback: generation 9 is not kept (kept: 1; see `forgesync history`)\n"},
	}
	check := func(how string) {
		t.Helper()
		for _, tc := range cases {
			code, out, errs := g.exe(t, tc.args...)
			if code != cli.ExitInvalid || out != "" || errs != tc.want {
				t.Errorf("%s: %v = %d\n%s%s\nwant 1 and\n%s", how, tc.args, code, out, errs, tc.want)
			}
		}
	}
	check("without a daemon")
	g.start(t)
	check("through the daemon")
}

// TestAlreadyAndRollbackSayWhat: enabling an enabled pack and disabling a
// disabled one say so and succeed; a rollback names the generation it went
// back to and what it changed. With and without a daemon.
func TestAlreadyAndRollbackSayWhat(t *testing.T) {
	for _, viaDaemon := range []bool{false, true} {
		g := newGame(t)
		g.dropPacks(t) // generation 1: both enabled
		by := ""
		if viaDaemon {
			g.start(t)
			by = " (by the running daemon)"
		}
		steps := []struct {
			args []string
			want string
		}{
			{[]string{"enable", "glass-works"}, "glass-works is already enabled\n"},
			{[]string{"disable", "glass-works"}, "glass-works: disabled" + by + "\npublished installed.json, installed.txt\n"},
			{[]string{"disable", "glass-works"}, "glass-works is already disabled\n"},
			{[]string{"rollback"}, "rolled back to generation 1: now generation 3\n  enabled glass-works\npublished installed.json, installed.txt\n"},
			{[]string{"rollback", "3"}, "nothing to do: the installed packs are already those of generation 3\n"},
		}
		for _, s := range steps {
			code, out, errs := g.exe(t, s.args...)
			if code != cli.ExitOK || out != s.want || errs != "" {
				t.Errorf("daemon %v: %v = %d\n%s%s\nwant 0 and\n%s", viaDaemon, s.args, code, out, errs, s.want)
			}
		}
	}
}

// TestOneInTheSingular: a pack of one file, with one lift and one door,
// and a usage error with one argument too many say one thing as one.
func TestOneInTheSingular(t *testing.T) {
	dir := t.TempDir()
	zip := filepath.Join(dir, "one.zip")
	os.WriteFile(zip, packZip(t, "one-piece", "1.0.0", 0), 0o644)
	code, out, errs := runCLI(t, "scan", zip)
	if want := "one-piece 1.0.0: valid (1 piece, 0 lifts, 0 doors, 0 surface packages)\n"; code != cli.ExitOK || out != want {
		t.Errorf("scan = %d\n%s%s\nwant\n%s", code, out, errs, want)
	}
	src := filepath.Join(dir, "src")
	os.MkdirAll(src, 0o755)
	os.WriteFile(filepath.Join(src, "forgepack.json"), []byte(`{"schema":1,"id":"one-piece","version":"1.0.0","name":"One","authors":["T"],"pieces":[{"id":"deck","kind":"block","tag":"mjolnir\\forge\\one-piece\\deck","class":"/Game/MJOLNIR/Forge/one-piece/Blocks/BP_Deck.BP_Deck_C","dimensions_m":[2,2,0.5]}]}`), 0o644)
	code, out, errs = runCLI(t, "pack", src, "-o", filepath.Join(dir, "p.zip"))
	if want := "one-piece 1.0.0: wrote " + filepath.Join(dir, "p.zip") + " (1 file)\n"; code != cli.ExitOK || out != want {
		t.Errorf("pack = %d\n%s%s\nwant\n%s", code, out, errs, want)
	}
	code, _, errs = runCLI(t, "rollback", "1", "2")
	if want := "forgesync rollback: want at most one generation number, got 2 arguments\n"; code != cli.ExitFailure || errs != want {
		t.Errorf("rollback 1 2 = %d\n%s\nwant\n%s", code, errs, want)
	}
	code, _, errs = runCLI(t, "enable")
	if want := "forgesync enable: want one pack ID, got 0 arguments\n"; code != cli.ExitFailure || errs != want {
		t.Errorf("enable = %d\n%s\nwant\n%s", code, errs, want)
	}
	code, _, errs = runCLI(t, "status", "x")
	if want := "forgesync status: want no arguments, got 1 argument\n"; code != cli.ExitFailure || errs != want {
		t.Errorf("status x = %d\n%s\nwant\n%s", code, errs, want)
	}
}

// TestRetry: `forgesync retry` moves a rejected archive back into drop and
// processes it, with and without a daemon; an unknown name is refused.
func TestRetry(t *testing.T) {
	for _, viaDaemon := range []bool{false, true} {
		g := newGame(t)
		os.WriteFile(filepath.Join(g.drop, "a.zip"), packZip(t, "glass-works", "1.1.0", 0), 0o644)
		g.exe(t, "sync")
		os.WriteFile(filepath.Join(g.drop, "old.zip"), packZip(t, "glass-works", "1.0.0", 0), 0o644)
		if code, out, errs := g.exe(t, "sync"); code != cli.ExitInvalid {
			t.Fatalf("sync of a downgrade = %d\n%s%s; want 1", code, out, errs)
		}
		if viaDaemon {
			g.start(t)
		}
		rejected := filepath.Join(g.drop, "rejected")
		steps := []struct {
			args      []string
			code      int
			out, errs string
		}{
			{[]string{"retry", "nope.zip"}, cli.ExitInvalid, "",
				"forgesync retry: nope.zip is not a rejected archive in " + rejected + " (`forgesync status` lists them)\n"},
			{[]string{"retry"}, cli.ExitFailure, "",
				"forgesync retry: name the archives in drop/rejected/ (`forgesync status` lists them), or say --all\n"},
			{[]string{"remove", "glass-works"}, cli.ExitOK, "", ""},
			{[]string{"retry", "old.zip"}, cli.ExitOK, "old.zip: installed glass-works 1.0.0\npublished installed.json, installed.txt\n", ""},
		}
		for _, s := range steps {
			code, out, errs := g.exe(t, s.args...)
			if code != s.code || (s.out != "" && out != s.out) || errs != s.errs {
				t.Errorf("daemon %v: %v = %d\n%s%s\nwant %d and\n%s%s", viaDaemon, s.args, code, out, errs, s.code, s.out, s.errs)
			}
		}
		if left, _ := filepath.Glob(filepath.Join(rejected, "old.zip*")); len(left) != 0 {
			t.Errorf("daemon %v: drop/rejected/ still holds %v after the retry", viaDaemon, left)
		}
	}
}

// TestInstallForceThroughTheDaemon: install --force works while the
// daemon runs, through it, and leaves no copy behind in drop.
func TestInstallForceThroughTheDaemon(t *testing.T) {
	g := newGame(t)
	os.WriteFile(filepath.Join(g.drop, "a.zip"), packZip(t, "glass-works", "1.1.0", 0), 0o644)
	g.exe(t, "sync")
	g.start(t)
	old := filepath.Join(t.TempDir(), "old.zip")
	os.WriteFile(old, packZip(t, "glass-works", "1.0.0", 0), 0o644)
	code, out, errs := g.exe(t, "install", "--force", old)
	if want := "old.zip: downgraded glass-works 1.0.0 (was 1.1.0)\npublished installed.json, installed.txt\n"; code != cli.ExitOK || out != want || errs != "" {
		t.Errorf("install --force through the daemon = %d\n%s%s\nwant 0 and\n%s", code, out, errs, want)
	}
	if left, _ := os.ReadDir(filepath.Join(g.drop, ".install")); len(left) != 0 {
		t.Errorf("drop/.install holds %v after the installs; want nothing", left)
	}
	if _, err := os.Stat(old); err != nil {
		t.Errorf("the installed file is gone: %v; it stays where it is", err)
	}
}

// TestDemoAgain: the demo deploys no native module (so it warns about no
// release bundle next to a `go run` temp binary), and run again on the
// same root says that it starts over.
func TestDemoAgain(t *testing.T) {
	root, err := os.MkdirTemp("", "fsdemo")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	code, out, errs := runCLI(t, "demo", "--root", root, "--for", "1500ms")
	if code != cli.ExitOK || strings.Contains(out+errs, "starting over") || strings.Contains(out+errs, "release bundle") || strings.Contains(out+errs, "native door module") {
		t.Fatalf("demo = %d\n%s%s; want no word of a release bundle, nor of starting over", code, out, errs)
	}
	code, out, errs = runCLI(t, "demo", "--root", root, "--for", "1500ms")
	if want := "starting over in " + root + ": the previous demo's folders are cleared\n"; code != cli.ExitOK || !strings.HasPrefix(out, want) {
		t.Fatalf("demo again = %d\n%s%s; want it to start with\n%s", code, out, errs, want)
	}
}
