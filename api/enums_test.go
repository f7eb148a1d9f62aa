package api

import (
	"slices"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// TestEnumsMatchOpenAPI: each typed enum of the wire has exactly the
// values its field's enum lists in the OpenAPI document, so a constant
// added or renamed on one side and not the other fails here.
func TestEnumsMatchOpenAPI(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData(OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	field := func(schema string, path ...string) []string {
		ref := doc.Components.Schemas[schema]
		if ref == nil {
			t.Fatalf("no schema %s", schema)
		}
		s := ref.Value
		for _, p := range path {
			if s.Properties[p] == nil {
				t.Fatalf("%s: no property %s on the way to %v", schema, p, path)
			}
			s = s.Properties[p].Value
		}
		var out []string
		for _, v := range s.Enum {
			out = append(out, v.(string))
		}
		slices.Sort(out)
		return out
	}
	strs := func(vs ...string) []string { slices.Sort(vs); return vs }
	for _, c := range []struct {
		where      string
		doc, goSet []string
	}{
		{"Status.state", field("Status", "state"), strs(string(StateIdle), string(StateSyncing), string(StateError))},
		{"LastSync.result", field("LastSync", "result"),
			strs(string(SyncOK), string(SyncRejected), string(SyncWaiting), string(SyncRefused), string(SyncError))},
		{"GenerationChange.kind", field("GenerationChange", "kind"),
			strs(string(ChangeAdded), string(ChangeUpdated), string(ChangeRemoved), string(ChangeEnabled), string(ChangeDisabled))},
		{"HistoryGeneration.cause", field("HistoryGeneration", "cause"), strs(string(CauseDrop), string(CauseInstall),
			string(CauseEnable), string(CauseDisable), string(CauseRemove), string(CauseSet), string(CauseRollback), string(CauseProfile))},
		{"Profile.source", field("Profile", "source"), strs(string(ProfileOwn), string(ProfileSaved), string(ProfileStaged), string(ProfileFollowed))},
		{"GenerationEvent.data.cause", field("GenerationEvent", "data", "cause"), strs(string(CauseDrop), string(CauseInstall),
			string(CauseEnable), string(CauseDisable), string(CauseRemove), string(CauseSet), string(CauseRollback), string(CauseProfile))},
	} {
		if len(c.doc) == 0 || !slices.Equal(c.doc, c.goSet) {
			t.Errorf("%s: the OpenAPI document lists %q, the Go constants %q", c.where, c.doc, c.goSet)
		}
	}
}
