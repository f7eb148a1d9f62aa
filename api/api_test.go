package api

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

func TestDecodeEveryType(t *testing.T) {
	for _, d := range []EventData{
		ArchiveSeen{Archive: "a.zip", Size: 7},
		Progress{Archive: "a.zip", Step: "extract", Done: 1, Total: 2},
		PackInstalled{Archive: "a.zip", Pack: "p", Version: "1.1.0", Result: ResultUpgraded, Previous: "1.0.0"},
		PackRejected{Archive: "b.zip", Pack: "q", Version: "1.0.0"},
		InventoryPublished{Files: []string{"installed.json"}, Packs: 3},
		ModuleDeployed{Component: "native", Path: "/m/x.dll", SHA256: "ab", Pending: true},
		Warning{Message: "w"},
		Dropped{LastID: 9},
		SetCheck{Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Source: "https://h/forgepacks.lock", Result: CheckEqual, Fingerprint: "sha256:ab", NotModified: true},
		Download{Pack: "p", URL: "https://h/packs/x.zip", Done: 5, Total: 9},
		SetResult{Fingerprint: "sha256:cd", Installed: []SetChange{{ID: "p", Version: "1.0.0"}}, Upgraded: []SetChange{}, Downgraded: []SetChange{{ID: "q", Version: "1.0.0", Previous: "2.0.0"}}, Disabled: []string{"r"}, Removed: []string{}},
	} {
		raw, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Event{ID: 1, Type: d.EventType(), Data: raw}.Decode()
		if err != nil || !reflect.DeepEqual(got, d) {
			t.Errorf("Decode(%s) = %#v, %v; want %#v", raw, got, err, d)
		}
	}
	if _, err := (Event{ID: 2, Type: "from-the-future", Data: []byte(`{}`)}).Decode(); err == nil {
		t.Error("Decode of an unknown type = nil error")
	}
	if _, err := (Event{ID: 3, Type: eventWarning, Data: []byte(`{"message":1}`)}).Decode(); err == nil {
		t.Error("Decode of a mistyped field = nil error")
	}
}

// TestLauncherEventsDecode: each new event decodes to its own type.
func TestLauncherEventsDecode(t *testing.T) {
	for _, d := range []EventData{PackEnabled{Pack: "p", Version: "1.0.0", Generation: 2}, PackDisabled{Pack: "p", Version: "1.0.0"},
		PackRemoved{Pack: "p", Version: "1.0.0", Generation: 3}, SyncStarted{Trigger: TriggerWatch, Archives: []string{"a.zip"}},
		SyncFinished{Trigger: TriggerRequest, Archives: []string{"a.zip"}, Results: map[Result]int{ResultInstalled: 1}, DurationSeconds: 0.5, Generation: 1}} {
		raw, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Event{ID: 1, Type: d.EventType(), Data: raw}.Decode()
		if err != nil || !reflect.DeepEqual(got, d) {
			t.Errorf("decode %s %s = %#v, %v; want %#v", d.EventType(), raw, got, err, d)
		}
	}
}
