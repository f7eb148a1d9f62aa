package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/cmd/forgesync/cli"
)

// TestProfileCommand: `forgesync profile` saves the installed set under a
// name, switches to it and back (a pack dropped meanwhile joins own and is
// installed when own is current), lists the profiles with the current one
// marked, and refuses what it cannot do with the same words, with and
// without a daemon.
func TestProfileCommand(t *testing.T) {
	for _, viaDaemon := range []bool{false, true} {
		g := newGame(t)
		g.dropPacks(t) // glass-works and foundry-wide
		if viaDaemon {
			g.start(t)
		}
		run := func(want int, args ...string) (string, string) {
			t.Helper()
			code, out, errs := g.exe(t, args...)
			if code != want {
				t.Fatalf("daemon %v: %v = %d; want %d\n%s%s", viaDaemon, args, code, want, out, errs)
			}
			return out, errs
		}
		if out, _ := run(cli.ExitOK, "profile", "save", "solo"); !strings.Contains(out, "solo ") || !strings.Contains(out, "own (current)") {
			t.Errorf("daemon %v: profile save solo said\n%s", viaDaemon, out)
		}
		run(cli.ExitOK, "remove", "foundry-wide")
		out, _ := run(cli.ExitOK, "profile", "switch", "solo")
		if !strings.Contains(out, "switched from profile own to solo: now generation 3\n  installed foundry-wide 1.4.0\n") {
			t.Errorf("daemon %v: profile switch solo said\n%s", viaDaemon, out)
		}
		statusExit := cli.ExitInvalid // no daemon: the state on disk
		if viaDaemon {
			statusExit = cli.ExitOK
		}
		if out, _ := run(statusExit, "status"); !strings.Contains(out, "profile: solo (forgesync profile list)\n") {
			t.Errorf("daemon %v: status does not name profile solo:\n%s", viaDaemon, out)
		}
		os.WriteFile(filepath.Join(g.drop, "c.zip"), packZip(t, "lockout-gates", "0.4.0", 0), 0o644)
		if out, _ := run(cli.ExitOK, "sync"); !strings.Contains(out, "c.zip: kept for profile own: lockout-gates 0.4.0 (installed when own is current: `forgesync profile switch own`)\n") {
			t.Errorf("daemon %v: sync while solo is current said\n%s", viaDaemon, out)
		}
		if _, errs := run(cli.ExitInvalid, "profile", "remove", "solo"); errs != "forgesync profile: profile solo is the current one: switch to another (`forgesync profile switch own`) before removing it\n" {
			t.Errorf("daemon %v: profile remove of the current one said %q", viaDaemon, errs)
		}
		if _, errs := run(cli.ExitInvalid, "profile", "switch", "nowhere"); errs != "forgesync profile: there is no profile \"nowhere\" (see `forgesync profile list`)\n" {
			t.Errorf("daemon %v: profile switch nowhere said %q", viaDaemon, errs)
		}
		if out, _ := run(cli.ExitOK, "profile", "switch", "own"); !strings.Contains(out, "switched from profile solo to own") || !strings.Contains(out, "installed lockout-gates 0.4.0") || !strings.Contains(out, "removed foundry-wide") {
			t.Errorf("daemon %v: profile switch own said\n%s", viaDaemon, out)
		}
		if out, _ := run(cli.ExitOK, "packs"); !strings.Contains(out, "lockout-gates") || !strings.Contains(out, "glass-works") || strings.Contains(out, "foundry-wide") {
			t.Errorf("daemon %v: packs of own after the switch:\n%s", viaDaemon, out)
		}
		if out, _ := run(cli.ExitOK, "profile", "remove", "solo"); strings.Contains(out, "solo") {
			t.Errorf("daemon %v: profile remove solo left\n%s", viaDaemon, out)
		}
		if _, errs := run(cli.ExitFailure, "profile", "switch"); errs != "forgesync profile: switch: want `profile list`, or `profile save|switch|remove NAME`\n" {
			t.Errorf("daemon %v: profile switch without a name said %q", viaDaemon, errs)
		}
	}
}
