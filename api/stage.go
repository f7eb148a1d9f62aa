package api

// EventSetStaged follows a stage that ended with the set on the machine
// (SPEC §12); its data is a [SetStaged].
const EventSetStaged EventType = "set-staged"

// SetStageRequest is the body of POST /v1/set/stage: a lock's URL (an
// http(s) URL, an oci:// reference, or over the local socket a path the
// daemon can read) or its text with its signature, the name of the
// profile it becomes, and the public key the player trusts for this set.
type SetStageRequest struct {
	URL       string `json:"url,omitempty"`
	Lock      string `json:"lock,omitempty"`
	Signature string `json:"signature,omitempty"`
	// As names the profile; empty: the set's name, else "set-" and its
	// fingerprint's first 12 digits.
	As string `json:"as,omitempty"`
	// Key is a minisign public key ("RW…"): a set signed by a key outside
	// [sets] trusted_keys is staged only when the request names it.
	Key string `json:"key,omitempty"`
}

// SetStageResult is what `forgesync stage` and POST /v1/set/stage answer.
type SetStageResult struct {
	Check SetCheck `json:"check"`
	// Name is the profile the set became.
	Name string `json:"name"`
	// Fingerprint is the set's: POST /v1/set/apply {"fingerprint"} applies
	// it with no network.
	Fingerprint string `json:"fingerprint"`
	SignedBy    string `json:"signed_by,omitempty"`
	// Downloaded are the archives fetched; empty when the machine had them
	// all.
	Downloaded []Downloaded `json:"downloaded"`
	// Bytes is what the stage fetched over the network (for an archive
	// rebuilt from chunks, the chunks' bytes on the wire); SetBytes the
	// size of all the set's archives.
	Bytes    int64 `json:"bytes"`
	SetBytes int64 `json:"set_bytes"`
}

// SetStaged is the data of [EventSetStaged].
type SetStaged struct {
	Name        string `json:"name"`
	Fingerprint string `json:"fingerprint"`
	// Bytes is what the stage fetched over the network.
	Bytes int64 `json:"bytes"`
}

// EventType returns [EventSetStaged].
func (SetStaged) EventType() EventType { return EventSetStaged }

// SetFingerprintCheck is the answer of GET /v1/set/check?fingerprint=…:
// how a server's set stands on this machine, for a launcher's server list.
type SetFingerprintCheck struct {
	// Fingerprint is the one asked about; Machine the fingerprint of the
	// machine's enabled packs.
	Fingerprint string `json:"fingerprint"`
	Machine     string `json:"machine"`
	// Current: the machine's enabled packs are that set now.
	Current bool `json:"current"`
	// Profile names the profile kept with that set, when one is: then
	// POST /v1/set/apply {"fingerprint"} switches to it with no network.
	Profile string `json:"profile,omitempty"`
	// Staged: every archive of that profile is on the machine.
	Staged bool `json:"staged"`
}
