package pipeline

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/deploy"
	"github.com/mjolnir-forge/forgesync/store"
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
