package follow

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/sets/fetch"
)

// TestRecordKeepsItsBytes: set.json stored api.SetCheck and api.SetApply
// before the record had its own types; a record's check and apply encode
// as those did (the bytes below), every field set or left out, and a kept
// check comes back as it was checked.
func TestRecordKeepsItsBytes(t *testing.T) {
	at := time.Date(2026, 3, 4, 5, 6, 7, 8, time.UTC)
	for _, c := range []struct {
		check Check
		want  string
	}{
		{Check{Time: at, Source: "https://h/set/", Result: CheckFailed, Fingerprint: "sha256:ab", NotModified: true, Error: "gone"},
			`{"time":"2026-03-04T05:06:07.000000008Z","source":"https://h/set/","result":"failed","fingerprint":"sha256:ab","not_modified":true,"error":"gone"}`},
		{Check{Time: at, Source: "/p", Result: CheckEqual}, `{"time":"2026-03-04T05:06:07.000000008Z","source":"/p","result":"equal"}`},
		{Check{Time: at, Source: "/p", Result: CheckApplied,
			Delta:     &fetch.DeltaStats{SeedBytes: 1, FetchedBytes: 2, SeedChunks: 3, FetchedChunks: 4, Requests: 5, WireBytes: 6},
			Fallbacks: []string{"alpha-pack: chunk store down"}},
			`{"time":"2026-03-04T05:06:07.000000008Z","source":"/p","result":"applied","delta":{"seed_bytes":1,"fetched_bytes":2,"seed_chunks":3,"fetched_chunks":4,"requests":5,"wire_bytes":6},"fallbacks":["alpha-pack: chunk store down"]}`},
	} {
		got, err := json.Marshal(storedCheck(c.check))
		if err != nil || string(got) != c.want {
			t.Errorf("stored check = %s, %v; want %s", got, err, c.want)
		}
		if back := storedCheck(c.check).check(); !reflect.DeepEqual(*back, c.check) {
			t.Errorf("storedCheck(%+v).check() = %+v", c.check, *back)
		}
	}
	for _, c := range []struct {
		apply StoredApply
		want  string
	}{
		{StoredApply{Time: at, Fingerprint: "sha256:cd", Generation: 3}, `{"time":"2026-03-04T05:06:07.000000008Z","fingerprint":"sha256:cd","generation":3}`},
		{StoredApply{Time: at, Fingerprint: "sha256:cd"}, `{"time":"2026-03-04T05:06:07.000000008Z","fingerprint":"sha256:cd"}`},
	} {
		if got, err := json.Marshal(c.apply); err != nil || string(got) != c.want {
			t.Errorf("stored apply = %s, %v; want %s", got, err, c.want)
		}
	}
	if (*StoredCheck)(nil).check() != nil {
		t.Error("a nil check is not kept nil")
	}
}
