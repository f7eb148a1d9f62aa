package pipeline

import (
	"fmt"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/inventory"
)

// wireResults names every install outcome on the wire. The outcomes are
// inventory's; api.ResultWaiting is not among them, because a waiting
// archive has no outcome yet (the machine, not the pack, stopped it).
var wireResults = map[inventory.Outcome]api.Result{
	inventory.OutcomeInstalled:   api.ResultInstalled,
	inventory.OutcomeUpgraded:    api.ResultUpgraded,
	inventory.OutcomeAlready:     api.ResultAlready,
	inventory.OutcomeReinstalled: api.ResultReinstalled,
	inventory.OutcomeDowngraded:  api.ResultDowngraded,
	inventory.OutcomeRejected:    api.ResultRejected,
}

// wireResult returns the api.Result of an install outcome: the one place
// the pipeline turns the one into the other. An outcome the table lacks is
// a programming error (a test holds the table whole), so it panics.
func wireResult(o inventory.Outcome) api.Result {
	r, ok := wireResults[o]
	if !ok {
		panic(fmt.Sprintf("pipeline: install outcome %q has no wire result", o))
	}
	return r
}
