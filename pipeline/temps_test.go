package pipeline

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/mjolnir-forge/forgesync/installer/deploy"
	"github.com/mjolnir-forge/forgesync/installer/place"
	"github.com/mjolnir-forge/forgesync/installer/store"
	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
	"github.com/mjolnir-forge/forgesync/native"
)

// TestStartRemovesTempsEverywhere: the temp files crashes leave in every
// folder forgesync writes into (the state folder and all under it, the
// packs' content folders, drop and drop/rejected/, the inventory folder,
// the folders it deploys into, on or off) are gone after the next start,
// and nothing else: not a file whose name only holds the prefix, not a
// temp-looking file in the game's other folders, in a player's folder in
// drop, nor behind a link. Those in state/manifests/, state/processing/,
// the cache, drop/rejected/, the content and deploy folders stayed for
// ever.
func TestStartRemovesTempsEverywhere(t *testing.T) {
	skipUnderRace(t)
	e := newEnv(t)
	opts := e.options()
	opts.DeployLua = true
	p, _, err := Open(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	e.dropPack(t, "maps.zip", spec{id: "map-pack", version: "1.0.0", lifts: 1, content: map[string]string{"Maps/a.pak": "a", "b.pak": "b"}})
	e.dropPack(t, "bad.zip", spec{id: "bad-pack", version: "1.0.0", doors: 1, bad: true})
	mustSync(t, p, map[string]Result{"maps.zip": ResultInstalled, "bad.zip": ResultRejected})
	if _, err := p.Deploy(t.Context()); err != nil {
		t.Fatal(err)
	}
	p.Close()

	content := filepath.Join(e.paks, place.ContentRoot, "map-pack")
	ours := []string{e.state, filepath.Join(e.state, store.ProcessingDir), filepath.Join(e.state, store.ArchivesDir),
		filepath.Join(e.state, store.ManifestsDir), filepath.Join(e.state, store.IncomingDir), filepath.Join(e.state, store.StagingDir),
		filepath.Join(e.state, "cache"), filepath.Join(e.state, "cache", "later"),
		e.drop, filepath.Join(e.drop, rejectedDir), InventoryDir(e.mods),
		content, filepath.Join(content, "Maps"),
		deploy.LuaScripts(e.mods).Target, filepath.Join(e.mods, filepath.Dir(filepath.FromSlash(native.ModulePath())))}
	var temps, kept []string
	write := func(path string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range ours {
		tmp := atomicfile.TempName(filepath.Join(d, "file"))
		write(tmp)
		temps = append(temps, tmp)
	}
	// What processing, archives, incoming and staging hold is processed
	// or removed as theirs; elsewhere a name that only holds the prefix
	// stays.
	for _, d := range []string{e.state, filepath.Join(e.state, store.ManifestsDir), filepath.Join(e.state, "cache", "later"),
		e.drop, filepath.Join(e.drop, rejectedDir), InventoryDir(e.mods), content, deploy.LuaScripts(e.mods).Target} {
		kept = append(kept, filepath.Join(d, "my"+atomicfile.TempPrefix+"file"))
	}
	kept = append(kept,
		filepath.Join(e.paks, "Game", atomicfile.TempPrefix+"game"),          // the game's, beside MJOLNIRForge
		filepath.Join(e.mods, atomicfile.TempPrefix+"mods"),                  // the mods folder itself
		filepath.Join(e.drop, "my folder", atomicfile.TempPrefix+"mine"),     // a player's folder in drop
		filepath.Join(e.mods, "OtherMod", "dlls", atomicfile.TempPrefix+"x")) // a folder forgesync never deploys into
	for _, k := range kept {
		write(k)
	}
	if runtime.GOOS != "windows" {
		outside := filepath.Join(e.root, "outside")
		out := filepath.Join(outside, atomicfile.TempPrefix+"out")
		write(out)
		kept = append(kept, out)
		if err := os.Symlink(outside, filepath.Join(e.state, "cache", "link")); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(outside, filepath.Join(content, "link")); err != nil {
			t.Fatal(err)
		}
	}

	p, _, err = Open(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	p.Close()
	for _, tmp := range temps {
		if _, err := os.Lstat(tmp); !os.IsNotExist(err) {
			t.Errorf("%s is still there after a start (%v)", tmp, err)
		}
	}
	for _, k := range kept {
		if _, err := os.Lstat(k); err != nil {
			t.Errorf("%s is gone after a start (%v); forgesync did not write it", k, err)
		}
	}
	if got := e.inv("installed.txt"); got == "" {
		t.Errorf("installed.txt is empty after the start")
	}
}
