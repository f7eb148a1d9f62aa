package setup

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/mjolnir-forge/forgesync/config"
	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
	"github.com/mjolnir-forge/forgesync/internal/vdf"
)

// maxSteamEntries bounds how many entries of one folder the search for
// the game reads: a library of thousands of games is not walked whole.
const maxSteamEntries = 2000

// steamGame is a game with the MJOLNIR mods' layout found in a Steam
// library: its UE4SS Mods folder (holding an MJOLNIR mod) and its Paks
// folder. A Proton game on Linux has the same layout in the same
// libraries.
type steamGame struct {
	Mods, Paks string
}

// steamRoots returns the Steam installations of env's account: on
// Windows the one the registry names and the default under
// %ProgramFiles(x86)%; elsewhere ~/.steam/steam, ~/.local/share/Steam
// ($XDG_DATA_HOME/Steam) and the Flatpak's.
func steamRoots(env config.Env) []string {
	if env.OS() == "windows" {
		roots := []string{registrySteamPath()}
		pf := env.Var("ProgramFiles(x86)")
		if pf == "" {
			pf = `C:\Program Files (x86)`
		}
		return append(roots, filepath.Join(pf, "Steam"))
	}
	home := env.HomeDir()
	if home == "" {
		return nil
	}
	data := filepath.Join(home, ".local", "share")
	if d := env.Var("XDG_DATA_HOME"); d != "" && filepath.IsAbs(d) {
		data = d
	}
	return []string{filepath.Join(home, ".steam", "steam"), filepath.Join(data, "Steam"),
		filepath.Join(home, ".var", "app", "com.valvesoftware.Steam", ".local", "share", "Steam")}
}

// findSteamGames returns the games with the MJOLNIR mods' layout in the
// Steam libraries of env's account, each once: every library
// libraryfolders.vdf names in each Steam installation, and the
// installation itself.
func findSteamGames(env config.Env) []steamGame {
	var libs []string
	for _, root := range steamRoots(env) {
		if root == "" {
			continue
		}
		libs = append(libs, root)
		libs = append(libs, libraryFolders(filepath.Join(root, "steamapps", "libraryfolders.vdf"))...)
	}
	var games []steamGame
	seen := map[string]bool{}
	for _, lib := range libs {
		for _, g := range gamesIn(filepath.Join(lib, "steamapps", "common")) {
			key := strings.ToLower(filepath.Clean(g.Mods))
			if real, err := filepath.EvalSymlinks(g.Mods); err == nil {
				key = strings.ToLower(real) // ~/.steam/steam links to ~/.local/share/Steam
			}
			if !seen[key] {
				seen[key] = true
				games = append(games, g)
			}
		}
	}
	return games
}

// libraryFolders returns the library folders libraryfolders.vdf at path
// names: the "path" of each numbered block, or the numbered string of the
// format before 2021. A file missing, too large or not VDF names none.
func libraryFolders(path string) []string {
	data, err := atomicfile.ReadFile(path, vdf.MaxBytes)
	if err != nil {
		return nil
	}
	root, err := vdf.Parse(data)
	if err != nil || !strings.EqualFold(root.Key, "libraryfolders") {
		return nil
	}
	var out []string
	for _, k := range root.Keys {
		if strings.Trim(k.Key, "0123456789") != "" || k.Key == "" {
			continue // TimeNextStatsReport, ContentStatsID
		}
		p := k.Value
		if k.Block() {
			if n := k.Get("path"); n != nil && !n.Block() {
				p = n.Value
			} else {
				p = ""
			}
		}
		if p != "" && filepath.IsAbs(p) {
			out = append(out, p)
		}
	}
	return out
}

// gamesIn returns the games under common (steamapps/common) with the
// layout <game>/<project>/Binaries/Win64/Mods (or .../ue4ss/Mods) holding
// an MJOLNIR mod, beside <game>/<project>/Content/Paks.
func gamesIn(common string) []steamGame {
	var games []steamGame
	for _, game := range readDirNames(common) {
		for _, project := range readDirNames(filepath.Join(common, game)) {
			base := filepath.Join(common, game, project)
			paks := filepath.Join(base, "Content", "Paks")
			if !isDir(paks) {
				continue
			}
			for _, mods := range []string{filepath.Join(base, "Binaries", "Win64", "Mods"), filepath.Join(base, "Binaries", "Win64", "ue4ss", "Mods")} {
				if hasMJOLNIR(mods) {
					games = append(games, steamGame{Mods: mods, Paks: paks})
				}
			}
		}
	}
	return games
}

// hasMJOLNIR reports whether the folder mods holds a folder of an MJOLNIR
// mod.
func hasMJOLNIR(mods string) bool {
	for _, n := range readDirNames(mods) {
		if strings.HasPrefix(strings.ToUpper(n), "MJOLNIR") {
			return true
		}
	}
	return false
}

// readDirNames returns the names of the first maxSteamEntries folders in
// dir; none when it cannot be read.
func readDirNames(dir string) []string {
	f, err := os.Open(dir)
	if err != nil {
		return nil
	}
	defer f.Close()
	entries, _ := f.ReadDir(maxSteamEntries) // io.EOF for an empty folder
	var names []string
	for _, e := range entries {
		if e.IsDir() || e.Type()&os.ModeSymlink != 0 && isDir(filepath.Join(dir, e.Name())) {
			names = append(names, e.Name())
		}
	}
	return names
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
