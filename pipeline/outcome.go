package pipeline

import (
	"fmt"

	"github.com/mjolnir-forge/forgesync/inventory"
)

// Result is what happened to one archive in a transaction.
type Result string

// The results of an archive.
const (
	ResultInstalled   Result = "installed"
	ResultUpgraded    Result = "upgraded"
	ResultReinstalled Result = "reinstalled"
	ResultDowngraded  Result = "downgraded"
	ResultAlready     Result = "already-installed"
	ResultRejected    Result = "rejected"
	// ResultWaiting: the machine, not the archive, stopped it (a file
	// held by the game, a full disk, a read-only file, a failed process
	// start). The archive waits in the drop folder and is tried again at
	// the next pass; its reasons say what happened and what to do.
	ResultWaiting Result = "waiting"
	// ResultKept: a valid pack that arrived while another profile than
	// own was current (SPEC §12) joined own: its archive is kept, and it
	// is installed when own is current again.
	ResultKept Result = "kept-for-own"
)

// outcomeResults names the Result of every install outcome. The outcomes are
// inventory's; ResultWaiting is not among them, because a waiting archive
// has no outcome yet (the machine, not the pack, stopped it).
var outcomeResults = map[inventory.Outcome]Result{
	inventory.OutcomeInstalled:   ResultInstalled,
	inventory.OutcomeUpgraded:    ResultUpgraded,
	inventory.OutcomeAlready:     ResultAlready,
	inventory.OutcomeReinstalled: ResultReinstalled,
	inventory.OutcomeDowngraded:  ResultDowngraded,
	inventory.OutcomeRejected:    ResultRejected,
}

// resultOf returns the Result of an install outcome: the one place the
// pipeline turns the one into the other. An outcome the table lacks is a
// programming error (a test holds the table whole), so it panics.
func resultOf(o inventory.Outcome) Result {
	r, ok := outcomeResults[o]
	if !ok {
		panic(fmt.Sprintf("pipeline: install outcome %q has no result", o))
	}
	return r
}
