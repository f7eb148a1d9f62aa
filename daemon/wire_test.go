package daemon

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/installer/deploy"
	"github.com/mjolnir-forge/forgesync/installer/store"
	"github.com/mjolnir-forge/forgesync/inventory/rejection"
	"github.com/mjolnir-forge/forgesync/native"
	"github.com/mjolnir-forge/forgesync/pipeline"
	"github.com/mjolnir-forge/forgesync/sets/follow"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// TestWireConversions: the store's and the deployer's own types carry
// every field of the api shapes they are shown in, and a stored generation
// (a pending set stores its packs as objects) encodes as the wire's did
// when the state file stored api types.
func TestWireConversions(t *testing.T) {
	g := store.Generation{N: 3, Time: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC), Cause: pipeline.CauseDrop, Fingerprint: "sha256:ab",
		Packs: []store.GenerationPack{{ID: "a", Version: "1.0.0", SHA256: "cd", Enabled: true}, {ID: "b", Version: "2.0.0", SHA256: "ef"}}}
	want := api.Generation{N: 3, Time: g.Time, Cause: api.CauseDrop, Fingerprint: "sha256:ab",
		Packs: []api.GenerationPack{{ID: "a", Version: "1.0.0", SHA256: "cd", Enabled: true}, {ID: "b", Version: "2.0.0", SHA256: "ef"}}}
	if got := wireGeneration(g); !reflect.DeepEqual(got, want) {
		t.Errorf("wireGeneration = %+v; want %+v", got, want)
	}
	stored, _ := json.Marshal(g)
	wire, _ := json.Marshal(want)
	if string(stored) != string(wire) {
		t.Errorf("a stored generation encodes as %s; the api one as %s", stored, wire)
	}
	if n, m := reflect.TypeFor[store.GenerationPack]().NumField(), reflect.TypeFor[api.GenerationPack]().NumField(); n != m {
		t.Errorf("store.GenerationPack has %d fields, api.GenerationPack %d", n, m)
	}

	r := deploy.FileReport{Component: "native", Name: "n", Path: "/p", Status: deploy.StagedLocked, SHA256: "ab", Staged: "/p.pending", Reason: "held"}
	wantR := api.FileReport{Component: "native", Name: "n", Path: "/p", Status: "staged-locked", SHA256: "ab", Staged: "/p.pending", Reason: "held"}
	if got := wireFileReports([]deploy.FileReport{r}); len(got) != 1 || got[0] != wantR {
		t.Errorf("wireFileReports = %+v; want [%+v]", got, wantR)
	}
	if n, m := reflect.TypeFor[deploy.FileReport]().NumField(), reflect.TypeFor[api.FileReport]().NumField(); n != m {
		t.Errorf("deploy.FileReport has %d fields, api.FileReport %d", n, m)
	}
	if got := wireFileReports(nil); got == nil || len(got) != 0 {
		t.Errorf("wireFileReports(nil) = %#v; want an empty list (status shows [])", got)
	}
}

// nonZero names the fields of v (a struct, followed through pointers and
// into the elements of slices) left at their zero value.
func nonZero(where string, v reflect.Value) []string {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return []string{where}
		}
		return nonZero(where, v.Elem())
	case reflect.Slice:
		if v.Len() == 0 {
			return []string{where}
		}
		return nonZero(where+"[0]", v.Index(0))
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			break
		}
		var out []string
		for i := range v.NumField() {
			out = append(out, nonZero(where+"."+v.Type().Field(i).Name, v.Field(i))...)
		}
		return out
	}
	if v.IsZero() {
		return []string{where}
	}
	return nil
}

// TestWireSummaryWhole: a summary with every field set keeps every field
// on the wire, and its lists keep being nil or empty as they were.
func TestWireSummaryWhole(t *testing.T) {
	ch := []pipeline.SetChange{{ID: "p", Version: "2", Previous: "1"}}
	sum := &pipeline.Summary{Outcomes: []pipeline.Outcome{{Archive: "a.zip", Result: pipeline.ResultUpgraded, Pack: "p", Version: "2", Previous: "1",
		Reasons: []rejection.Reason{{Rule: "r", File: "f", Path: "p", Message: "m", Value: "v", Line: 1, Column: 2}}}},
		Published: []string{"x.json"}, Warnings: []string{"w"}, Duration: time.Second, Generation: 4, RolledBackTo: 2, Switched: &pipeline.ProfileSwitch{From: "own", To: "srv", Generation: 4},
		Pending: []rejection.Reason{{Rule: "held", File: "f", Path: "p", Message: "m", Value: "v", Line: 1, Column: 2}},
		Set: &pipeline.SetResult{Fingerprint: "sha256:f", Generation: 4, Installed: ch, Upgraded: ch, Downgraded: ch, Reinstalled: ch,
			Enabled: []string{"e"}, Disabled: []string{"d"}, Removed: []string{"r"}}}
	if zero := nonZero("Summary", reflect.ValueOf(sum)); len(zero) > 0 {
		t.Fatalf("the test's summary leaves %v unset", zero)
	}
	if zero := nonZero("api.Summary", reflect.ValueOf(wireSummary(sum))); len(zero) > 0 {
		t.Errorf("wireSummary leaves %v unset", zero)
	}
	if wireSummary(nil) != nil {
		t.Error("wireSummary(nil) is not nil")
	}
	empty, err := json.Marshal(wireSummary(&pipeline.Summary{Outcomes: []pipeline.Outcome{}, Published: []string{}, Set: &pipeline.SetResult{Installed: []pipeline.SetChange{}}}))
	if want := `{"outcomes":[],"published":[],"warnings":null,"duration_s":0,"set":{"fingerprint":"","installed":[],"upgraded":null,"downgraded":null,"disabled":null,"removed":null}}`; err != nil || string(empty) != want {
		t.Errorf("wireSummary of empty and nil lists = %s, %v; want %s", empty, err, want)
	}
}

// TestWireDurationSeconds: a summary says its duration in seconds, as
// events and status do (duration_s), and in nanoseconds one more release
// (duration_ns, deprecated).
func TestWireDurationSeconds(t *testing.T) {
	b, err := json.Marshal(wireSummary(&pipeline.Summary{Duration: 1500 * time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got["duration_s"] != 1.5 || got["duration_ns"] != 1.5e9 {
		t.Errorf("wireSummary(1.5 s) = %s; want duration_s 1.5 (and the deprecated duration_ns 1500000000)", b)
	}
}

// TestWireReasonsOmitUnknown: a reason about a whole file carries no line
// and column (0 means unknown) and no path that only repeats its file; a
// manifest reason keeps all three.
func TestWireReasonsOmitUnknown(t *testing.T) {
	tests := []struct {
		name string
		in   rejection.Reason
		want string
	}{
		{"file-level", rejection.Reason{File: "Content/x.pak", Path: "Content/x.pak", Rule: "not-allowed", Message: "m"},
			`{"file":"Content/x.pak","rule":"not-allowed","value":"","message":"m"}`},
		{"pack-level", rejection.Reason{Rule: "no-manifest", Message: "m"}, `{"file":"","rule":"no-manifest","value":"","message":"m"}`},
		{"manifest", rejection.Reason{File: "forgepack.json", Path: "$.pieces[0].id", Line: 3, Column: 9, Rule: "pattern", Value: "X", Message: "m"},
			`{"file":"forgepack.json","path":"$.pieces[0].id","line":3,"column":9,"rule":"pattern","value":"X","message":"m"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(wireReasons([]rejection.Reason{tt.in})[0])
			if err != nil || string(b) != tt.want {
				t.Errorf("wireReasons(%+v) = %s, %v; want %s", tt.in, b, err, tt.want)
			}
		})
	}
}

// TestWireHistoryWhole: a history with every field set keeps every field on
// the wire, and one with no generations answers an empty list, as GET
// /v1/history always has.
func TestWireHistoryWhole(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	gens := []store.Generation{
		{N: 1, Time: at, Cause: pipeline.CauseDrop, Fingerprint: "sha256:1", Packs: []store.GenerationPack{{ID: "a", Version: "1", SHA256: "s1", Enabled: true}}},
		{N: 2, Time: at, Cause: pipeline.CauseSet, Fingerprint: "sha256:2", Packs: []store.GenerationPack{{ID: "a", Version: "2", SHA256: "s2", Enabled: true}}},
	}
	h := pipeline.HistoryOf(gens, 99)
	if zero := nonZero("api.History", reflect.ValueOf(wireHistory(h).Generations[0])); len(zero) > 0 {
		t.Errorf("wireHistory leaves %v unset", zero)
	}
	if w := wireHistory(h); w.Current != 2 || w.KeptBytes != 99 || w.Generations[0].Cause != api.CauseSet || w.Generations[0].Changes[0].Kind != api.ChangeUpdated {
		t.Errorf("wireHistory = %+v", w)
	}
	empty, err := json.Marshal(wireHistory(pipeline.HistoryOf(nil, 0)))
	if want := `{"current":0,"kept_bytes":0,"generations":[]}`; err != nil || string(empty) != want {
		t.Errorf("an empty history = %s, %v; want %s", empty, err, want)
	}
	if wireHistory(nil) != nil {
		t.Error("wireHistory(nil) is not nil")
	}
}

// TestWireEnumsSameWords: the domain's enums reach the wire by their
// words, so each constant must be the wire's constant of the same name.
func TestWireEnumsSameWords(t *testing.T) {
	pairs := [][2]string{
		{string(pipeline.ResultInstalled), string(api.ResultInstalled)}, {string(pipeline.ResultUpgraded), string(api.ResultUpgraded)},
		{string(pipeline.ResultReinstalled), string(api.ResultReinstalled)}, {string(pipeline.ResultDowngraded), string(api.ResultDowngraded)},
		{string(pipeline.ResultAlready), string(api.ResultAlready)}, {string(pipeline.ResultRejected), string(api.ResultRejected)},
		{string(pipeline.ResultWaiting), string(api.ResultWaiting)}, {string(pipeline.ResultKept), string(api.ResultKept)},
		{string(pipeline.SourceOwn), string(api.ProfileOwn)}, {string(pipeline.SourceSaved), string(api.ProfileSaved)},
		{string(pipeline.SourceStaged), string(api.ProfileStaged)}, {string(pipeline.SourceFollowed), string(api.ProfileFollowed)},
		{string(pipeline.StateIdle), string(api.StateIdle)}, {string(pipeline.StateSyncing), string(api.StateSyncing)}, {string(pipeline.StateError), string(api.StateError)},
		{string(pipeline.TriggerStart), api.TriggerStart}, {string(pipeline.TriggerWatch), api.TriggerWatch},
		{string(pipeline.TriggerRequest), api.TriggerRequest}, {string(pipeline.TriggerInstall), api.TriggerInstall},
		{string(follow.CheckEqual), api.CheckEqual}, {string(follow.CheckApplied), api.CheckApplied},
		{string(follow.CheckFailed), api.CheckFailed}, {string(follow.CheckRefused), api.CheckRefused},
		{string(lock.Missing), string(api.DiffMissing)}, {string(lock.OtherVersion), string(api.DiffOtherVersion)},
		{string(lock.OtherBytes), string(api.DiffOtherBytes)}, {string(lock.Disabled), string(api.DiffDisabled)},
		{string(lock.NotInSet), string(api.DiffNotInSet)},
		{string(pipeline.SyncOK), string(api.SyncOK)}, {string(pipeline.SyncRejected), string(api.SyncRejected)}, {string(pipeline.SyncWaiting), string(api.SyncWaiting)},
		{string(pipeline.SyncRefused), string(api.SyncRefused)}, {string(pipeline.SyncError), string(api.SyncError)},
		{string(pipeline.ChangeAdded), string(api.ChangeAdded)}, {string(pipeline.ChangeUpdated), string(api.ChangeUpdated)}, {string(pipeline.ChangeRemoved), string(api.ChangeRemoved)},
		{string(pipeline.ChangeEnabled), string(api.ChangeEnabled)}, {string(pipeline.ChangeDisabled), string(api.ChangeDisabled)},
		{string(pipeline.CauseDrop), string(api.CauseDrop)}, {string(pipeline.CauseInstall), string(api.CauseInstall)}, {string(pipeline.CauseEnable), string(api.CauseEnable)},
		{string(pipeline.CauseDisable), string(api.CauseDisable)}, {string(pipeline.CauseRemove), string(api.CauseRemove)}, {string(pipeline.CauseSet), string(api.CauseSet)},
		{string(pipeline.CauseRollback), string(api.CauseRollback)}, {string(pipeline.CauseProfile), string(api.CauseProfile)},
	}
	for _, p := range pairs {
		if p[0] != p[1] {
			t.Errorf("the pipeline says %q where the wire says %q", p[0], p[1])
		}
	}
	if got := wireLastSync(&pipeline.LastSync{Result: pipeline.SyncWaiting, Error: "e"}); got.Result != api.SyncWaiting || got.Error != "e" || wireLastSync(nil) != nil {
		t.Errorf("wireLastSync = %+v", got)
	}
}

// TestWireModulesWhole: what status shows of the modules keeps every field
// on the wire.
func TestWireModulesWhole(t *testing.T) {
	m := &pipeline.Modules{Gates: native.Gates{Mods: []native.ModVersion{{Mod: "m", Version: "1", Minimum: "1", State: native.ModOld, Reason: "r"}},
		DoorAutomation: true, PackLifts: true, Reasons: []string{"r"}},
		Deployed:       []deploy.FileReport{{Component: "native", Name: "n", Path: "/p", Status: deploy.StagedLocked, SHA256: "ab", Staged: "/p.pending", Reason: "held"}},
		DoorAutomation: true, DoorAutomationOff: "off", SupportedBuilds: []string{"CU4"}}
	if zero := nonZero("api.Modules", reflect.ValueOf(wireModules(m))); len(zero) > 0 {
		t.Errorf("wireModules leaves %v unset", zero)
	}
	if wireModules(nil) != nil {
		t.Error("wireModules(nil) is not nil")
	}
}

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
	g := wireGates(native.CheckGates(modsFS("0.3.0\n", "0.19.2\n", "0.9.8\n")))
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

// TestSetComparisonSameJSON: `forgesync diff --json` prints sets/lock's
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
	w, err := json.Marshal(wireComparison(c))
	if err != nil {
		t.Fatal(err)
	}
	if string(dom) != string(w) {
		t.Errorf("wire JSON\n%s\nwant sets/lock's\n%s", w, dom)
	}
	if got, err := json.Marshal(wireComparison(lock.Compare(nil, nil))); err != nil || !strings.Contains(string(got), `"differences":[]`) {
		t.Errorf("an equal comparison = %s, %v; want an empty differences list", got, err)
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
	w, err := json.Marshal(wireRejections(recs))
	if err != nil {
		t.Fatal(err)
	}
	if string(dom) != string(w) {
		t.Errorf("wire JSON\n%s\nwant rejection's\n%s", w, dom)
	}
	if wireRejections(nil) != nil || wireReasons(nil) != nil {
		t.Error("nil is not kept nil")
	}
}
