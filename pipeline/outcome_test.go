package pipeline

import (
	"testing"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/inventory"
)

// TestWireResultEveryOutcome: every install outcome has its own wire
// result, and every wire result but waiting is some outcome's.
func TestWireResultEveryOutcome(t *testing.T) {
	seen := map[api.Result]inventory.Outcome{}
	for _, o := range inventory.Outcomes {
		r := wireResult(o)
		if r == "" {
			t.Errorf("wireResult(%q) is empty", o)
		}
		if other, ok := seen[r]; ok {
			t.Errorf("wireResult(%q) = %q, as for %q; want one result per outcome", o, r, other)
		}
		seen[r] = o
	}
	for _, r := range []api.Result{api.ResultInstalled, api.ResultUpgraded, api.ResultReinstalled, api.ResultDowngraded, api.ResultAlready, api.ResultRejected} {
		if _, ok := seen[r]; !ok {
			t.Errorf("wire result %q is no install outcome's", r)
		}
	}
	if _, ok := seen[api.ResultWaiting]; ok {
		t.Errorf("an install outcome maps to %q, which only the machine's faults give", api.ResultWaiting)
	}
	if len(wireResults) != len(inventory.Outcomes) {
		t.Errorf("wireResults has %d entries for %d outcomes", len(wireResults), len(inventory.Outcomes))
	}
}

func TestWireResultUnknownPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("wireResult of an unknown outcome did not panic")
		}
	}()
	wireResult("exploded")
}
