package store

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestGenerationsRoundTrip(t *testing.T) {
	sha := func(c string) string { return strings.Repeat(c, 64) }
	gens := Generations{
		{N: 4, Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Cause: "drop", Fingerprint: "sha256:1", Packs: []GenerationPack{
			{ID: "a-pack", Version: "1.0.0", SHA256: sha("a"), Enabled: true}, {ID: "b-pack", Version: "1.0.0", SHA256: sha("b")}}},
		{N: 5, Cause: "enable", Packs: []GenerationPack{
			{ID: "a-pack", Version: "1.0.0", SHA256: sha("a"), Enabled: true}, {ID: "b-pack", Version: "1.0.0", SHA256: sha("b"), Enabled: true}}},
		{N: 6, Cause: "set", Packs: []GenerationPack{
			{ID: "b-pack", Version: "0.9.0", SHA256: sha("c"), Enabled: true}, {ID: "c-pack", Version: "2.0.0", SHA256: sha("d"), Enabled: true}}},
		{N: 7, Cause: "remove", Packs: []GenerationPack{}},
	}
	data, err := json.Marshal(gens)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(data), "a-pack 1.0.0") != 1 {
		t.Errorf("a pack that did not change is stored again: %s", data)
	}
	var back Generations
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatalf("Unmarshal(%s) = %v", data, err)
	}
	if !reflect.DeepEqual(back, gens) {
		t.Fatalf("round trip = %+v; want %+v\n%s", back, gens, data)
	}
	for _, bad := range []string{`[{"n":1,"packs":["a 1.0.0 x"]}]`, `[{"n":1,"packs":[]},{"n":2,"packs":["a 1 x 1"]}]`, `[{"n":1,"packs":["a 1 x 2"]}]`} {
		if err := json.Unmarshal([]byte(bad), &back); err == nil {
			t.Errorf("Unmarshal(%s) = ok; want an error", bad)
		}
	}
}

func TestSplitKeptKey(t *testing.T) {
	for _, c := range []struct{ key, id, version string }{
		{"abc-pack-1.10.0-0123456789ab", "abc-pack", "1.10.0"},
		{"pack-2-1.0.0-0123456789ab", "pack-2", "1.0.0"},
		{"foundry-wide-1.4.0-rc.1-0123456789ab", "foundry-wide", "1.4.0-rc.1"},
		{"a1-b2-0.0.1-x-y+build.5-0123456789ab", "a1-b2", "0.0.1-x-y+build.5"},
		{"abc-1.0-0123456789ab", "", ""},
		{"abc-1.0.0", "", ""},
		{"", "", ""},
	} {
		id, version, ok := SplitKeptKey(c.key)
		if id != c.id || version != c.version || ok != (c.id != "") {
			t.Errorf("SplitKeptKey(%q) = %q, %q, %v; want %q, %q", c.key, id, version, ok, c.id, c.version)
		}
		if ok && KeptKey(id, version, "0123456789abcdef") != c.key {
			t.Errorf("KeptKey(%q, %q) does not give back %q", id, version, c.key)
		}
	}
}
