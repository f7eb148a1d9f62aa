package api

import "time"

// The event types of pack sets (SPEC §10.3).
const (
	EventSetChecked EventType = "set-checked"
	EventDownload   EventType = "download"
)

// SetEntry is what identifies a pack in a set (SPEC §10.1): its id,
// version and the SHA-256 of its archive; what enters a fingerprint.
type SetEntry struct {
	ID      string `json:"id"`
	Version string `json:"version"`
	SHA256  string `json:"sha256"`
}

// SetPack is one pack installed on a machine as a set sees it: the packs
// of GET /v1/set, and the "have" side of a difference.
type SetPack struct {
	ID      string `json:"id"`
	Version string `json:"version"`
	SHA256  string `json:"sha256"` // of the archive it was installed from
	Enabled bool   `json:"enabled"`
}

// DifferenceKind says how a machine differs from a set for one pack.
type DifferenceKind string

// The kinds of difference, in the words of SPEC §10.2.
const (
	// DiffMissing: the set pins a pack the machine does not have.
	DiffMissing DifferenceKind = "missing"
	// DiffOtherVersion: the machine has the pack at another version
	// (enabled or not).
	DiffOtherVersion DifferenceKind = "other-version"
	// DiffOtherBytes: the machine has the pinned version from an archive
	// with other bytes.
	DiffOtherBytes DifferenceKind = "other-bytes"
	// DiffDisabled: the machine has exactly the pinned pack, disabled.
	DiffDisabled DifferenceKind = "disabled"
	// DiffNotInSet: the machine has a pack enabled that the set does not
	// pin.
	DiffNotInSet DifferenceKind = "not-in-set"
)

// SetDifference is how a machine differs from a set for one pack id.
type SetDifference struct {
	Kind DifferenceKind `json:"kind"`
	ID   string         `json:"id"`
	// Want is what the set pins; nil for DiffNotInSet.
	Want *SetEntry `json:"want,omitempty"`
	// Have is what the machine has; nil for DiffMissing.
	Have *SetPack `json:"have,omitempty"`
}

// SetComparison is a machine compared with a set: what `forgesync diff`
// prints and POST /v1/set/diff answers.
type SetComparison struct {
	Set         string          `json:"set_fingerprint"`
	Machine     string          `json:"machine_fingerprint"`
	Equal       bool            `json:"equal"`
	Differences []SetDifference `json:"differences"`
}

// SetInfo is the answer of GET /v1/set: the machine's packs and their
// fingerprint (what a launcher compares with a host's lock), and the set
// the daemon follows or last applied.
type SetInfo struct {
	// Fingerprint is the machine's: of its enabled packs.
	Fingerprint string    `json:"fingerprint"`
	Packs       []SetPack `json:"packs"`
	// Source is the lock followed ([sets] source) or last applied; empty
	// when none.
	Source string `json:"source"`
	// SignedBy is the key id of the set's verified signature; empty when
	// it is unsigned or not checked against trusted keys.
	SignedBy string `json:"signed_by"`
	// LastCheck and LastApply are the last check of the source and the
	// last apply that changed the machine; absent before the first (never
	// null: generated clients take an optional object, not a null one).
	LastCheck *SetCheck  `json:"last_check,omitempty"`
	LastApply *SetApply  `json:"last_apply,omitempty"`
	Set       *SetStatus `json:"set,omitempty"`
}

// SetStatus is the part of GET /v1/status (and of GET /v1/set) that says
// how the machine stands against its set: the set's fingerprint, where it
// comes from, and whether the machine equals it, and if not, how it
// differs. Nil when the machine has no set.
type SetStatus struct {
	Source      string `json:"source"`
	Name        string `json:"name,omitempty"`
	Fingerprint string `json:"fingerprint"` // the set's
	// Machine is the fingerprint of the machine's enabled packs.
	Machine     string          `json:"machine_fingerprint"`
	Equal       bool            `json:"equal"`
	Differences []SetDifference `json:"differences"`
	SignedBy    string          `json:"signed_by,omitempty"`
	// Following is set when the daemon follows Source ([sets] source).
	Following bool      `json:"following"`
	LastCheck *SetCheck `json:"last_check,omitempty"`
	LastApply *SetApply `json:"last_apply,omitempty"`
	// Serial is the set's lock's serial (SPEC §10.2c), 0 when it has none;
	// Expires when the lock stops being valid, nil when it never does.
	Serial  int64      `json:"serial,omitempty"`
	Expires *time.Time `json:"expires,omitempty"`
	// Paused, when set, says a set applied by hand paused following.
	Paused *SetPause `json:"paused,omitempty"`
	// LastDownload is the last check that downloaded an archive, with its
	// delta figures: they stay until the next download, whatever checks
	// with nothing new (a 304) come between.
	LastDownload *SetCheck `json:"last_download,omitempty"`
}

// SetPause says that a set applied by hand pinned a machine that follows
// [sets] source: the daemon checks nothing until following is resumed.
type SetPause struct {
	// Since is when the set was applied by hand.
	Since time.Time `json:"since"`
	// Source is where that set came from, "(request body)" for a lock
	// sent as text; Fingerprint is its.
	Source      string `json:"source"`
	Fingerprint string `json:"fingerprint"`
	// Following is the source that is not checked meanwhile.
	Following string `json:"following"`
	// Resume says how to follow again.
	Resume string `json:"resume"`
}

// SetCheck is one check of a set's source: the data of the set-checked
// event.
type SetCheck struct {
	Time   time.Time `json:"time"`
	Source string    `json:"source"`
	// Result is CheckEqual (the machine equals the set: nothing done),
	// CheckApplied (the machine was changed to the set), CheckRefused (the
	// install rules refused the set: nothing changed) or CheckFailed (the
	// lock, its signature or a download failed: nothing changed).
	Result      string `json:"result"`
	Fingerprint string `json:"fingerprint,omitempty"` // the set's
	// NotModified is set when the source showed the lock unchanged since
	// the last check: an HTTP 304 to a conditional request, or an OCI
	// tag still at the manifest digest it had.
	NotModified bool   `json:"not_modified,omitempty"`
	Error       string `json:"error,omitempty"`
	// Delta sums the check's archives rebuilt from chunks (SPEC §10.2a);
	// nil when none was.
	Delta *DeltaStats `json:"delta,omitempty"`
	// Fallbacks name each archive downloaded whole though its pack names a
	// chunk index, and why: "PACK: CAUSE".
	Fallbacks []string `json:"fallbacks,omitempty"`
	// PeerBytes and MirrorBytes are the bytes the check's downloads took
	// from LAN peers (SPEC §13) and from mirrors and chunk stores.
	PeerBytes   int64 `json:"peer_bytes,omitempty"`
	MirrorBytes int64 `json:"mirror_bytes,omitempty"`
}

// The results of a SetCheck.
const (
	CheckEqual   = "equal"
	CheckApplied = "applied"
	CheckFailed  = "failed"
	CheckRefused = "refused"
)

// SetApply is the last apply that changed the machine.
type SetApply struct {
	Time        time.Time `json:"time"`
	Fingerprint string    `json:"fingerprint"`
	Generation  int       `json:"generation,omitempty"`
}

// Download is the data of [EventDownload]: how far the download of one
// pack's archive is.
type Download struct {
	Pack  string `json:"pack"`
	URL   string `json:"url"`
	Done  int64  `json:"done"`
	Total int64  `json:"total"`
	// Delta, in the last event of an archive rebuilt from chunks (SPEC
	// §10.2a), says where its bytes came from.
	Delta *DeltaStats `json:"delta,omitempty"`
	// Fallback says why an archive whose pack names a chunk index is
	// downloaded whole.
	Fallback string `json:"fallback,omitempty"`
	// PeerBytes and MirrorBytes say where Done came from: LAN peers
	// (SPEC §13) or mirrors; for an archive rebuilt from chunks, in its
	// last event, the chunks' bytes (Delta.SeedBytes came from seeds).
	PeerBytes   int64 `json:"peer_bytes"`
	MirrorBytes int64 `json:"mirror_bytes"`
}

// DeltaStats say how an archive was rebuilt from chunks (SPEC §10.2a):
// its bytes copied from earlier archives the machine keeps (seeds), those
// fetched from the chunk store, and what that cost on the wire.
type DeltaStats struct {
	SeedBytes     int64 `json:"seed_bytes"`
	FetchedBytes  int64 `json:"fetched_bytes"`
	SeedChunks    int   `json:"seed_chunks"`
	FetchedChunks int   `json:"fetched_chunks"`
	// Requests and WireBytes count the HTTP requests for the index and
	// the chunks, and the (compressed) bytes they brought.
	Requests  int64 `json:"requests"`
	WireBytes int64 `json:"wire_bytes"`
}

// SetApplyRequest is the body of POST /v1/set/apply: a URL (or a path the
// daemon can read, or an oci:// reference) of a lock, or a lock's text
// with its signature.
type SetApplyRequest struct {
	URL string `json:"url,omitempty"`
	// Lock is a lock file's text (TOML); Signature its .minisig, if any.
	Lock      string `json:"lock,omitempty"`
	Signature string `json:"signature,omitempty"`
	// Prune removes the installed packs the set does not pin, instead of
	// disabling them.
	Prune bool `json:"prune,omitempty"`
	// Fingerprint applies the staged set with this fingerprint (SPEC §12):
	// a switch to its profile, from archives on the machine, with no
	// network. It goes alone.
	Fingerprint string `json:"fingerprint,omitempty"`
}

// SetSyncResult is what `forgesync sync --set` and POST /v1/set/apply
// answer: the check, and the transaction's summary when one ran.
type SetSyncResult struct {
	Check SetCheck `json:"check"`
	// SignedBy is the key id of a verified signature.
	SignedBy string `json:"signed_by,omitempty"`
	// Downloaded are the archives fetched, with the mirror that served
	// each; empty when the machine had them all.
	Downloaded []Downloaded `json:"downloaded"`
	// Summary is the apply's transaction; its Set says what changed.
	Summary *Summary `json:"summary,omitempty"`
}

// Downloaded is one archive a set sync fetched.
type Downloaded struct {
	Pack  string `json:"pack"`
	URL   string `json:"url"`
	Bytes int64  `json:"bytes"`
	// Delta is set for an archive rebuilt from chunks; URL is then the
	// chunk store.
	Delta *DeltaStats `json:"delta,omitempty"`
	// Fallback says why an archive whose pack names a chunk index was
	// downloaded whole.
	Fallback string `json:"fallback,omitempty"`
}

// EventType returns [EventSetChecked].
func (SetCheck) EventType() EventType { return EventSetChecked }

// EventType returns [EventDownload].
func (Download) EventType() EventType { return EventDownload }
