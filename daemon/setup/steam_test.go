package setup

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/config"
)

// steamHome lays out a Linux home with Steam as players have it: the
// installation under ~/.local/share/Steam with ~/.steam/steam linking to
// it, a second library (on another disk) that libraryfolders.vdf names
// and that holds the game with the MJOLNIR mods (a Proton game: Windows
// layout), and another UE game without them. It returns the env, and the
// game's Mods and Paks.
func steamHome(t *testing.T) (config.Env, string, string) {
	t.Helper()
	root := t.TempDir()
	home := filepath.Join(root, "home")
	steam := filepath.Join(home, ".local", "share", "Steam")
	lib := filepath.Join(root, "mnt", "games", "SteamLibrary")
	game := filepath.Join(lib, "steamapps", "common", "Halo Forge", "HaloGame")
	mods := filepath.Join(game, "Binaries", "Win64", "ue4ss", "Mods")
	paks := filepath.Join(game, "Content", "Paks")
	other := filepath.Join(steam, "steamapps", "common", "Other", "OtherGame")
	for _, d := range []string{filepath.Join(mods, "MJOLNIRForge"), paks, filepath.Join(other, "Binaries", "Win64", "Mods", "SomeMod"),
		filepath.Join(other, "Content", "Paks"), filepath.Join(home, ".steam")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(steam, filepath.Join(home, ".steam", "steam")); err != nil {
		t.Fatal(err)
	}
	vdf := "\"libraryfolders\"\n{\n\t\"0\"\n\t{\n\t\t\"path\"\t\t\"" + steam + "\"\n\t\t\"apps\"\n\t\t{\n\t\t\t\"228980\"\t\t\"0\"\n\t\t}\n\t}\n" +
		"\t\"1\"\n\t{\n\t\t\"path\"\t\t\"" + lib + "\"\n\t\t\"label\"\t\t\"\"\n\t}\n}\n"
	if err := os.WriteFile(filepath.Join(steam, "steamapps", "libraryfolders.vdf"), []byte(vdf), 0o644); err != nil {
		t.Fatal(err)
	}
	return config.Env{GOOS: "linux", Home: home, Root: filepath.Join(root, "sys"), Getenv: func(string) string { return "" }}, mods, paks
}

// TestFindSteamGames: the game is found in the library libraryfolders.vdf
// names, once although two Steam folders lead to it; a game without the
// MJOLNIR mods is not.
func TestFindSteamGames(t *testing.T) {
	env, mods, paks := steamHome(t)
	games := findSteamGames(env)
	if len(games) != 1 || games[0].Mods != mods || games[0].Paks != paks {
		t.Errorf("FindSteamGames = %+v; want mods %s, paks %s", games, mods, paks)
	}
	if got := findSteamGames(config.Env{GOOS: "linux", Home: t.TempDir(), Getenv: func(string) string { return "" }}); len(got) != 0 {
		t.Errorf("FindSteamGames without Steam = %+v", got)
	}
}

// TestSetupAskTakesTheGameSteamFound: without a terminal and without
// --mods and --paks, setup takes the game Steam's libraries hold, and the
// state folder's default, and says where it found them.
func TestSetupAskTakesTheGameSteamFound(t *testing.T) {
	env, mods, paks := steamHome(t)
	o := SetupOptions{Env: env}
	var out strings.Builder
	if err := SetupAsk(&o, strings.NewReader(""), &out, false); err != nil {
		t.Fatalf("SetupAsk = %v\n%s", err, out.String())
	}
	if o.Mods != mods || o.Paks != paks || o.State != env.UserStateDir() {
		t.Errorf("SetupAsk took %q %q %q; want %q %q %q", o.Mods, o.Paks, o.State, mods, paks, env.UserStateDir())
	}
	if want := "found through Steam: mods " + mods + ", paks " + paks + "\n"; out.String() != want {
		t.Errorf("SetupAsk said %q; want %q", out.String(), want)
	}
}

// TestSetupAgainTakesTheConfiguredFolders: after a setup, setup with no
// flags and no terminal takes the folders of its config and changes
// nothing; on a terminal it offers them as the defaults.
func TestSetupAgainTakesTheConfiguredFolders(t *testing.T) {
	o := fakeGame(t)
	runSetup(t, o)
	again := SetupOptions{Env: o.Env}
	var out strings.Builder
	if err := SetupAsk(&again, strings.NewReader(""), &out, false); err != nil {
		t.Fatalf("SetupAsk after a setup = %v", err)
	}
	if again.Mods != o.Mods || again.Paks != o.Paks || again.State != o.State || out.Len() != 0 {
		t.Errorf("SetupAsk after a setup took %+v, said %q; want the configured folders", again, out.String())
	}
	if got := runSetup(t, again); !strings.Contains(got, "nothing to change: "+configFile(o.Env)+" already says this\n") {
		t.Errorf("setup again with the defaults printed\n%s", got)
	}
	onTerminal := SetupOptions{Env: o.Env}
	out.Reset()
	if err := SetupAsk(&onTerminal, strings.NewReader("\n\n\n"), &out, true); err != nil {
		t.Fatal(err)
	}
	for _, def := range []string{o.Mods, o.Paks, o.State} {
		if !strings.Contains(out.String(), "["+def+"]: ") {
			t.Errorf("the prompts do not offer %s:\n%s", def, out.String())
		}
	}
	if onTerminal.Mods != o.Mods || onTerminal.Paks != o.Paks || onTerminal.State != o.State {
		t.Errorf("empty answers took %+v; want the configured folders", onTerminal)
	}
}
