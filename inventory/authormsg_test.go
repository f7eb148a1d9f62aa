package inventory

import (
	"errors"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/inventory/rejection"
)

// faultAt decodes m and returns the one fault at the JSON path, in the
// compiler-style words ManifestError says it.
func faultAt(t *testing.T, m map[string]any, path string) string {
	t.Helper()
	_, err := Decode("forgepack.json", encode(t, m))
	var me *ManifestError
	if !errors.As(err, &me) {
		t.Fatalf("Decode = %v; want a *ManifestError", err)
	}
	var found []string
	for _, r := range me.Errors {
		if r.Path == path {
			found = append(found, (&ManifestError{File: "forgepack.json", Errors: []rejection.Reason{r}}).Error()+" ["+r.Rule+"]")
		}
	}
	if len(found) != 1 {
		t.Fatalf("faults at %s: %q; want one among\n%v", path, found, err)
	}
	return found[0][strings.Index(found[0], ": ")+2:] // without the line and column, which the JSON layout decides
}

// TestUnknownKeySuggests: an unknown key a slip away from an allowed one
// (a letter missing, two swapped, another case) names it; one near none,
// or as near two, lists the keys allowed at that JSON path.
func TestUnknownKeySuggests(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(map[string]any)
		path string
		want string
	}{
		{"letter missing", func(m map[string]any) { lift(m)["max_sped_m_s"] = 4.5; delete(lift(m), "max_speed_m_s") },
			"pieces[0].lift.max_sped_m_s", "pieces[0].lift.max_sped_m_s: unknown key \"max_sped_m_s\": did you mean `max_speed_m_s`? [unknown-key]"},
		{"letters swapped", func(m map[string]any) { door(m)["hodl_open_s"] = 2; delete(door(m), "hold_open_s") },
			"pieces[1].door.hodl_open_s", "pieces[1].door.hodl_open_s: unknown key \"hodl_open_s\": did you mean `hold_open_s`? [unknown-key]"},
		{"unit left off", func(m map[string]any) { door(m)["travel"] = 4; delete(door(m), "travel_m") },
			"pieces[1].door.travel", "pieces[1].door.travel: unknown key \"travel\": did you mean `travel_m`? [unknown-key]"},
		{"another case", func(m map[string]any) { m["Authors"] = []any{"x"}; delete(m, "authors") },
			"Authors", "Authors: unknown key \"Authors\": did you mean `authors`? [unknown-key]"},
		{"near nothing", func(m map[string]any) { lift(m)["power"] = 1 },
			"pieces[0].lift.power", "pieces[0].lift.power: unknown key \"power\" (allowed: offset_m, size_m, direction, acceleration_m_s2, max_speed_m_s, negates_gravity) [unknown-key]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := base()
			c.edit(m)
			if got := faultAt(t, m, c.path); got != c.want {
				t.Errorf("fault =\n%s\nwant\n%s", got, c.want)
			}
		})
	}
}

// TestUnitVectorSays: a direction that is not of length 1 is quoted as
// written (1e9 stays 1e9) with the normalised vector to write instead;
// one of length 0 says it points nowhere.
func TestUnitVectorSays(t *testing.T) {
	for _, c := range []struct {
		dir  []any
		want string
	}{
		{[]any{0, 1, 1}, "must be a unit vector (|x²+y²+z² − 1| ≤ 0.001): write [0, 0.707107, 0.707107] for this direction (normalised), got [0, 1, 1] with x²+y²+z² = 2 [unit-vector]"},
		{[]any{num("1e9"), num("-0.0"), num("0")}, "must be a unit vector (|x²+y²+z² − 1| ≤ 0.001): write [1, 0, 0] for this direction (normalised), got [1e9, -0.0, 0] with x²+y²+z² = 1e+18 [unit-vector]"},
		{[]any{num("3E0"), num("4.00"), 0}, "must be a unit vector (|x²+y²+z² − 1| ≤ 0.001): write [0.6, 0.8, 0] for this direction (normalised), got [3E0, 4.00, 0] with x²+y²+z² = 25 [unit-vector]"},
		{[]any{0, 0, num("0e5")}, "must be a unit vector (|x²+y²+z² − 1| ≤ 0.001): a direction of length 0 points nowhere, got [0, 0, 0e5] with x²+y²+z² = 0 [unit-vector]"},
	} {
		m := base()
		lift(m)["direction"] = c.dir
		if got := faultAt(t, m, "pieces[0].lift.direction"); got != "pieces[0].lift.direction: "+c.want {
			t.Errorf("direction %v: fault =\n%s\nwant\npieces[0].lift.direction: %s", c.dir, got, c.want)
		}
	}
	// What the message says to write passes.
	m := base()
	lift(m)["direction"] = []any{num("0"), num("0.707107"), num("0.707107")}
	if _, err := Decode("forgepack.json", encode(t, m)); err != nil {
		t.Fatalf("the normalised direction is refused: %v", err)
	}
}
