package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/cmd/forgesync/cli"
	"github.com/mjolnir-forge/forgesync/native"
)

// player is a player's machine: the release bundle unzipped (the binary
// with modules/ beside it, as `make dist` lays it), a game, and a home.
type player struct {
	root, exe, home, mods, paks, state, drop string
}

func newPlayer(t *testing.T) *player {
	t.Helper()
	root, err := os.MkdirTemp("", "fsp") // short: the socket path must fit
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	p := &player{root: root, exe: filepath.Join(root, "forgesync", "forgesync"), home: filepath.Join(root, "home"),
		mods: filepath.Join(root, "Game", "Mods"), paks: filepath.Join(root, "Game", "Paks"), state: filepath.Join(root, "st")}
	p.drop = filepath.Join(p.mods, "MJOLNIRForgePacks", "drop")
	exe, err := os.ReadFile(binary)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{
		p.exe: exe,
		filepath.Join(root, "forgesync", "modules", filepath.FromSlash(native.ModulePath())):  []byte("MZ not a real DLL"),
		filepath.Join(root, "forgesync", "modules", filepath.FromSlash(native.VersionPath())): fmt.Appendf(nil, "forge_doors %s api %d\n", native.ModuleVersion, native.APIVersion),
		filepath.Join(p.mods, "MJOLNIRForge", "version.txt"):                                  []byte("0.5.0\n"),
	}
	for name, data := range files {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{p.paks, p.home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// run runs the bundle's forgesync as typed, in the player's home, with no
// terminal on stdin; it returns the exit status, stdout and stderr.
func (p *player) run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(p.exe, args...)
	cmd.Dir = p.home
	env := []string{"HOME=" + p.home, "PATH=" + os.Getenv("PATH")}
	cmd.Env = env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("forgesync %s: %v", strings.Join(args, " "), err)
	}
	return code, out.String(), errb.String()
}

func TestPlayerFirstHour(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the player's files are found through HOME here; on Windows through %APPDATA%")
	}
	p := newPlayer(t)
	config := filepath.Join(p.home, ".config", "forgesync", "forgesync.toml")
	beforeSetup := treeSnapshot(t, p.root)

	code, _, errs := p.run(t, "setup", "--mods", p.mods, "--state", p.state)
	if want := "forgesync setup: --paks: not given, and there is no terminal to ask on; pass --paks DIR (the game's Paks folder (e.g. ~/.local/share/Steam/steamapps/common/GAME/PROJECT/Content/Paks))\n"; code != cli.ExitFailure || errs != want {
		t.Fatalf("setup without --paks = %d %q; want %d %q", code, errs, cli.ExitFailure, want)
	}
	code, _, errs = p.run(t, "setup", "--mods", p.mods, "--paks", "/x", "--state", p.state)
	if want := "forgesync setup: --paks /x: no such folder; give the game's Paks folder, e.g. ~/.local/share/Steam/steamapps/common/GAME/PROJECT/Content/Paks\n"; code != cli.ExitFailure || errs != want {
		t.Fatalf("setup --paks /x = %d %q; want %q", code, errs, want)
	}

	code, out, errs := p.run(t, "setup", "--mods", "../Game/Mods", "--paks", p.paks, "--state", p.state)
	if code != cli.ExitOK || !strings.Contains(out, "found MJOLNIRForge 0.5.0\n") || !strings.Contains(out, "wrote "+config+"\n") ||
		!strings.Contains(out, "drop packs into "+p.drop+"\n") || errs != "" ||
		!strings.HasSuffix(out, "; then run `forgesync sync` to install them (or leave `forgesync daemon` running: it installs what you drop); `forgesync status` shows what is installed\n") {
		t.Fatalf("setup = %d\n%s%s", code, out, errs)
	}
	code, out, _ = p.run(t, "setup", "--mods", p.mods, "--paks", p.paks, "--state", p.state)
	if code != cli.ExitOK || !strings.Contains(out, "nothing to change: "+config+" already says this\n") {
		t.Fatalf("second setup = %d\n%s", code, out)
	}
	// Setup again with no flags, no terminal: the config's folders.
	afterSetup := treeSnapshot(t, p.root)
	code, out, errs = p.run(t, "setup")
	if code != cli.ExitOK || !strings.Contains(out, "nothing to change: "+config+" already says this\n") || errs != "" {
		t.Fatalf("setup again with no flags = %d\n%s%s", code, out, errs)
	}
	if d := diffSnapshots(afterSetup, treeSnapshot(t, p.root)); len(d) > 0 {
		t.Fatalf("setup again with no flags changed:\n%s", strings.Join(d, "\n"))
	}

	// Without systemd, --service is refused, and changes nothing.
	if _, err := os.Stat("/run/systemd/system"); err != nil && runtime.GOOS == "linux" {
		code, out, errs = p.run(t, "setup", "--mods", p.mods, "--paks", p.paks, "--state", p.state, "--service")
		want := "forgesync setup: --service: this machine does not run systemd (there is no /run/systemd/system), so forgesync installs no service: " +
			"run `" + p.exe + " daemon --config " + config + "` under your own supervisor instead, or start it at login with an XDG autostart entry " +
			"(~/.config/autostart/forgesync.desktop saying Exec=" + p.exe + " daemon --config " + config + "), or sync before the game starts with its Steam launch option `" +
			p.exe + " sync; %command%` (the README's \"Running without systemd\" has all of them)\n"
		if code != cli.ExitFailure || errs != want || out != "" {
			t.Fatalf("setup --service = %d\n%s%s\nwant stderr %s", code, out, errs, want)
		}
	}

	pack := func(example, name string) {
		t.Helper()
		if code, out, errs := p.run(t, "pack", filepath.Join(wd(t), "examples", example), "-o", filepath.Join(p.drop, name)); code != cli.ExitOK {
			t.Fatalf("pack %s = %d\n%s%s", example, code, out, errs)
		}
	}
	pack("glass-works", "gw.zip")
	code, out, errs = p.run(t, "sync")
	if code != cli.ExitOK || !strings.Contains(out, "gw.zip: installed glass-works 2.0.0\n") || errs != "" {
		t.Fatalf("sync = %d\n%s%s", code, out, errs)
	}
	code, out, errs = p.run(t, "status")
	if code != cli.ExitInvalid || !strings.Contains(out+errs, "no forgesync daemon is answering on "+filepath.Join(p.state, "forgesync.sock")) ||
		!strings.Contains(out, "no daemon running: this is the state on disk ("+p.state+")") || !strings.Contains(out, "packs: 1 installed, 1 enabled;") ||
		!strings.Contains(out, "MJOLNIRForge         0.5.0      ok") {
		t.Fatalf("status without a daemon = %d\n%s%s", code, out, errs)
	}
	pack("foundry-wide", "fw.zip")
	if code, out, errs = p.run(t, "sync"); code != cli.ExitOK || !strings.Contains(out, "fw.zip: installed foundry-wide 1.4.0\n") {
		t.Fatalf("second sync = %d\n%s%s", code, out, errs)
	}
	if code, out, errs = p.run(t, "packs"); code != cli.ExitOK || !strings.Contains(out, "foundry-wide  1.4.0") || !strings.Contains(out, "glass-works   2.0.0") {
		t.Fatalf("packs = %d\n%s%s", code, out, errs)
	}
	if code, out, errs = p.run(t, "rollback"); code != cli.ExitOK || !strings.Contains(out, "rolled back to generation 1: now generation 3\n  removed foundry-wide\n") {
		t.Fatalf("rollback = %d\n%s%s", code, out, errs)
	}
	if code, out, errs = p.run(t, "packs"); code != cli.ExitOK || strings.Contains(out, "foundry-wide") || !strings.Contains(out, "glass-works") {
		t.Fatalf("packs after rollback = %d\n%s%s", code, out, errs)
	}
	// The daemon, found through the same config, answers status.
	daemonCmd := exec.Command(p.exe, "daemon")
	daemonCmd.Dir, daemonCmd.Env = p.home, []string{"HOME=" + p.home, "PATH=" + os.Getenv("PATH")}
	logs := &logWriter{want: "daemon started", ready: make(chan struct{})}
	daemonCmd.Stdout, daemonCmd.Stderr = logs, logs
	if err := daemonCmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { daemonCmd.Wait(); close(exited) }()
	select {
	case <-logs.ready:
	case <-exited:
		t.Fatalf("daemon exited:\n%s", logs.String())
	case <-time.After(20 * time.Second):
		daemonCmd.Process.Kill()
		t.Fatalf("daemon did not start:\n%s", logs.String())
	}
	// The daemon answers before its first deploy has read the mods'
	// versions: ask again until status shows them, or the deadline.
	for deadline := time.Now().Add(20 * time.Second); ; {
		code, out, errs = p.run(t, "status")
		if strings.Contains(out, "MJOLNIRForge         0.5.0      ok") || time.Now().After(deadline) {
			break
		}
		select {
		case <-exited:
			t.Fatalf("daemon exited:\n%s", logs.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
	daemonCmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		daemonCmd.Process.Kill()
		<-exited
	}
	if code != cli.ExitOK || !strings.Contains(out, "packs: 1 installed, 1 enabled;") || !strings.Contains(out, "MJOLNIRForge         0.5.0      ok") {
		t.Fatalf("status with the daemon = %d\n%s%s\ndaemon log:\n%s", code, out, errs, logs.String())
	}

	// The bundle's module was deployed: no warning about a missing one.
	if _, err := os.Stat(filepath.Join(p.mods, filepath.FromSlash(native.ModulePath()))); err != nil {
		t.Errorf("the native module was not deployed from the bundle: %v", err)
	}

	// The rollback rolled back: both packs installed again.
	if code, out, errs = p.run(t, "rollback"); code != cli.ExitOK || !strings.Contains(out, "rolled back to generation 2: now generation 4\n  installed foundry-wide 1.4.0\n") {
		t.Fatalf("rollback of the rollback = %d\n%s%s", code, out, errs)
	}
	// Uninstall: refused without a terminal and --yes, changing nothing;
	// with --yes the game (and the home) are as before setup.
	beforeUninstall := treeSnapshot(t, p.root)
	code, out, errs = p.run(t, "uninstall")
	if code != cli.ExitFailure || !strings.Contains(errs, "uninstall: not confirmed: there is no terminal to ask on; run `forgesync uninstall --yes`") ||
		!strings.Contains(out, "2 installed packs (foundry-wide 1.4.0, glass-works 2.0.0)") {
		t.Fatalf("uninstall without a terminal = %d\n%s%s", code, out, errs)
	}
	if d := diffSnapshots(beforeUninstall, treeSnapshot(t, p.root)); len(d) > 0 {
		t.Fatalf("an unconfirmed uninstall changed:\n%s", strings.Join(d, "\n"))
	}
	code, out, errs = p.run(t, "uninstall", "--yes")
	if code != cli.ExitOK || errs != "" || !strings.Contains(out, "removed "+config+"\n") ||
		!strings.Contains(out, "removed "+filepath.Join(p.mods, filepath.FromSlash(native.ModulePath()))+"\n") {
		t.Fatalf("uninstall --yes = %d\n%s%s", code, out, errs)
	}
	if d := diffSnapshots(beforeSetup, treeSnapshot(t, p.root)); len(d) > 0 {
		t.Errorf("after uninstall, the game and the home differ from before setup:\n%s\nuninstall said:\n%s", strings.Join(d, "\n"), out)
	}
}

func wd(t *testing.T) string {
	t.Helper()
	d, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestSetupServiceRefusedBeforeWriting: `setup --service` on a machine
// whose service cannot be installed (here: no systemd) is refused before
// setup writes a config, a record or a folder, so that following its
// advice never leaves a second config behind.
func TestSetupServiceRefusedBeforeWriting(t *testing.T) {
	if _, err := os.Stat("/run/systemd/system"); err == nil || runtime.GOOS != "linux" {
		t.Skip("needs a Linux machine without systemd, as CI's container is")
	}
	p := newPlayer(t)
	code, out, errs := p.run(t, "setup", "--mods", p.mods, "--paks", p.paks, "--state", p.state, "--service")
	if code != cli.ExitFailure || !strings.HasPrefix(errs, "forgesync setup: --service: this machine does not run systemd") {
		t.Fatalf("setup --service = %d\n%s%s", code, out, errs)
	}
	for _, p := range []string{filepath.Join(p.home, ".config"), p.state, filepath.Join(p.mods, "MJOLNIRForgePacks")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("a refused setup --service made %s", p)
		}
	}
}

// TestSetupUndoKeepsAFileItsRecordNames: a regular file named in the
// record's made list (a record edited, or an old copy restored) is kept by
// `setup --undo` and named as kept, never removed as a folder.
func TestSetupUndoKeepsAFileItsRecordNames(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the player's files are found through HOME here; on Windows through %APPDATA%")
	}
	p := newPlayer(t)
	if code, out, errs := p.run(t, "setup", "--mods", p.mods, "--paks", p.paks, "--state", p.state); code != cli.ExitOK {
		t.Fatalf("setup = %d\n%s%s", code, out, errs)
	}
	notes := filepath.Join(p.root, "notes.txt")
	if err := os.WriteFile(notes, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	record := filepath.Join(p.state, "setup.json")
	data, err := os.ReadFile(record)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(data), `"made": [`, `"made": [`+"\n    "+strconv.Quote(notes)+",", 1)
	if edited == string(data) {
		t.Fatalf("no made list in\n%s", data)
	}
	if err := os.WriteFile(record, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := p.run(t, "setup", "--undo")
	if code != cli.ExitOK || !strings.Contains(out, "kept "+notes+": a file, not a folder setup made\n") || strings.Contains(out, "removed folder "+notes) {
		t.Errorf("setup --undo = %d\n%s%s", code, out, errs)
	}
	if got, err := os.ReadFile(notes); err != nil || string(got) != "mine\n" {
		t.Errorf("the file the record named = %q, %v; want it kept", got, err)
	}
}

// TestSetupStrayQuote: `setup --mods "C:\…\Mods\" --paks …` as Windows
// splits it (the quote after the backslash read as a quote inside the
// value, the rest of the line taken in) is answered with the stray quote
// and the fix, not "--paks: not given". (On Windows itself the line is
// read as meant first: scripts/wine-e2e.sh.)
func TestSetupStrayQuote(t *testing.T) {
	p := newPlayer(t)
	code, out, errs := p.run(t, "setup", "--mods", `C:\Steam Library\Mods" --paks C:\Steam`, `Library\Paks"`, "--state", p.state)
	want := `forgesync setup: --mods C:\Steam Library\Mods" --paks C:\Steam: a stray quote ("): Windows reads the \" that ends "C:\Steam Library\Mods\" as a quote inside the value, so the rest of the line became part of it; drop the trailing backslash (--mods "C:\Steam Library\Mods") or double it (--mods "C:\Steam Library\Mods\\")` + "\n"
	if code != cli.ExitFailure || out != "" || errs != want {
		t.Errorf("setup with a stray quote = %d\n%s%s\nwant\n%s", code, out, errs, want)
	}
	if _, err := os.Stat(p.state); err == nil {
		t.Errorf("a refused setup made %s", p.state)
	}
}

// TestUninstallKeepsWhatIsNotForgesyncs: uninstall keeps and names a file
// the player put into a pack's folder and into a folder forgesync deploys
// into, and the archives the player dropped (waiting, and rejected: its
// note goes); --delete-dropped deletes those archives too. setup --undo
// with packs installed warns and names uninstall.
func TestUninstallKeepsWhatIsNotForgesyncs(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the player's files are found through HOME here; on Windows through %APPDATA%")
	}
	p := newPlayer(t)
	if code, out, errs := p.run(t, "setup", "--mods", p.mods, "--paks", p.paks, "--state", p.state); code != cli.ExitOK {
		t.Fatalf("setup = %d\n%s%s", code, out, errs)
	}
	if code, out, errs := p.run(t, "pack", filepath.Join(wd(t), "examples", "glass-works"), "-o", filepath.Join(p.drop, "gw.zip")); code != cli.ExitOK {
		t.Fatalf("pack = %d\n%s%s", code, out, errs)
	}
	if err := os.WriteFile(filepath.Join(p.drop, "bad.zip"), []byte("not a zip"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := p.run(t, "sync"); code != cli.ExitInvalid {
		t.Fatalf("sync = %d\n%s%s", code, out, errs)
	}
	mine := map[string]string{
		filepath.Join(p.paks, "MJOLNIRForge", "glass-works", "notes.txt"):    "my notes\n",
		filepath.Join(p.mods, "MJOLNIRLevelLoader", "Scripts", "my_mod.lua"): "-- mine\n",
		filepath.Join(p.drop, "later.zip"):                                   "waiting\n",
	}
	for name, data := range mine {
		if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errs := p.run(t, "uninstall", "--yes")
	rejected := filepath.Join(p.drop, "rejected", "bad.zip")
	for _, want := range []string{
		"and keeps " + filepath.Join(p.drop, "later.zip") + ", an archive you dropped (--delete-dropped deletes it)\n",
		"and keeps " + rejected + ", an archive you dropped",
		"kept " + filepath.Join(p.paks, "MJOLNIRForge", "glass-works", "notes.txt") + ": not placed by forgesync\n",
		"kept " + filepath.Join(p.drop, "later.zip") + ": an archive you dropped (uninstall --delete-dropped deletes it)\n",
		"kept " + rejected + ": an archive you dropped",
		"removed " + rejected + ".txt\n",
		"kept folder " + filepath.Join(p.mods, "MJOLNIRLevelLoader", "Scripts") + ": it is not empty\n",
		"kept folder " + p.drop + ": it is not empty\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("uninstall --yes does not say %q:\n%s%s", want, out, errs)
		}
	}
	if code != cli.ExitOK {
		t.Errorf("uninstall --yes = %d\n%s%s", code, out, errs)
	}
	mine[rejected] = "not a zip"
	for name, data := range mine {
		if got, err := os.ReadFile(name); err != nil || string(got) != data {
			t.Errorf("uninstall changed the player's %s: %q, %v", name, got, err)
		}
	}
	if _, err := os.Stat(filepath.Join(p.paks, "MJOLNIRForge", "glass-works", "Surfaces.utoc")); err == nil {
		t.Errorf("uninstall left the pack's content")
	}
}

// TestSetupUndoWarnsOfInstalledPacks: setup --undo with a pack installed
// warns that it leaves it and names uninstall; after a setup again,
// uninstall --delete-dropped deletes the rejected archive the player
// dropped too.
func TestSetupUndoWarnsOfInstalledPacks(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the player's files are found through HOME here; on Windows through %APPDATA%")
	}
	p := newPlayer(t)
	setupArgs := []string{"setup", "--mods", p.mods, "--paks", p.paks, "--state", p.state}
	if code, out, errs := p.run(t, setupArgs...); code != cli.ExitOK {
		t.Fatalf("setup = %d\n%s%s", code, out, errs)
	}
	if code, out, errs := p.run(t, "pack", filepath.Join(wd(t), "examples", "glass-works"), "-o", filepath.Join(p.drop, "gw.zip")); code != cli.ExitOK {
		t.Fatalf("pack = %d\n%s%s", code, out, errs)
	}
	if err := os.WriteFile(filepath.Join(p.drop, "bad.zip"), []byte("not a zip"), 0o644); err != nil {
		t.Fatal(err)
	}
	p.run(t, "sync")
	code, out, errs := p.run(t, "setup", "--undo")
	want := "warning: 1 pack is installed (glass-works): setup --undo leaves them, their content, the deployed scripts and the state " + p.state +
		"; `forgesync uninstall` removes all of it (run it before setup --undo: without the config no command finds them)\n"
	if code != cli.ExitOK || !strings.HasPrefix(out, want) {
		t.Fatalf("setup --undo with a pack installed = %d\n%s%s\nwant it to start with %s", code, out, errs, want)
	}
	if code, out, errs := p.run(t, setupArgs...); code != cli.ExitOK {
		t.Fatalf("setup again = %d\n%s%s", code, out, errs)
	}
	rejected := filepath.Join(p.drop, "rejected", "bad.zip")
	code, out, errs = p.run(t, "uninstall", "--yes", "--delete-dropped")
	if code != cli.ExitOK || !strings.Contains(out, "  "+rejected+", an archive you dropped (--delete-dropped)\n") || !strings.Contains(out, "removed "+rejected+"\n") {
		t.Errorf("uninstall --delete-dropped = %d\n%s%s", code, out, errs)
	}
	if _, err := os.Stat(rejected); err == nil {
		t.Errorf("uninstall --delete-dropped kept %s", rejected)
	}
}

// TestUninstallRefusedWhileADaemonRuns: a daemon that uninstall did not
// start as a service holds the state: uninstall says to stop it and
// removes nothing.
func TestUninstallRefusedWhileADaemonRuns(t *testing.T) {
	g := newGame(t)
	if err := os.WriteFile(filepath.Join(g.drop, "good.zip"), packZip(t, "good-pack", "1.0.0", 1), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := runCLI(t, "sync", "--config", g.config); code != cli.ExitOK {
		t.Fatalf("sync = %d\n%s%s", code, out, errs)
	}
	g.start(t)
	before := treeSnapshot(t, filepath.Join(g.root, "paks"))
	code, _, errs := runCLI(t, "uninstall", "--yes", "--config", g.config)
	want := "forgesync uninstall: uninstall: a forgesync daemon answers on " + g.sock + ": stop it (Ctrl-C where it runs, or `forgesync service stop`) and run uninstall again; nothing was removed\n"
	if code != cli.ExitFailure || errs != want {
		t.Errorf("uninstall beside a daemon = %d %q; want %d %q", code, errs, cli.ExitFailure, want)
	}
	if d := diffSnapshots(before, treeSnapshot(t, filepath.Join(g.root, "paks"))); len(d) > 0 {
		t.Errorf("a refused uninstall changed the packs:\n%s", strings.Join(d, "\n"))
	}
	if _, err := os.Stat(g.config); err != nil {
		t.Errorf("a refused uninstall removed the config: %v", err)
	}
}

// TestUninstallOfAHandWrittenConfig: a config setup did not write, over a
// state never made: uninstall makes no state to look into, keeps the
// config and says why, and changes nothing else.
func TestUninstallOfAHandWrittenConfig(t *testing.T) {
	g := newGame(t)
	before := treeSnapshot(t, g.root)
	code, out, errs := runCLI(t, "uninstall", "--yes", "--config", g.config)
	if code != cli.ExitOK || !strings.Contains(out, "kept "+g.config+": setup did not write it\n") || strings.Contains(out, "kept "+g.state) {
		t.Errorf("uninstall of a hand-written config = %d\n%s%s", code, out, errs)
	}
	if d := diffSnapshots(before, treeSnapshot(t, g.root)); len(d) > 0 {
		t.Errorf("uninstall of a hand-written config changed:\n%s", strings.Join(d, "\n"))
	}
}
