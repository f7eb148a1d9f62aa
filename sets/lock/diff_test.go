package lock

import (
	"fmt"
	"slices"
	"testing"

	burntsushi "github.com/BurntSushi/toml"

	"github.com/mjolnir-forge/forgesync/sets/settest"
)

func TestDiff(t *testing.T) {
	set := []Entry{
		{ID: "same-pack", Version: "1.0.0", SHA256: settest.HashA},
		{ID: "missing-pack", Version: "1.0.0", SHA256: settest.HashA},
		{ID: "older-pack", Version: "2.0.0", SHA256: settest.HashB},
		{ID: "bytes-pack", Version: "1.0.0", SHA256: settest.HashC},
		{ID: "disabled-pack", Version: "1.0.0", SHA256: settest.HashA},
		{ID: "off-older-pack", Version: "1.0.0", SHA256: settest.HashA},
	}
	machine := []Installed{
		{ID: "same-pack", Version: "1.0.0", SHA256: settest.HashA, Enabled: true},
		{ID: "older-pack", Version: "1.5.0", SHA256: settest.HashA, Enabled: true},
		{ID: "bytes-pack", Version: "1.0.0", SHA256: settest.HashB, Enabled: true},
		{ID: "disabled-pack", Version: "1.0.0", SHA256: settest.HashA, Enabled: false},
		{ID: "off-older-pack", Version: "0.9.0", SHA256: settest.HashB, Enabled: false},
		{ID: "extra-pack", Version: "3.0.0", SHA256: settest.HashC, Enabled: true},
		{ID: "extra-off-pack", Version: "3.0.0", SHA256: settest.HashC, Enabled: false},
	}
	got := diff(machine, set)
	var lines []string
	for _, d := range got {
		lines = append(lines, d.String())
	}
	want := []string{
		"bytes-pack: same version 1.0.0 with other bytes (installed bbbbbbbbbbbb…, the set pins cccccccccccc…)",
		"disabled-pack: installed but disabled (1.0.0)",
		"extra-pack: enabled but not in the set (3.0.0)",
		"missing-pack: missing (the set pins 1.0.0)",
		"off-older-pack: other version (0.9.0 installed, disabled; the set pins 1.0.0)",
		"older-pack: other version (1.5.0 installed, enabled; the set pins 2.0.0)",
	}
	if !slices.Equal(lines, want) {
		t.Errorf("Diff =\n%q\nwant\n%q", lines, want)
	}
	kinds := []Kind{OtherBytes, Disabled, NotInSet, Missing, OtherVersion, OtherVersion}
	for i, d := range got {
		if d.Kind != kinds[i] {
			t.Errorf("Diff[%d].Kind = %s; want %s", i, d.Kind, kinds[i])
		}
		if (d.Want == nil) != (d.Kind == NotInSet) || (d.Have == nil) != (d.Kind == Missing) {
			t.Errorf("Diff[%d] = %+v: Want/Have do not fit the kind", i, d)
		}
	}
	// Equal sets: no differences, and equal fingerprints.
	eq := []Installed{{ID: "same-pack", Version: "1.0.0", SHA256: settest.HashA, Enabled: true}, {ID: "off-pack", Version: "1.0.0", SHA256: settest.HashB, Enabled: false}}
	if d := diff(eq, set[:1]); len(d) != 0 {
		t.Errorf("Diff(equal) = %v; want none", d)
	}
	if MachineFingerprint(eq) != Fingerprint(set[:1]) {
		t.Errorf("fingerprints of equal sets differ")
	}
}

// bigSets returns a 1,000-pack set and a 1,000-pack machine that differs
// from it in every way a machine can.
func bigSets() ([]Installed, []Entry) {
	var machine []Installed
	var set []Entry
	for i := range 1000 {
		id := fmt.Sprintf("pack-%04d", i)
		sum := fmt.Sprintf("%064x", i)
		set = append(set, Entry{ID: id, Version: "1.0.0", SHA256: sum})
		switch i % 10 {
		case 0:
			machine = append(machine, Installed{ID: fmt.Sprintf("other-%04d", i), Version: "1.0.0", SHA256: sum, Enabled: true})
		case 1:
			machine = append(machine, Installed{ID: id, Version: "0.9.0", SHA256: sum, Enabled: true})
		case 2:
			machine = append(machine, Installed{ID: id, Version: "1.0.0", SHA256: fmt.Sprintf("%064x", i+5000), Enabled: true})
		case 3:
			machine = append(machine, Installed{ID: id, Version: "1.0.0", SHA256: sum, Enabled: false})
		default:
			machine = append(machine, Installed{ID: id, Version: "1.0.0", SHA256: sum, Enabled: true})
		}
	}
	return machine, set
}

func TestDiffBig(t *testing.T) {
	machine, set := bigSets()
	got := diff(machine, set)
	if len(got) != 500 { // 100 each: missing, not-in-set, other version, other bytes, disabled
		t.Errorf("Diff of the big sets = %d differences; want 500", len(got))
	}
	if !slices.IsSortedFunc(got, func(a, b Difference) int {
		if a.ID < b.ID {
			return -1
		}
		return 1
	}) {
		t.Errorf("Diff is not sorted by id")
	}
}

// BenchmarkDiff1000 is the figure of issue 13: the diff of a 1,000-pack lock
// against a 1,000-pack machine, decoding the lock included (target: under
// 20 ms).
func BenchmarkDiff1000(b *testing.B) {
	machine, set := bigSets()
	l := &Lock{}
	for _, e := range set {
		l.Packs = append(l.Packs, Pack{ID: e.ID, Version: e.Version, SHA256: e.SHA256, Size: 1 << 20,
			URLs: []string{"packs/" + e.SHA256 + ".zip", "https://cdn.example.org/forge/" + e.SHA256 + ".zip"}})
	}
	text, err := Encode(l)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		l, err := Decode(LockName, text, DecodeOptions{Have: HaveAll})
		if err != nil {
			b.Fatal(err)
		}
		if d := diff(machine, l.Entries()); len(d) != 500 {
			b.Fatalf("%d differences", len(d))
		}
	}
}

// BenchmarkDiffOnly1000 is the diff of a decoded 1,000-pack lock against a
// 1,000-pack machine, without decoding.
func BenchmarkDiffOnly1000(b *testing.B) {
	machine, set := bigSets()
	for b.Loop() {
		if d := diff(machine, set); len(d) != 500 {
			b.Fatalf("%d differences", len(d))
		}
	}
}

// BenchmarkDecodeBurntSushi1000 is the TOML parse alone of the same
// 1,000-pack lock as BenchmarkDiff1000, by BurntSushi/toml, the decoder of
// the lock and the config: most of what the diff costs.
func BenchmarkDecodeBurntSushi1000(b *testing.B) {
	_, set := bigSets()
	l := &Lock{}
	for _, e := range set {
		l.Packs = append(l.Packs, Pack{ID: e.ID, Version: e.Version, SHA256: e.SHA256, Size: 1 << 20,
			URLs: []string{"packs/" + e.SHA256 + ".zip", "https://cdn.example.org/forge/" + e.SHA256 + ".zip"}})
	}
	text, err := Encode(l)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		var root map[string]any
		if _, err := burntsushi.Decode(string(text), &root); err != nil {
			b.Fatal(err)
		}
	}
}

func TestCompare(t *testing.T) {
	m := []Installed{{ID: "alpha-pack", Version: "1.0.0", SHA256: settest.HashA, Enabled: true}, {ID: "zeta-pack", Version: "2.0.0-rc.1", SHA256: settest.HashB, Enabled: true}}
	set := []Entry{{ID: "alpha-pack", Version: "1.0.0", SHA256: settest.HashA}, {ID: "zeta-pack", Version: "2.0.0-rc.1", SHA256: settest.HashB}}
	c := Compare(m, set)
	if !c.Equal || c.Set != settest.FpAB || c.Machine != settest.FpAB || c.Differences == nil {
		t.Errorf("Compare(equal) = %+v", c)
	}
	c = Compare(m[:1], set)
	if c.Equal || len(c.Differences) != 1 || c.Differences[0].Kind != Missing {
		t.Errorf("Compare(missing) = %+v", c)
	}
}
