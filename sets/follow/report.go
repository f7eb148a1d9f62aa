package follow

import (
	"time"

	"github.com/mjolnir-forge/forgesync/pipeline"
	"github.com/mjolnir-forge/forgesync/sets/fetch"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// Observer hears what a Syncer does as it does it: the daemon turns each
// call into an event of its stream (SPEC §10.3), a command run locally
// prints each download's start. Downloading is called from the
// goroutines of a sync's downloads, maybe at once; no call may block for
// long. Embed [NopObserver] to hear only some.
type Observer interface {
	// Checked: a sync read a set's source and ended, whatever it did.
	Checked(c Check)
	// Downloading: how far the download of one archive is; at most once
	// every downloadEvery per archive, and the last.
	Downloading(p fetch.Progress)
}

// NopObserver hears nothing: the Observer of a Syncer given none, and the
// one to embed in an Observer that hears only some calls.
type NopObserver struct{}

// Checked does nothing.
func (NopObserver) Checked(Check) {}

// Downloading does nothing.
func (NopObserver) Downloading(fetch.Progress) {}

// CheckResult is how a check of a set's source ended.
type CheckResult string

// The results of a Check.
const (
	// CheckEqual: the machine equals the set; nothing was done.
	CheckEqual CheckResult = "equal"
	// CheckApplied: the machine was changed to the set.
	CheckApplied CheckResult = "applied"
	// CheckFailed: the lock, its signature or a download failed; nothing
	// changed.
	CheckFailed CheckResult = "failed"
	// CheckRefused: the install rules refused the set; nothing changed.
	CheckRefused CheckResult = "refused"
)

// Check is one check of a set's source: when, where from (its password
// redacted), how it ended, the set's fingerprint, whether the source
// showed the lock unchanged since the last check (an HTTP 304, or an OCI
// tag still at its digest), the failure in words, the sum of the
// archives rebuilt from chunks (SPEC §10.2a; nil when none was), and each
// archive downloaded whole though its pack names a chunk index, with why
// ("PACK: CAUSE").
type Check struct {
	Time        time.Time
	Source      string
	Result      CheckResult
	Fingerprint string
	NotModified bool
	Error       string
	Delta       *fetch.DeltaStats
	Fallbacks   []string
	// PeerBytes and MirrorBytes are the bytes the check's downloads took
	// from LAN peers (SPEC §13) and from mirrors and chunk stores; those
	// from seeds are Delta's.
	PeerBytes, MirrorBytes int64
}

// Result is what a sync did: the check, the key id of a verified
// signature, the archives it downloaded (each with the mirror or chunk
// store that served it; none when the machine had them all), and the
// apply's transaction when one ran (its Set says what changed).
type Result struct {
	Check      Check
	SignedBy   string
	Downloaded []Download
	Summary    *pipeline.Summary
}

// Download is one archive a sync fetched: its pack, the mirror or chunk
// store that served it (its password redacted), its size, how it was
// rebuilt from chunks (nil for a whole download), and why an archive whose
// pack names a chunk index was downloaded whole.
type Download struct {
	Pack     string
	URL      string
	Bytes    int64
	Delta    *fetch.DeltaStats
	Fallback string
}

// Status is how the machine stands against its set: where the set comes
// from, its name, fingerprint and signer, whether the daemon follows it,
// the last check and the last apply that changed the machine, the
// fingerprint of the machine's enabled packs and whether it equals the
// set (and if not, how it differs), and the lock's serial and expiry
// (SPEC §10.2c; 0 and nil when it has none).
type Status struct {
	Source      string
	Name        string
	Fingerprint string
	SignedBy    string
	Following   bool
	LastCheck   *Check
	LastApply   *StoredApply
	Machine     string
	Equal       bool
	Differences []lock.Difference
	Serial      int64
	Expires     *time.Time
	// Paused, when set, says a set applied by hand paused following.
	Paused *Pause
	// LastDownload is the last check that downloaded an archive.
	LastDownload *Check
}
