// Package difftext owns the one sentence that says how a machine differs
// from a pack set for one pack (SPEC §10.2), in plain values, so that the
// domain's difference (packset) and its wire shape (api) print the same
// words without either importing the other. It is a leaf.
package difftext

import "fmt"

// Pack is one side of a difference: what the set pins (Enabled unused) or
// what the machine has.
type Pack struct {
	Version string
	SHA256  string
	Enabled bool
}

// Line says the difference of kind for pack id in one line of words;
// want is nil when the set pins nothing, have when the machine has
// nothing. A kind this version does not know, or sides that do not fit
// it, are said as "id: kind".
func Line(kind, id string, want, have *Pack) string {
	switch {
	case kind == "missing" && want != nil:
		return fmt.Sprintf("%s: missing (the set pins %s)", id, want.Version)
	case kind == "other-version" && want != nil && have != nil:
		state := "enabled"
		if !have.Enabled {
			state = "disabled"
		}
		return fmt.Sprintf("%s: other version (%s installed, %s; the set pins %s)", id, have.Version, state, want.Version)
	case kind == "other-bytes" && want != nil && have != nil:
		return fmt.Sprintf("%s: same version %s with other bytes (installed %.12s…, the set pins %.12s…)", id, want.Version, have.SHA256, want.SHA256)
	case kind == "disabled" && have != nil:
		return fmt.Sprintf("%s: installed but disabled (%s)", id, have.Version)
	case kind == "not-in-set" && have != nil:
		return fmt.Sprintf("%s: enabled but not in the set (%s)", id, have.Version)
	}
	return fmt.Sprintf("%s: %s", id, kind)
}
