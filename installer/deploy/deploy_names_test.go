package deploy

import (
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"
)

// TestDeployNonUTF8Target: with a mods folder whose name is not UTF-8
// (Latin-1 bytes), a second deploy knows the files it wrote. The ledger
// kept their paths as JSON strings, which replaced those bytes: the files
// then looked foreign and were never updated again.
func TestDeployNonUTF8Target(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "darwin" {
		t.Skip("the file system takes only valid names")
	}
	f := newFixture(t)
	f.target = filepath.Join(filepath.Dir(f.state), "mods-f\xfcr", "MJOLNIRLobby", "dlls")
	reps := f.deploy(src(map[string]string{"forge_doors.dll": "MZ v1"}), "forge_doors.dll")
	if got := statuses(reps); !slices.Equal(got, []DeployStatus{Deployed}) {
		t.Fatalf("first Deploy statuses = %v; want deployed", got)
	}
	if _, ok := f.ledger()[f.path("forge_doors.dll")]; !ok {
		t.Fatalf("ledger = %v; want an entry for %q", f.ledger(), f.path("forge_doors.dll"))
	}
	f.clock = f.clock.Add(time.Hour)
	reps = f.deploy(src(map[string]string{"forge_doors.dll": "MZ v2"}), "forge_doors.dll")
	if got := statuses(reps); !slices.Equal(got, []DeployStatus{Deployed}) || f.read("forge_doors.dll") != "MZ v2" {
		t.Fatalf("second Deploy statuses = %v, file %q; want it deployed again", got, f.read("forge_doors.dll"))
	}
}
