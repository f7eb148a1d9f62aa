package pipeline

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/installer/deploy"
	"github.com/mjolnir-forge/forgesync/installer/store"
	"github.com/mjolnir-forge/forgesync/native"
	"github.com/mjolnir-forge/forgesync/rejection"
)

// TestWireConversions: the store's and the deployer's own types carry
// every field of the api shapes they are shown in, and a stored generation
// (a pending set stores its packs as objects) encodes as the wire's did
// when the state file stored api types.
func TestWireConversions(t *testing.T) {
	g := store.Generation{N: 3, Time: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC), Cause: CauseDrop, Fingerprint: "sha256:ab",
		Packs: []store.GenerationPack{{ID: "a", Version: "1.0.0", SHA256: "cd", Enabled: true}, {ID: "b", Version: "2.0.0", SHA256: "ef"}}}
	want := api.Generation{N: 3, Time: g.Time, Cause: api.CauseDrop, Fingerprint: "sha256:ab",
		Packs: []api.GenerationPack{{ID: "a", Version: "1.0.0", SHA256: "cd", Enabled: true}, {ID: "b", Version: "2.0.0", SHA256: "ef"}}}
	if got := apiGeneration(g); !reflect.DeepEqual(got, want) {
		t.Errorf("apiGeneration = %+v; want %+v", got, want)
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
	if got := apiFileReports([]deploy.FileReport{r}); len(got) != 1 || got[0] != wantR {
		t.Errorf("apiFileReports = %+v; want [%+v]", got, wantR)
	}
	if n, m := reflect.TypeFor[deploy.FileReport]().NumField(), reflect.TypeFor[api.FileReport]().NumField(); n != m {
		t.Errorf("deploy.FileReport has %d fields, api.FileReport %d", n, m)
	}
	if got := apiFileReports(nil); got == nil || len(got) != 0 {
		t.Errorf("apiFileReports(nil) = %#v; want an empty list (status shows [])", got)
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
	ch := []SetChange{{ID: "p", Version: "2", Previous: "1"}}
	sum := &Summary{Outcomes: []Outcome{{Archive: "a.zip", Result: api.ResultUpgraded, Pack: "p", Version: "2", Previous: "1",
		Reasons: []rejection.Reason{{Rule: "r", File: "f", Path: "p", Message: "m", Value: "v", Line: 1, Column: 2}}}},
		Published: []string{"x.json"}, Warnings: []string{"w"}, Duration: time.Second, Generation: 4, RolledBackTo: 2,
		Pending: []rejection.Reason{{Rule: "held", File: "f", Path: "p", Message: "m", Value: "v", Line: 1, Column: 2}},
		Set: &SetResult{Fingerprint: "sha256:f", Generation: 4, Installed: ch, Upgraded: ch, Downgraded: ch, Reinstalled: ch,
			Enabled: []string{"e"}, Disabled: []string{"d"}, Removed: []string{"r"}}}
	if zero := nonZero("Summary", reflect.ValueOf(sum)); len(zero) > 0 {
		t.Fatalf("the test's summary leaves %v unset", zero)
	}
	if zero := nonZero("api.Summary", reflect.ValueOf(WireSummary(sum))); len(zero) > 0 {
		t.Errorf("WireSummary leaves %v unset", zero)
	}
	if WireSummary(nil) != nil {
		t.Error("WireSummary(nil) is not nil")
	}
	empty, err := json.Marshal(WireSummary(&Summary{Outcomes: []Outcome{}, Published: []string{}, Set: &SetResult{Installed: []SetChange{}}}))
	if want := `{"outcomes":[],"published":[],"warnings":null,"duration_ns":0,"set":{"fingerprint":"","installed":[],"upgraded":null,"downgraded":null,"disabled":null,"removed":null}}`; err != nil || string(empty) != want {
		t.Errorf("WireSummary of empty and nil lists = %s, %v; want %s", empty, err, want)
	}
}

// TestWireHistoryWhole: a history with every field set keeps every field on
// the wire, and one with no generations answers an empty list, as GET
// /v1/history always has.
func TestWireHistoryWhole(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	gens := []store.Generation{
		{N: 1, Time: at, Cause: CauseDrop, Fingerprint: "sha256:1", Packs: []store.GenerationPack{{ID: "a", Version: "1", SHA256: "s1", Enabled: true}}},
		{N: 2, Time: at, Cause: CauseSet, Fingerprint: "sha256:2", Packs: []store.GenerationPack{{ID: "a", Version: "2", SHA256: "s2", Enabled: true}}},
	}
	h := HistoryOf(gens, 99)
	if zero := nonZero("api.History", reflect.ValueOf(WireHistory(h).Generations[0])); len(zero) > 0 {
		t.Errorf("WireHistory leaves %v unset", zero)
	}
	if w := WireHistory(h); w.Current != 2 || w.KeptBytes != 99 || w.Generations[0].Cause != api.CauseSet || w.Generations[0].Changes[0].Kind != api.ChangeUpdated {
		t.Errorf("WireHistory = %+v", w)
	}
	empty, err := json.Marshal(WireHistory(HistoryOf(nil, 0)))
	if want := `{"current":0,"kept_bytes":0,"generations":[]}`; err != nil || string(empty) != want {
		t.Errorf("an empty history = %s, %v; want %s", empty, err, want)
	}
	if WireHistory(nil) != nil {
		t.Error("WireHistory(nil) is not nil")
	}
}

// TestWireEnumsSameWords: the pipeline's enums reach the wire by their
// words, so each constant must be the wire's constant of the same name.
func TestWireEnumsSameWords(t *testing.T) {
	pairs := [][2]string{
		{string(SyncOK), string(api.SyncOK)}, {string(SyncRejected), string(api.SyncRejected)}, {string(SyncWaiting), string(api.SyncWaiting)},
		{string(SyncRefused), string(api.SyncRefused)}, {string(SyncError), string(api.SyncError)},
		{string(ChangeAdded), string(api.ChangeAdded)}, {string(ChangeUpdated), string(api.ChangeUpdated)}, {string(ChangeRemoved), string(api.ChangeRemoved)},
		{string(ChangeEnabled), string(api.ChangeEnabled)}, {string(ChangeDisabled), string(api.ChangeDisabled)},
		{string(CauseDrop), string(api.CauseDrop)}, {string(CauseInstall), string(api.CauseInstall)}, {string(CauseEnable), string(api.CauseEnable)},
		{string(CauseDisable), string(api.CauseDisable)}, {string(CauseRemove), string(api.CauseRemove)}, {string(CauseSet), string(api.CauseSet)},
		{string(CauseRollback), string(api.CauseRollback)},
	}
	for _, p := range pairs {
		if p[0] != p[1] {
			t.Errorf("the pipeline says %q where the wire says %q", p[0], p[1])
		}
	}
	if got := apiLastSync(&LastSync{Result: SyncWaiting, Error: "e"}); got.Result != api.SyncWaiting || got.Error != "e" || apiLastSync(nil) != nil {
		t.Errorf("apiLastSync = %+v", got)
	}
}

// TestWireModulesWhole: what status shows of the modules keeps every field
// on the wire.
func TestWireModulesWhole(t *testing.T) {
	m := &Modules{Gates: native.Gates{Mods: []native.ModVersion{{Mod: "m", Version: "1", Minimum: "1", State: native.ModOld, Reason: "r"}},
		DoorAutomation: true, PackLifts: true, Reasons: []string{"r"}},
		Deployed:       []deploy.FileReport{{Component: "native", Name: "n", Path: "/p", Status: deploy.StagedLocked, SHA256: "ab", Staged: "/p.pending", Reason: "held"}},
		DoorAutomation: true, SupportedBuilds: []string{"CU4"}}
	if zero := nonZero("api.Modules", reflect.ValueOf(apiModules(m))); len(zero) > 0 {
		t.Errorf("apiModules leaves %v unset", zero)
	}
	if apiModules(nil) != nil {
		t.Error("apiModules(nil) is not nil")
	}
}
