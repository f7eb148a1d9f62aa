package api

import "slices"

// Result is what happened to one archive.
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
	// ResultKept: another profile than own was current (SPEC §12); the
	// valid pack joined own, and is installed when own is current again.
	ResultKept Result = "kept-for-own"
)

// Outcome is the fate of one archive in a transaction.
type Outcome struct {
	Archive  string   `json:"archive"` // the file name as dropped
	Result   Result   `json:"result"`
	Pack     string   `json:"pack,omitempty"`
	Version  string   `json:"version,omitempty"`
	Previous string   `json:"previous,omitempty"` // the version replaced
	Reasons  []Reason `json:"reasons,omitempty"`  // why it was rejected, or waits
}

// Summary is the result of one transaction: what the CLI prints and what
// the status socket answers a mutation with.
type Summary struct {
	Outcomes  []Outcome `json:"outcomes"`
	Published []string  `json:"published"` // inventory files rewritten (unchanged ones are not)
	Warnings  []string  `json:"warnings"`
	// DurationSeconds is how long the transaction took, in seconds, as
	// every other duration on the wire says it.
	DurationSeconds float64 `json:"duration_s"`
	// DurationNanos is the same duration in nanoseconds, the unit this
	// answer used before duration_s, kept one release for the clients
	// built on it: the document marks it deprecated, and it goes in the
	// next release.
	DurationNanos int64 `json:"duration_ns,omitempty"`
	// Generation is the generation the transaction recorded; 0 when the
	// installed set did not change.
	Generation int `json:"generation,omitempty"`
	// Set is what a set apply or a rollback changed.
	Set *SetResult `json:"set,omitempty"`
	// RolledBackTo is the generation a rollback went back to; 0 for
	// every other transaction.
	RolledBackTo int `json:"rolled_back_to,omitempty"`
	// Switched is what a profile switch changed (the data of its
	// profile-switched event); absent for every other transaction.
	Switched *ProfileSwitched `json:"switched,omitempty"`
	// Pending is what waits for the machine's condition besides
	// archives (an inventory file the game holds, so not yet published;
	// an interrupted set apply not yet finished), each with what stops
	// it and what to do; the next pass tries again.
	Pending []Reason `json:"pending,omitempty"`
}

// SetResult is what a set apply or a rollback changed: the data of the
// set-applied event (SPEC §10.3).
type SetResult struct {
	Fingerprint string      `json:"fingerprint"`          // of the enabled packs afterwards
	Generation  int         `json:"generation,omitempty"` // the generation recorded; 0 when nothing changed
	Installed   []SetChange `json:"installed"`
	Upgraded    []SetChange `json:"upgraded"`
	Downgraded  []SetChange `json:"downgraded"`
	Reinstalled []SetChange `json:"reinstalled,omitempty"` // the same version from other bytes
	Enabled     []string    `json:"enabled,omitempty"`
	Disabled    []string    `json:"disabled"`
	Removed     []string    `json:"removed"`
}

// SetChange is one pack a set apply installed at another version.
type SetChange struct {
	ID       string `json:"id"`
	Version  string `json:"version"`
	Previous string `json:"previous,omitempty"`
}

// Rejected reports whether any archive in the summary was rejected.
func (s *Summary) Rejected() bool {
	return slices.ContainsFunc(s.Outcomes, func(o Outcome) bool { return o.Result == ResultRejected })
}

// Waiting reports whether anything in the summary waits for a fault of the
// machine to pass: an archive, or what Pending names.
func (s *Summary) Waiting() bool {
	return len(s.Pending) > 0 || slices.ContainsFunc(s.Outcomes, func(o Outcome) bool { return o.Result == ResultWaiting })
}
