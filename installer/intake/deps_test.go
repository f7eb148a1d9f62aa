package intake

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/internal/toolcheck"
)

// TestDeps holds the layering of DESIGN.md: intake unpacks and checks
// packs; it knows nothing of the manifest rules (inventory), the sync loop
// (pipeline), the service (daemon), the store, placement or deployment
// above it, and nothing of fsnotify.
func TestDeps(t *testing.T) {
	goTool := toolcheck.Need(t, "go")[0]
	out, err := exec.Command(goTool, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	const mod = "github.com/mjolnir-forge/forgesync/"
	for dep := range strings.Lines(string(out)) {
		dep = strings.TrimSpace(dep)
		for _, bad := range []string{mod + "inventory", mod + "pipeline", mod + "daemon", mod + "cmd/", mod + "store", mod + "place", mod + "deploy", mod + "api", "github.com/fsnotify/", "github.com/kardianos/service"} {
			if strings.HasPrefix(dep, bad) {
				t.Errorf("intake depends on %s; the layers of DESIGN.md forbid it", dep)
			}
		}
	}
}
