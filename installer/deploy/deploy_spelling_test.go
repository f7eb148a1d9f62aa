package deploy

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
)

// deploySpelled deploys names to the target spelled as dir, and fails the
// test on an error.
func deploySpelled(t *testing.T, d *Deployer, dir string, files map[string]string) []FileReport {
	t.Helper()
	var names []string
	for n := range files {
		names = append(names, n)
	}
	reps, err := d.Deploy(t.Context(), Deployment{Component: "lua", Source: src(files), Names: sortedNames(names), Target: dir})
	if err != nil {
		t.Fatalf("Deploy(%s) error: %v", dir, err)
	}
	return reps
}

func sortedNames(n []string) []string {
	for i := range n {
		for j := i + 1; j < len(n); j++ {
			if n[j] < n[i] {
				n[i], n[j] = n[j], n[i]
			}
		}
	}
	return n
}

// TestDeployOneFolderManySpellings deploys the same scripts into one folder
// spelled three ways (as is, through a linked parent as a Steam library
// often is, and with a "." and a trailing separator): the ledger holds one
// entry per file, nothing is pruned, and a script that a later version
// drops is removed once, whatever the spelling it was recorded under.
func TestDeployOneFolderManySpellings(t *testing.T) {
	root := t.TempDir()
	real := filepath.Join(root, "Games", "Mods", "MJOLNIRLevelLoader", "Scripts")
	if err := os.MkdirAll(real, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "Games"), filepath.Join(root, "Library")); err != nil {
		t.Skipf("symlinks not available: %v", err)
	}
	sep := string(filepath.Separator)
	spellings := []string{
		real,
		filepath.Join(root, "Library", "Mods", "MJOLNIRLevelLoader", "Scripts"),
		filepath.Join(root, "Games", "Mods") + sep + "." + sep + "MJOLNIRLevelLoader" + sep + "Scripts" + sep,
	}
	d := &Deployer{StateDir: filepath.Join(root, "state")}
	files := map[string]string{"lifts.lua": "lifts", "pack_lifts.lua": "pack"}
	for _, sp := range spellings {
		for _, r := range deploySpelled(t, d, sp, files) {
			if r.Status == removed || r.Status == DeployFailed {
				t.Fatalf("Deploy(%s) report %+v; want nothing removed or failed", sp, r)
			}
		}
		for n, want := range files {
			if b, err := os.ReadFile(filepath.Join(real, n)); err != nil || string(b) != want {
				t.Fatalf("after Deploy(%s): %s = %q, %v; want %q", sp, n, b, err, want)
			}
		}
		es, err := ledgerEntries(d.StateDir)
		if err != nil {
			t.Fatal(err)
		}
		if len(es) != len(files) {
			t.Fatalf("after Deploy(%s) the ledger holds %d entries %+v; want %d, one per file", sp, len(es), es, len(files))
		}
	}
	// A later version drops pack_lifts.lua: it goes, lifts.lua stays.
	reps := deploySpelled(t, d, spellings[1], map[string]string{"lifts.lua": "lifts"})
	if len(reps) != 2 || reps[1].Status != removed {
		t.Fatalf("reports = %+v; want lifts.lua unchanged, pack_lifts.lua removed", reps)
	}
	if _, err := os.Stat(filepath.Join(real, "lifts.lua")); err != nil {
		t.Fatalf("lifts.lua after the prune: %v; want it kept", err)
	}
	if _, err := os.Stat(filepath.Join(real, "pack_lifts.lua")); !os.IsNotExist(err) {
		t.Fatalf("pack_lifts.lua after the prune: %v; want it removed", err)
	}
}

// TestDeployTargetHeldWithoutSharing plays a game holding the module with
// share mode 0: even reading it fails busy. The new bytes are staged
// beside it (they failed before: the read came before the retrying
// rename), and swapped in once it is let go.
func TestDeployTargetHeldWithoutSharing(t *testing.T) {
	f := newFixture(t)
	f.deploy(src(map[string]string{"forge_doors.dll": "v1"}), "forge_doors.dll")
	dll := f.path("forge_doors.dll")
	held := true
	r := f.locks.renamer()
	r.OpenRead = func(p string) (*os.File, error) {
		if held && p == dll {
			return nil, &os.PathError{Op: "open", Path: p, Err: errLocked}
		}
		return os.Open(p)
	}
	f.d.Renamer = r
	f.locks.set(dll, true)
	reps := f.deploy(src(map[string]string{"forge_doors.dll": "v2"}), "forge_doors.dll")
	if reps[0].Status != StagedLocked || reps[0].Staged != dll+PendingSuffix {
		t.Fatalf("report for a target held with share mode 0 = %+v; want staged-locked", reps[0])
	}
	if b, _ := os.ReadFile(dll + PendingSuffix); string(b) != "v2" {
		t.Fatalf("staged = %q; want v2", b)
	}
	held = false
	f.locks.set(dll, false)
	reps = f.deploy(src(map[string]string{"forge_doors.dll": "v2"}), "forge_doors.dll")
	if reps[0].Status != Deployed || f.read("forge_doors.dll") != "v2" {
		t.Fatalf("after release: %+v, target %q; want deployed v2", reps[0], f.read("forge_doors.dll"))
	}
}

// TestDeployRefusesALinkedFolder: the scripts folder made a link to another
// folder must not receive forgesync's files (nor have them pruned there).
func TestDeployRefusesALinkedFolder(t *testing.T) {
	root := t.TempDir()
	mods := filepath.Join(root, "Mods")
	elsewhere := filepath.Join(root, "elsewhere")
	if err := os.MkdirAll(filepath.Join(mods, "MJOLNIRLevelLoader"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(elsewhere, 0o755)
	link := filepath.Join(mods, "MJOLNIRLevelLoader", "Scripts")
	if err := os.Symlink(elsewhere, link); err != nil {
		t.Skip(err)
	}
	d := &Deployer{StateDir: filepath.Join(root, "state")}
	_, err := d.DeployLua(t.Context(), mods)
	if !errors.Is(err, atomicfile.ErrLink) || !strings.Contains(err.Error(), link) {
		t.Fatalf("DeployLua into a linked Scripts folder = %v; want ErrLink naming %s", err, link)
	}
	if left, _ := os.ReadDir(elsewhere); len(left) != 0 {
		t.Fatalf("files written through the link: %v", left)
	}
	// The native module's subfolders are checked per file.
	os.Remove(link)
	dlls := filepath.Join(mods, "MJOLNIRLobby")
	if err := os.Symlink(elsewhere, dlls); err != nil {
		t.Fatal(err)
	}
	reps, err := d.Deploy(t.Context(), Deployment{Component: "native", Source: src(map[string]string{"MJOLNIRLobby/dlls/forge_doors.dll": "v1"}),
		Names: []string{"MJOLNIRLobby/dlls/forge_doors.dll"}, Target: mods, Base: mods})
	if !errors.Is(err, atomicfile.ErrLink) || len(reps) != 1 || reps[0].Status != DeployFailed {
		t.Fatalf("Deploy under a linked MJOLNIRLobby = %+v, %v; want a failed report and ErrLink", reps, err)
	}
	if left, _ := os.ReadDir(elsewhere); len(left) != 0 {
		t.Fatalf("files written through the link: %v", left)
	}
}
