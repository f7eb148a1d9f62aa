package deploy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDeployMixedCaseKeepsFiles is issue 12's first bug as Windows shows
// it: the mods folder written C:\Games\… by the service and c:\games\… by
// the player's CLI. Nothing may be pruned (it was: 0 scripts, 0 DLL).
func TestDeployMixedCaseKeepsFiles(t *testing.T) {
	root := t.TempDir()
	target := filepath.Join(root, "Games", "Mods", "MJOLNIRLevelLoader", "Scripts")
	d := &Deployer{StateDir: filepath.Join(root, "state")}
	files := map[string]string{"lifts.lua": "lifts", "pack_lifts.lua": "pack"}
	deploySpelled(t, d, target, files)
	for _, sp := range []string{strings.ToLower(target), strings.ToUpper(target), target} {
		for _, r := range deploySpelled(t, d, sp, files) {
			if r.Status != Unchanged {
				t.Fatalf("Deploy(%s) report %+v; want unchanged", sp, r)
			}
		}
		for n := range files {
			if _, err := os.Stat(filepath.Join(target, n)); err != nil {
				t.Fatalf("after Deploy(%s): %s: %v; want it kept", sp, n, err)
			}
		}
		if es, _ := ledgerEntries(d.StateDir); len(es) != len(files) {
			t.Fatalf("after Deploy(%s) the ledger holds %+v; want one entry per file", sp, es)
		}
	}
}
