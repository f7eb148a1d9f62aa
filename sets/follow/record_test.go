package follow

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/api"
)

// TestRecordKeepsItsBytes: set.json stored api.SetCheck and api.SetApply
// before the record had its own types; a record's check and apply encode
// as those did, every field set or left out, and come back to the wire as
// they were.
func TestRecordKeepsItsBytes(t *testing.T) {
	at := time.Date(2026, 3, 4, 5, 6, 7, 8, time.UTC)
	for _, c := range []api.SetCheck{
		{Time: at, Source: "https://h/set/", Result: api.CheckFailed, Fingerprint: "sha256:ab", NotModified: true, Error: "gone"},
		{Time: at, Source: "/p", Result: api.CheckEqual},
		{Time: at, Source: "/p", Result: api.CheckApplied, Delta: &api.DeltaStats{SeedBytes: 1, FetchedBytes: 2, SeedChunks: 3, FetchedChunks: 4, Requests: 5, WireBytes: 6},
			Fallbacks: []string{"alpha-pack: chunk store down"}},
	} {
		want, _ := json.Marshal(c)
		got, err := json.Marshal(storedCheck(c))
		if err != nil || string(got) != string(want) {
			t.Errorf("stored check = %s, %v; want %s", got, err, want)
		}
		if back := wireCheck(storedCheck(c)); !reflect.DeepEqual(*back, c) {
			t.Errorf("wireCheck(storedCheck(%+v)) = %+v", c, *back)
		}
	}
	for _, a := range []api.SetApply{{Time: at, Fingerprint: "sha256:cd", Generation: 3}, {Time: at, Fingerprint: "sha256:cd"}} {
		want, _ := json.Marshal(a)
		stored := StoredApply{Time: a.Time, Fingerprint: a.Fingerprint, Generation: a.Generation}
		got, err := json.Marshal(stored)
		if err != nil || string(got) != string(want) {
			t.Errorf("stored apply = %s, %v; want %s", got, err, want)
		}
		if back := wireApply(&stored); *back != a {
			t.Errorf("wireApply(%+v) = %+v", stored, *back)
		}
	}
	if wireCheck(nil) != nil || wireApply(nil) != nil {
		t.Error("nil is not kept nil")
	}
}
