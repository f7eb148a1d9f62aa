package setup

import (
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/config"
)

// fakeGame lays out a game (Mods with MJOLNIRForge 0.5.0 and MJOLNIRLobby
// 0.19.2, no MJOLNIRLevelLoader; Paks) and a home folder under a temp
// folder, and returns setup's answers for them with an Env of that home.
func fakeGame(t *testing.T) SetupOptions {
	t.Helper()
	root := t.TempDir()
	mods := filepath.Join(root, "Game", "Binaries", "Win64", "Mods")
	paks := filepath.Join(root, "Game", "Content", "Paks")
	for mod, v := range map[string]string{"MJOLNIRForge": "0.5.0", "MJOLNIRLobby": "0.19.2"} {
		if err := os.MkdirAll(filepath.Join(mods, mod), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(mods, mod, "version.txt"), []byte(v+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(paks, 0o755); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(root, "home")
	if err := os.MkdirAll(filepath.Join(home, ".local", "share", "applications"), 0o755); err != nil {
		t.Fatal(err) // a desktop's: setup writes its forgesync:// handler there
	}
	vars := map[string]string{
		"APPDATA":      filepath.Join(home, "AppData", "Roaming"),
		"LOCALAPPDATA": filepath.Join(home, "AppData", "Local"),
	}
	env := config.Env{Home: home, Root: filepath.Join(root, "sys"), Getenv: func(k string) string { return vars[k] }}
	return SetupOptions{Mods: mods, Paks: paks, State: filepath.Join(root, "state"), Env: env}
}

func runSetup(t *testing.T, o SetupOptions) string {
	t.Helper()
	var out strings.Builder
	start := time.Now()
	if err := Setup(t.Context(), o, &out); err != nil {
		t.Fatalf("Setup: %v\n%s", err, out.String())
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("Setup took %s; want under 1 s", d)
	}
	return out.String()
}

func TestSetupWritesTheConfigAndIsIdempotent(t *testing.T) {
	o := fakeGame(t)
	file := configFile(o.Env)
	drop := filepath.Join(o.Mods, "MJOLNIRForgePacks", "drop")
	record := filepath.Join(o.State, setupRecordName)
	got := runSetup(t, o)
	var made []string
	for d := filepath.Dir(file); d != o.Env.Home; d = filepath.Dir(d) {
		made = append([]string{"made folder " + d + "\n"}, made...)
	}
	want := "found MJOLNIRForge 0.5.0\n" +
		"found MJOLNIRLobby 0.19.2\n" +
		"not found: MJOLNIRLevelLoader (no " + filepath.Join(o.Mods, "MJOLNIRLevelLoader", "version.txt") + "); packs install, but it is needed in game\n" +
		"made folder " + o.State + "\n" +
		strings.Join(made, "") +
		"made folder " + filepath.Dir(drop) + "\n" +
		"made folder " + drop + "\n" +
		"wrote " + desktopFile(o) + " (forgesync:// links open the status page)\n" +
		"wrote " + file + "\n" +
		"wrote " + record + " (what setup made, for `forgesync setup --undo`)\n" +
		"drop packs into " + drop + "\n" +
		"next: drop a pack archive (zip, 7z, tar.*) there; then run `forgesync sync` to install them (or leave `forgesync daemon` running: it installs what you drop); `forgesync status` shows what is installed\n"
	if got != want {
		t.Errorf("setup printed\n%s\nwant\n%s", got, want)
	}
	cfg, err := config.LoadEnv(file, o.Env)
	if err != nil {
		t.Fatalf("the config setup wrote: %v", err)
	}
	if cfg.Paths.Mods != o.Mods || cfg.Paths.Paks != o.Paks || cfg.Paths.State != o.State || cfg.Paths.Drop != drop {
		t.Errorf("config paths = %+v", cfg.Paths)
	}
	// The CLI's discovery finds it: the user's file comes before the machine's.
	if p, _, err := o.Env.Discover(""); err != nil || p != file {
		t.Errorf("Discover = %q, %v; want %q", p, err, file)
	}
	before, _ := os.ReadFile(file)
	info, _ := os.Stat(file)

	got = runSetup(t, o)
	want = "found MJOLNIRForge 0.5.0\nfound MJOLNIRLobby 0.19.2\n" +
		"not found: MJOLNIRLevelLoader (no " + filepath.Join(o.Mods, "MJOLNIRLevelLoader", "version.txt") + "); packs install, but it is needed in game\n" +
		"nothing to change: " + file + " already says this\ndrop packs into " + drop + "\n" +
		"next: drop a pack archive (zip, 7z, tar.*) there; then run `forgesync sync` to install them (or leave `forgesync daemon` running: it installs what you drop); `forgesync status` shows what is installed\n"
	if got != want {
		t.Errorf("second setup printed\n%s\nwant\n%s", got, want)
	}
	after, _ := os.ReadFile(file)
	info2, _ := os.Stat(file)
	if string(after) != string(before) || !info2.ModTime().Equal(info.ModTime()) {
		t.Error("the second setup rewrote the config")
	}
}

func TestSetupMachineFile(t *testing.T) {
	o := fakeGame(t)
	o.Env.Machine = true
	runSetup(t, o)
	if _, err := os.Stat(o.Env.MachineFile()); err != nil {
		t.Errorf("--machine wrote no %s: %v", o.Env.MachineFile(), err)
	}
	if _, err := os.Stat(o.Env.UserFile()); err == nil {
		t.Errorf("--machine wrote the user's file %s too", o.Env.UserFile())
	}
}

func TestSetupUndo(t *testing.T) {
	o := fakeGame(t)
	if err := os.MkdirAll(filepath.Dir(o.Env.UserFile()), 0o755); err != nil {
		t.Fatal(err) // a config folder that was there before setup stays
	}
	configDir := filepath.Dir(o.Env.UserFile())
	runSetup(t, o)
	drop := filepath.Join(o.Mods, "MJOLNIRForgePacks", "drop")
	// A pack the player dropped, and one installed: never removed.
	pack := filepath.Join(drop, "pack.zip")
	if err := os.WriteFile(pack, []byte("PK"), 0o644); err != nil {
		t.Fatal(err)
	}
	installed := filepath.Join(o.Mods, "MJOLNIRForgePacks", "foundry")
	if err := os.Mkdir(installed, 0o755); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := SetupUndo(t.Context(), SetupOptions{Env: o.Env}, &out); err != nil {
		t.Fatal(err)
	}
	want := "removed " + o.Env.UserFile() + "\n" +
		"removed " + desktopFile(o) + "\n" +
		"removed " + filepath.Join(o.State, setupRecordName) + "\n" +
		"kept folder " + drop + ": it is not empty\n" +
		"kept folder " + filepath.Dir(drop) + ": it is not empty\n" +
		"removed folder " + o.State + "\n"
	if out.String() != want {
		t.Errorf("undo printed\n%s\nwant\n%s", out.String(), want)
	}
	for _, keep := range []string{pack, installed, configDir, o.Mods, o.Paks} {
		if _, err := os.Stat(keep); err != nil {
			t.Errorf("undo removed %s", keep)
		}
	}
	for _, gone := range []string{o.Env.UserFile(), o.State} {
		if _, err := os.Stat(gone); err == nil {
			t.Errorf("undo left %s", gone)
		}
	}
	out.Reset()
	if err := SetupUndo(t.Context(), SetupOptions{Env: o.Env}, &out); err != nil || out.String() != "nothing to undo: there is no "+o.Env.UserFile()+"\n" {
		t.Errorf("second undo = %v, %q", err, out.String())
	}
}

func TestSetupUndoKeepsAnEditedConfig(t *testing.T) {
	o := fakeGame(t)
	runSetup(t, o)
	file := configFile(o.Env)
	written, _ := os.ReadFile(file)
	edited := string(written) + "[log]\nlevel = \"debug\"\n"
	if err := os.WriteFile(file, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := SetupUndo(t.Context(), SetupOptions{Env: o.Env}, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "kept "+file+": it was changed after setup wrote it\n") {
		t.Errorf("undo printed %q", out.String())
	}
	if data, _ := os.ReadFile(file); string(data) != edited {
		t.Error("undo changed the edited config")
	}
}

func TestSetupUndoOfAConfigSetupDidNotWrite(t *testing.T) {
	o := fakeGame(t)
	file := configFile(o.Env)
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	text := "[paths]\nmods = '" + o.Mods + "'\nstate = '" + o.State + "'\n"
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	err := SetupUndo(t.Context(), SetupOptions{Env: o.Env}, &out)
	want := "setup --undo: " + o.State + " has no record of " + file + " (" + filepath.Join(o.State, setupRecordName) + "), so setup did not write it: remove it by hand if you want it gone"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
	err = Setup(t.Context(), o, &out)
	want = "setup: " + file + " already exists and says something else, and setup did not write it: edit it by hand, or move it away and run setup again"
	if err == nil || err.Error() != want {
		t.Errorf("setup over it: err = %v\nwant %s", err, want)
	}
	if data, _ := os.ReadFile(file); string(data) != text {
		t.Error("the player's config was changed")
	}
}

func TestSetupRefusals(t *testing.T) {
	o := fakeGame(t)
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "x")
	ex := folderExamples(o.Env)
	tests := []struct {
		name   string
		change func(*SetupOptions)
		want   string
	}{
		{"no mods", func(o *SetupOptions) { o.Mods = "" }, "--mods: no folder given; give the game's UE4SS Mods folder, e.g. " + ex.mods},
		{"no paks folder", func(o *SetupOptions) { o.Paks = missing }, "--paks " + missing + ": no such folder; give the game's Paks folder, e.g. " + ex.paks},
		{"mods missing", func(o *SetupOptions) { o.Mods = missing }, "--mods " + missing + ": no such folder; give the game's UE4SS Mods folder, e.g. " + ex.mods},
		{"paks a file", func(o *SetupOptions) { o.Paks = file }, "--paks " + file + ": a file, not a folder; give the game's Paks folder, e.g. " + ex.paks},
		{"state a file", func(o *SetupOptions) { o.State = file }, "--state " + file + ": a file, not a folder; give a folder of forgesync's own, e.g. " + o.Env.UserStateDir()},
		{"paks inside mods", func(o *SetupOptions) { o.Paks = o.Mods + string(filepath.Separator) + "MJOLNIRForge" }, "--paks " + filepath.Join(o.Mods, "MJOLNIRForge") + " is inside --mods " + o.Mods + "; give folders that are not inside each other"},
		{"mods inside state", func(o *SetupOptions) { o.State = filepath.Dir(filepath.Dir(o.Mods)) }, "--mods " + o.Mods + " is inside --state " + filepath.Dir(filepath.Dir(o.Mods)) + "; give folders that are not inside each other"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			oo := o
			tt.change(&oo)
			var out strings.Builder
			err := Setup(t.Context(), oo, &out)
			if err == nil || err.Error() != tt.want {
				t.Errorf("err = %v\nwant %s", err, tt.want)
			}
			if _, err := os.Stat(configFile(o.Env)); err == nil {
				t.Error("a refused setup wrote the config")
			}
		})
	}
	if runtime.GOOS != "windows" && os.Geteuid() != 0 {
		t.Run("not writable", func(t *testing.T) {
			oo := o
			if err := os.Chmod(oo.Paks, 0o555); err != nil {
				t.Fatal(err)
			}
			defer os.Chmod(oo.Paks, 0o755)
			err := Setup(t.Context(), oo, &strings.Builder{})
			want := "--paks " + oo.Paks + ": not writable ("
			if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.HasSuffix(err.Error(), "); give a folder you can write to, or run setup as its owner") {
				t.Errorf("err = %v; want %s...", err, want)
			}
		})
	}
}

func TestSetupConfigQuotesPaths(t *testing.T) {
	base := t.TempDir()
	for _, p := range []string{filepath.Join(base, "Mods"), filepath.Join(base, "o'neil", "Mods"), filepath.Join(base, `a "b" \c`, "Mods")} {
		text := setupConfig(p, p+"x", p+"y", "127.0.0.1:8384")
		cfg, err := config.ParseEnv(filepath.Join(base, "f.toml"), text, config.Process(false))
		if err != nil {
			t.Errorf("%s: %v\n%s", p, err, text)
			continue
		}
		if cfg.Paths.Mods != p || cfg.Paths.Paks != p+"x" || cfg.Paths.State != p+"y" {
			t.Errorf("paths = %+v; want %q, %q, %q", cfg.Paths, p, p+"x", p+"y")
		}
	}
}

func TestSetupAskNeverPromptsWithoutATerminal(t *testing.T) {
	o := fakeGame(t)
	o.Paks = ""
	var out strings.Builder
	err := SetupAsk(&o, strings.NewReader("/somewhere\n"), &out, false)
	want := "--paks: not given, and there is no terminal to ask on; pass --paks DIR (the game's Paks folder (e.g. " + folderExamples(o.Env).paks + "))"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
	if out.Len() != 0 || o.Paks != "" {
		t.Errorf("asked %q, paks = %q; want no prompt", out.String(), o.Paks)
	}
}

func TestSetupAskOnATerminal(t *testing.T) {
	o := fakeGame(t)
	mods, state := o.Mods, o.Env.UserStateDir()
	o.Mods, o.Paks, o.State = "", "", ""
	var out strings.Builder
	in := strings.NewReader("\"" + mods + "\"\n\n/game/Paks\n\n")
	if err := SetupAsk(&o, in, &out, true); err != nil {
		t.Fatal(err)
	}
	if o.Mods != mods || o.Paks != "/game/Paks" || o.State != state {
		t.Errorf("answers = %q %q %q", o.Mods, o.Paks, o.State)
	}
	ex := folderExamples(o.Env)
	want := "the game's UE4SS Mods folder (e.g. " + ex.mods + "): " +
		"the game's Paks folder (e.g. " + ex.paks + "): the game's Paks folder (e.g. " + ex.paks + "): " +
		"forgesync's own folder, for its state and logs [" + state + "]: "
	if out.String() != want {
		t.Errorf("prompts = %q\nwant %q", out.String(), want)
	}
	o.Mods = ""
	err := SetupAsk(&o, strings.NewReader(""), &out, true)
	if want := "--mods: no answer (the input ended); pass --mods DIR"; err == nil || err.Error() != want {
		t.Errorf("err = %v; want %s", err, want)
	}
}

func TestSetupWithOtherAnswersUpdatesItsOwnConfig(t *testing.T) {
	o := fakeGame(t)
	runSetup(t, o)
	first := o.State
	o.State = first + "2"
	got := runSetup(t, o)
	file := configFile(o.Env)
	if !strings.Contains(got, "made folder "+o.State+"\n") || !strings.Contains(got, "wrote "+file+"\n") ||
		!strings.Contains(got, "removed "+filepath.Join(first, setupRecordName)+"\n") {
		t.Errorf("setup with another state printed\n%s", got)
	}
	if data, _ := os.ReadFile(file); string(data) != string(setupConfig(o.Mods, o.Paks, o.State, listenOf(t, file))) {
		t.Errorf("config = %s", data)
	}
	var out strings.Builder
	if err := SetupUndo(t.Context(), SetupOptions{Env: o.Env}, &out); err != nil {
		t.Fatal(err)
	}
	for _, gone := range []string{file, first, o.State} {
		if _, err := os.Stat(gone); err == nil {
			t.Errorf("undo left %s\n%s", gone, out.String())
		}
	}
}

func TestSetupWithoutAConfigFolder(t *testing.T) {
	o := fakeGame(t)
	o.Env = config.Env{GOOS: "windows", Getenv: func(string) string { return "" }}
	err := Setup(t.Context(), o, &strings.Builder{})
	want := "setup: this account has no config folder (neither %APPDATA% nor a home folder is set): run setup with --machine, or set one"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v; want %s", err, want)
	}
}

// TestFolderExamplesPerOS: the examples are the OS's paths: Windows ones
// on Windows, a Steam library's elsewhere (they were Windows ones on
// Linux).
func TestFolderExamplesPerOS(t *testing.T) {
	win, linux := folderExamples(config.Env{GOOS: "windows"}), folderExamples(config.Env{GOOS: "linux"})
	if win.mods != `...\Binaries\Win64\Mods (or ...\Binaries\Win64\ue4ss\Mods)` || win.paks != `...\Content\Paks` {
		t.Errorf("Windows examples = %+v", win)
	}
	if strings.Contains(linux.mods+linux.paks, `\`) || !strings.HasPrefix(linux.mods, "~/.local/share/Steam/steamapps/common/") || !strings.HasSuffix(linux.paks, "/Content/Paks") {
		t.Errorf("Linux examples = %+v; want Linux paths", linux)
	}
}

// listenOf returns the [api] listen of the config at file.
func listenOf(t *testing.T, file string) string {
	t.Helper()
	cfg, err := config.LoadEnv(file, config.Process(false))
	if err != nil {
		t.Fatal(err)
	}
	return cfg.API.Listen
}

// TestSetupEnablesThePage: setup turns on the TCP API, where the status
// page lives, on a loopback port that is free, and keeps that port when
// run again (nothing to change).
func TestSetupEnablesThePage(t *testing.T) {
	o := fakeGame(t)
	runSetup(t, o)
	file := configFile(o.Env)
	listen := listenOf(t, file)
	host, _, err := net.SplitHostPort(listen)
	if err != nil || host != "127.0.0.1" {
		t.Fatalf("[api] listen = %q; want a port on 127.0.0.1", listen)
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		t.Fatalf("the port setup chose, %s, is not free: %v", listen, err)
	}
	ln.Close()
	if got := runSetup(t, o); !strings.Contains(got, "nothing to change") || listenOf(t, file) != listen {
		t.Errorf("setup again printed\n%s\nand listens on %s; want nothing changed (%s)", got, listenOf(t, file), listen)
	}
}

// desktopFile is where setup writes the forgesync:// handler for o.
func desktopFile(o SetupOptions) string {
	return filepath.Join(o.Env.Home, ".local", "share", "applications", desktopName)
}
