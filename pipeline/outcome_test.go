package pipeline

import (
	"testing"

	"github.com/mjolnir-forge/forgesync/inventory"
)

// TestResultEveryOutcome: every install outcome has its own result, and
// every result but waiting is some outcome's.
func TestResultEveryOutcome(t *testing.T) {
	seen := map[Result]inventory.Outcome{}
	for _, o := range inventory.Outcomes {
		r := resultOf(o)
		if r == "" {
			t.Errorf("resultOf(%q) is empty", o)
		}
		if other, ok := seen[r]; ok {
			t.Errorf("resultOf(%q) = %q, as for %q; want one result per outcome", o, r, other)
		}
		seen[r] = o
	}
	for _, r := range []Result{ResultInstalled, ResultUpgraded, ResultReinstalled, ResultDowngraded, ResultAlready, ResultRejected} {
		if _, ok := seen[r]; !ok {
			t.Errorf("result %q is no install outcome's", r)
		}
	}
	if _, ok := seen[ResultWaiting]; ok {
		t.Errorf("an install outcome maps to %q, which only the machine's faults give", ResultWaiting)
	}
	if len(outcomeResults) != len(inventory.Outcomes) {
		t.Errorf("outcomeResults has %d entries for %d outcomes", len(outcomeResults), len(inventory.Outcomes))
	}
}

func TestResultUnknownPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("resultOf an unknown outcome did not panic")
		}
	}()
	resultOf("exploded")
}
