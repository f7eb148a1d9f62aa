package api

import "time"

// Profiles is the answer of GET /v1/profiles (SPEC §12): the current
// profile's name and every profile kept on the machine, own first, then
// the most recently used.
type Profiles struct {
	Current  string    `json:"current"`
	Profiles []Profile `json:"profiles"`
}

// Profile is one named set kept on the machine: where it came from
// (own, saved, staged or followed), the fingerprint of its enabled packs,
// its packs, whether it is current, when it was last current, the packs
// whose archives are not kept (a switch to it needs none of the network
// when this is empty), and the disk its kept archives take: in all, and
// only its own (held by no other profile).
type Profile struct {
	Name        string           `json:"name"`
	Source      ProfileSource    `json:"source"`
	Fingerprint string           `json:"fingerprint"`
	Current     bool             `json:"current"`
	LastUsed    time.Time        `json:"last_used"`
	Packs       []GenerationPack `json:"packs"`
	Missing     []GenerationPack `json:"missing"`
	Bytes       int64            `json:"bytes"`
	OwnBytes    int64            `json:"own_bytes"`
}

// ProfileSource says where a profile's set came from.
type ProfileSource string

// The sources of a profile (SPEC §12).
const (
	ProfileOwn      ProfileSource = "own"      // the packs dropped or installed by hand
	ProfileSaved    ProfileSource = "saved"    // `profile save`
	ProfileStaged   ProfileSource = "staged"   // a set staged for a server
	ProfileFollowed ProfileSource = "followed" // a set applied as a profile, or followed
)

// ProfileName is the body of POST /v1/profile/switch, /v1/profile/save
// and /v1/profile/remove: the profile's name.
type ProfileName struct {
	Name string `json:"name"`
}
