package store

import (
	"fmt"
	"strings"
	"time"
)

// OwnProfile is the name of the player's own profile (SPEC §12): the packs
// dropped or installed by hand. It always exists.
const OwnProfile = "own"

// ProfileSource says where a profile's set came from; its owner (the
// pipeline) names the sources, the store keeps it as written.
type ProfileSource string

// Profile is a named pack set kept on the machine (SPEC §12): every pack
// with its enabled flag (sorted by id), the fingerprint of its enabled
// packs, where it came from, and when it was last current (or recorded).
// Its archives are kept under archives/ as long as the profile is.
type Profile struct {
	Name        string           `json:"name"`
	Source      ProfileSource    `json:"source"`
	Fingerprint string           `json:"fingerprint"`
	Packs       []GenerationPack `json:"packs"`
	LastUsed    time.Time        `json:"last_used"`
	// Manifests names the stored manifest (under manifests/) of each pack
	// by id, where known: own keeps them, so that a pack dropped while
	// another profile is current is judged against own's packs.
	Manifests map[string]string `json:"manifests,omitempty"`
}

// maxProfileName is the longest profile name.
const maxProfileName = 64

// CheckProfileName returns an error saying what is wrong with name as a
// profile name, or nil: 1 to 64 letters, digits, '.', '_' or '-', starting
// with a letter or digit. Names are compared without case (see
// [SameProfile]).
func CheckProfileName(name string) error {
	if name == "" || len(name) > maxProfileName {
		return fmt.Errorf("profile name %q: want 1 to %d characters", name, maxProfileName)
	}
	for i, c := range name {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || i > 0 && strings.ContainsRune("._-", c)
		if !ok {
			return fmt.Errorf("profile name %q: character %d (%q) is not a letter, a digit, or (after the first) '.', '_' or '-'", name, i+1, c)
		}
	}
	return nil
}

// SameProfile reports whether a and b name the same profile: names are
// compared without case, as a player on Windows expects.
func SameProfile(a, b string) bool { return strings.EqualFold(a, b) }

// FindProfile returns the profile called name (compared without case), or
// nil.
func (st *State) FindProfile(name string) *Profile {
	for i := range st.Profiles {
		if SameProfile(st.Profiles[i].Name, name) {
			return &st.Profiles[i]
		}
	}
	return nil
}

// CurrentProfile returns the name of the current profile: [OwnProfile]
// when the state names none.
func (st *State) CurrentProfile() string {
	if st.Profile == "" {
		return OwnProfile
	}
	return st.Profile
}

// checkProfiles says what is wrong with the profiles of a decoded state, or
// "".
func checkProfiles(st *State) string {
	seen := map[string]int{}
	for i, pr := range st.Profiles {
		if err := CheckProfileName(pr.Name); err != nil {
			return fmt.Sprintf("profile %d: %v", i, err)
		}
		if j, ok := seen[strings.ToLower(pr.Name)]; ok {
			return fmt.Sprintf("profile %s is recorded twice (profiles %d and %d)", pr.Name, j, i)
		}
		seen[strings.ToLower(pr.Name)] = i
		if pr.Source == "" {
			return fmt.Sprintf("profile %s has no source", pr.Name)
		}
		for id, m := range pr.Manifests {
			if !plainName(m) {
				return fmt.Sprintf("profile %s: the manifest of %s, %q, is not a plain file name", pr.Name, id, m)
			}
		}
		ids := map[string]bool{}
		for _, gp := range pr.Packs {
			if gp.ID == "" || gp.Version == "" || len(gp.SHA256) != 64 {
				return fmt.Sprintf("profile %s: a pack has no id, version or sha256 (%q %q %q)", pr.Name, gp.ID, gp.Version, gp.SHA256)
			}
			if ids[gp.ID] {
				return fmt.Sprintf("profile %s: pack %s is listed twice", pr.Name, gp.ID)
			}
			ids[gp.ID] = true
		}
	}
	if st.Profile != "" && !SameProfile(st.Profile, OwnProfile) && st.FindProfile(st.Profile) == nil {
		return fmt.Sprintf("the current profile %q is not one of the profiles", st.Profile)
	}
	if ps := st.PendingSet; ps != nil && ps.Profile != "" && !SameProfile(ps.Profile, OwnProfile) && st.FindProfile(ps.Profile) == nil {
		return fmt.Sprintf("the pending switch names profile %q, which is not one of the profiles", ps.Profile)
	}
	return ""
}
