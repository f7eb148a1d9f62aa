package packset

import (
	"cmp"
	"slices"

	"github.com/mjolnir-forge/forgesync/api"
)

// Installed is one pack installed on a machine, as a diff needs it; Kind
// says how a machine differs from a set for one pack; Difference is how it
// differs for one pack id. They are the status socket's shapes (SPEC
// §10.3).
type (
	Installed  = api.SetPack
	Kind       = api.DifferenceKind
	Difference = api.SetDifference
)

// The kinds of difference, in the words of SPEC §10.2.
const (
	// Missing: the set pins a pack the machine does not have.
	Missing = api.DiffMissing
	// OtherVersion: the machine has the pack at another version (enabled
	// or not).
	OtherVersion = api.DiffOtherVersion
	// OtherBytes: the machine has the pinned version from an archive with
	// other bytes.
	OtherBytes = api.DiffOtherBytes
	// Disabled: the machine has exactly the pinned pack, disabled.
	Disabled = api.DiffDisabled
	// NotInSet: the machine has a pack enabled that the set does not pin.
	NotInSet = api.DiffNotInSet
)

// Diff returns how a machine's installed packs differ from a set, one
// difference per pack id that differs, sorted by id in byte order. A
// disabled pack the set does not pin is no difference: only enabled packs
// reach the game. No differences means the machine's fingerprint equals the
// set's. Neither argument is modified. installed holds at most one pack per
// id; when it holds more, the first wins.
func Diff(installed []Installed, set []Entry) []Difference {
	have := make(map[string]*Installed, len(installed))
	for i := range installed {
		if _, dup := have[installed[i].ID]; !dup {
			have[installed[i].ID] = &installed[i]
		}
	}
	pinned := make(map[string]bool, len(set))
	var out []Difference
	for i := range set {
		w := set[i]
		pinned[w.ID] = true
		h, ok := have[w.ID]
		var k Kind
		switch {
		case !ok:
			k = Missing
		case h.Version != w.Version:
			k = OtherVersion
		case h.SHA256 != w.SHA256:
			k = OtherBytes
		case !h.Enabled:
			k = Disabled
		default:
			continue
		}
		d := Difference{Kind: k, ID: w.ID, Want: &w}
		if ok {
			hc := *h
			d.Have = &hc
		}
		out = append(out, d)
	}
	for id, h := range have {
		if h.Enabled && !pinned[id] {
			hc := *h
			out = append(out, Difference{Kind: NotInSet, ID: id, Have: &hc})
		}
	}
	slices.SortFunc(out, func(a, b Difference) int { return cmp.Compare(a.ID, b.ID) })
	return out
}
