package daemon

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mjolnir-forge/forgesync/config"
	"github.com/mjolnir-forge/forgesync/native"
	"github.com/mjolnir-forge/forgesync/pipeline"
)

// TestModulesOnDisk: without a daemon, door automation can work only
// with the mods at their minimum versions, [deploy] native on, and the
// module deployed into the mods folder.
func TestModulesOnDisk(t *testing.T) {
	mods := t.TempDir()
	for mod, v := range map[string]string{native.ModForge: native.MinForge, native.ModLobby: "v" + native.MinLobby, native.ModLevelLoader: native.MinLevelLoader} {
		if err := os.MkdirAll(filepath.Join(mods, mod), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(mods, mod, native.ModVersionFile), []byte(v+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := config.Default()
	cfg.Paths.Mods = mods
	if m := modulesOnDisk(cfg); m.DoorAutomation || !m.Gates.DoorAutomation {
		t.Errorf("without the module deployed: door automation %v, gates %v; want off, met", m.DoorAutomation, m.Gates.DoorAutomation)
	}
	module := filepath.Join(mods, filepath.FromSlash(native.ModulePath()))
	if err := os.MkdirAll(filepath.Dir(module), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(module, []byte("MZ"), 0o644); err != nil {
		t.Fatal(err)
	}
	if m := modulesOnDisk(cfg); !m.DoorAutomation {
		t.Errorf("with the module deployed and the gates met: door automation off; want can work")
	}
	cfg.Deploy.Native = false
	if m := modulesOnDisk(cfg); m.DoorAutomation || m.DoorAutomationOff != pipeline.NativeOff {
		t.Errorf("with [deploy] native = false: door automation %v (%q); want off, saying why", m.DoorAutomation, m.DoorAutomationOff)
	}
}
