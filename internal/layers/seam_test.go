package layers

import (
	"strings"
	"testing"
)

// TestDomainKnowsNoWire: the domain owns its types and reports through
// observers it owns; the daemon and the commands convert to api's wire
// shapes once, at the edge. No other package depends on api, directly or
// not: `go list -deps ./pipeline ./sets/follow` names no api.
func TestDomainKnowsNoWire(t *testing.T) {
	const mod = "github.com/mjolnir-forge/forgesync/"
	edge := func(rel string) bool {
		return rel == "api" || rel == "daemon" || strings.HasPrefix(rel, "daemon/") || strings.HasPrefix(rel, "cmd/")
	}
	for _, p := range listPackages(t) {
		rel := strings.TrimPrefix(p.ImportPath, mod)
		if edge(rel) {
			continue
		}
		for _, d := range p.Deps {
			if d == mod+"api" {
				t.Errorf("%s depends on api: only the edge (daemon, cmd) knows the wire shapes", rel)
			}
		}
	}
}
