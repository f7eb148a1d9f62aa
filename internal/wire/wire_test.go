package wire_test

import (
	"encoding/json"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/internal/wire"
	"github.com/mjolnir-forge/forgesync/native"
	"github.com/mjolnir-forge/forgesync/rejection"
	"github.com/mjolnir-forge/forgesync/sets/fetch"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// modsFS is a Mods folder with each gating mod's version.txt ("-": none).
func modsFS(forge, lobby, loader string) fstest.MapFS {
	m := fstest.MapFS{}
	for mod, v := range map[string]string{native.ModForge: forge, native.ModLobby: lobby, native.ModLevelLoader: loader} {
		if v != "-" {
			m[mod+"/version.txt"] = &fstest.MapFile{Data: []byte(v)}
		}
	}
	return m
}

func TestGatesJSON(t *testing.T) {
	g := wire.Gates(native.CheckGates(modsFS("0.3.0\n", "0.19.2\n", "0.9.8\n")))
	b, err := json.Marshal(g)
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"mods", "door_automation", "pack_lifts", "reasons"} {
		if _, ok := back[k]; !ok {
			t.Errorf("status JSON %s lacks %q", b, k)
		}
	}
	mods := back["mods"].([]any)
	first := mods[0].(map[string]any)
	if first["mod"] != "MJOLNIRForge" || first["version"] != "0.3.0" || first["minimum"] != "0.4.0" || first["state"] != "old" {
		t.Errorf("status JSON mods[0] = %v", first)
	}
}

// TestSetComparisonSameJSON: `forgesync diff --json` prints packset's
// comparison and POST /v1/set/diff answers api's; the two must be the same
// bytes, every kind of difference, both sides.
func TestSetComparisonSameJSON(t *testing.T) {
	installed := []lock.Installed{
		{ID: "a", Version: "1.0.0", SHA256: "aa", Enabled: true},
		{ID: "b", Version: "2.0.0", SHA256: "bb", Enabled: true},
		{ID: "c", Version: "1.0.0", SHA256: "cc", Enabled: false},
		{ID: "d", Version: "1.0.0", SHA256: "dd", Enabled: true},
	}
	set := []lock.Entry{{ID: "a", Version: "1.1.0", SHA256: "a2"}, {ID: "b", Version: "2.0.0", SHA256: "b2"},
		{ID: "c", Version: "1.0.0", SHA256: "cc"}, {ID: "e", Version: "0.1.0", SHA256: "ee"}}
	c := lock.Compare(installed, set)
	if len(c.Differences) != 5 {
		t.Fatalf("Compare = %+v; want 5 differences", c)
	}
	dom, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	w, err := json.Marshal(wire.SetComparison(c))
	if err != nil {
		t.Fatal(err)
	}
	if string(dom) != string(w) {
		t.Errorf("wire JSON\n%s\nwant packset's\n%s", w, dom)
	}
	for i, d := range wire.SetComparison(c).Differences {
		if d.String() != c.Differences[i].String() {
			t.Errorf("difference %d says %q on the wire, %q in packset", i, d.String(), c.Differences[i].String())
		}
	}
	if got, err := json.Marshal(wire.SetComparison(lock.Compare(nil, nil))); err != nil || !strings.Contains(string(got), `"differences":[]`) {
		t.Errorf("an equal comparison = %s, %v; want an empty differences list", got, err)
	}
}

func TestDownload(t *testing.T) {
	p := fetch.Progress{Pack: "p", URL: "https://m/p.zip", Done: 3, Total: 9}
	if got := wire.Download(p); got != (api.Download{Pack: "p", URL: "https://m/p.zip", Done: 3, Total: 9}) {
		t.Errorf("Download(%+v) = %+v", p, got)
	}
}

// TestRejectionsSameJSON: GET /v1/rejections answered rejection.Record
// itself before api had its own shape; the wire's JSON is the same bytes,
// every field set, and nil lists stay null.
func TestRejectionsSameJSON(t *testing.T) {
	recs := []rejection.Record{{Archive: "bad.zip", Time: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC), Pack: "bad-pack", Version: "1.0.0",
		Reasons: []rejection.Reason{{File: "forgepack.json", Path: "id", Line: 2, Column: 9, Rule: "pattern", Value: `"A"`, Message: "must be a pack slug"}}},
		{Archive: "empty.zip"}}
	dom, err := json.Marshal(recs)
	if err != nil {
		t.Fatal(err)
	}
	w, err := json.Marshal(wire.Rejections(recs))
	if err != nil {
		t.Fatal(err)
	}
	if string(dom) != string(w) {
		t.Errorf("wire JSON\n%s\nwant rejection's\n%s", w, dom)
	}
	if got, want := wire.Reasons(recs[0].Reasons)[0].String(), recs[0].Reasons[0].String(); got != want {
		t.Errorf("the wire's reason says %q, rejection's %q", got, want)
	}
	if wire.Rejections(nil) != nil || wire.Reasons(nil) != nil {
		t.Error("nil is not kept nil")
	}
}
