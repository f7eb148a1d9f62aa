package lock

import (
	"cmp"
	"fmt"
	"slices"
)

// Installed is one pack installed on a machine, as a set sees it: what a
// diff needs of it.
type Installed struct {
	ID      string `json:"id"`
	Version string `json:"version"`
	SHA256  string `json:"sha256"` // of the archive it was installed from
	Enabled bool   `json:"enabled"`
}

// Entry returns the installed pack's identity.
func (p Installed) Entry() Entry { return Entry{ID: p.ID, Version: p.Version, SHA256: p.SHA256} }

// Kind says how a machine differs from a set for one pack.
type Kind string

// The kinds of difference, in the words of SPEC §10.2.
const (
	// Missing: the set pins a pack the machine does not have.
	Missing Kind = "missing"
	// OtherVersion: the machine has the pack at another version (enabled
	// or not).
	OtherVersion Kind = "other-version"
	// OtherBytes: the machine has the pinned version from an archive with
	// other bytes.
	OtherBytes Kind = "other-bytes"
	// Disabled: the machine has exactly the pinned pack, disabled.
	Disabled Kind = "disabled"
	// NotInSet: the machine has a pack enabled that the set does not pin.
	NotInSet Kind = "not-in-set"
)

// Difference is how a machine differs from a set for one pack id. Its
// JSON is that of `forgesync diff --json`, which prints a fetch.DiffReport.
type Difference struct {
	Kind Kind   `json:"kind"`
	ID   string `json:"id"`
	// Want is what the set pins; nil for NotInSet.
	Want *Entry `json:"want,omitempty"`
	// Have is what the machine has; nil for Missing.
	Have *Installed `json:"have,omitempty"`
}

// String says the difference in one line of words. A kind this version
// does not know, or sides that do not fit it, are said as "id: kind". It
// is the one place a difference is said in words: the CLI says a
// difference from the wire through it too.
func (d Difference) String() string {
	w, h := d.Want, d.Have
	switch {
	case d.Kind == Missing && w != nil:
		return fmt.Sprintf("%s: missing (the set pins %s)", d.ID, w.Version)
	case d.Kind == OtherVersion && w != nil && h != nil:
		state := "enabled"
		if !h.Enabled {
			state = "disabled"
		}
		return fmt.Sprintf("%s: other version (%s installed, %s; the set pins %s)", d.ID, h.Version, state, w.Version)
	case d.Kind == OtherBytes && w != nil && h != nil:
		return fmt.Sprintf("%s: same version %s with other bytes (installed %.12s…, the set pins %.12s…)", d.ID, w.Version, h.SHA256, w.SHA256)
	case d.Kind == Disabled && h != nil:
		return fmt.Sprintf("%s: installed but disabled (%s)", d.ID, h.Version)
	case d.Kind == NotInSet && h != nil:
		return fmt.Sprintf("%s: enabled but not in the set (%s)", d.ID, h.Version)
	}
	return fmt.Sprintf("%s: %s", d.ID, d.Kind)
}

// diff returns how a machine's installed packs differ from a set, one
// difference per pack id that differs, sorted by id in byte order. A
// disabled pack the set does not pin is no difference: only enabled packs
// reach the game. No differences means the machine's fingerprint equals the
// set's. Neither argument is modified. installed holds at most one pack per
// id; when it holds more, the first wins.
func diff(installed []Installed, set []Entry) []Difference {
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

// Comparison is a machine compared with a set: what `forgesync diff`
// prints (its JSON is part of a fetch.DiffReport's) and POST /v1/set/diff
// answers.
type Comparison struct {
	Set         string       `json:"set_fingerprint"`
	Machine     string       `json:"machine_fingerprint"`
	Equal       bool         `json:"equal"`
	Differences []Difference `json:"differences"`
}

// Compare returns the comparison of a machine's installed packs with a set.
func Compare(installed []Installed, set []Entry) Comparison {
	d := diff(installed, set)
	if d == nil {
		d = []Difference{}
	}
	return Comparison{Set: Fingerprint(set), Machine: MachineFingerprint(installed), Equal: len(d) == 0, Differences: d}
}
