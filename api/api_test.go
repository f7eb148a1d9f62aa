package api

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
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
	if _, err := (Event{ID: 3, Type: EventWarning, Data: []byte(`{"message":1}`)}).Decode(); err == nil {
		t.Error("Decode of a mistyped field = nil error")
	}
}

func TestMerge(t *testing.T) {
	a := &Summary{Outcomes: []Outcome{{Archive: "a"}}, Published: []string{"x", "y"}, Warnings: []string{"w1"}, Duration: time.Second}
	b := &Summary{Outcomes: []Outcome{{Archive: "b"}}, Published: []string{"y", "z"}, Duration: 2 * time.Second}
	want := &Summary{Outcomes: []Outcome{{Archive: "a"}, {Archive: "b"}}, Published: []string{"x", "y", "z"}, Warnings: []string{"w1"}, Duration: 3 * time.Second}
	if got := a.Merge(b); !reflect.DeepEqual(got, want) {
		t.Errorf("Merge = %+v; want %+v", got, want)
	}
	if got := (*Summary)(nil).Merge(b); got != b {
		t.Errorf("nil.Merge(b) = %+v; want b", got)
	}
}

// TestStatusDoorAutomationFromDeploy: the human view says what the deploy
// found, not what the version gates alone allow, and names the builds.
func TestStatusDoorAutomationFromDeploy(t *testing.T) {
	var out bytes.Buffer
	st := Status{State: StateIdle, Version: "1.0.0", PID: 7, Modules: &Modules{
		Gates:           Gates{DoorAutomation: true, PackLifts: true},
		DoorAutomation:  false, // the native module is missing
		SupportedBuilds: []string{"CU4"},
	}}
	if err := WriteStatus(&out, st, nil); err != nil {
		t.Fatal(err)
	}
	if want := "door automation: off; pack lifts: can work; native module builds: CU4\n"; !strings.Contains(out.String(), want) {
		t.Errorf("status =\n%s\nwant the line %q", out.String(), want)
	}
}

func TestEventWriter(t *testing.T) {
	var out bytes.Buffer
	ew := &EventWriter{W: &out}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.Local)
	for _, d := range []EventData{Progress{Archive: "a.zip", Done: 1, Total: 2}, InventoryPublished{Files: []string{"lifts.txt"}, Packs: 2}} {
		raw, _ := json.Marshal(d)
		if err := ew.Write(Event{ID: 1, Time: at, Type: d.EventType(), Data: raw}); err != nil {
			t.Fatal(err)
		}
	}
	ew.Close()
	want := "\r03:04:05 [###############...............]  50% a.zip\n03:04:05 published lifts.txt (2 enabled packs)\n"
	if out.String() != want {
		t.Errorf("events =\n%q\nwant\n%q", out.String(), want)
	}
}

func TestSetDifferenceString(t *testing.T) {
	want := &SetEntry{ID: "p", Version: "1.0.0", SHA256: "aaaaaaaaaaaaaaaa"}
	have := &SetPack{ID: "p", Version: "2.0.0", SHA256: "bbbbbbbbbbbbbbbb", Enabled: false}
	for _, c := range []struct {
		d    SetDifference
		want string
	}{
		{SetDifference{Kind: DiffMissing, ID: "p", Want: want}, "p: missing (the set pins 1.0.0)"},
		{SetDifference{Kind: DiffOtherVersion, ID: "p", Want: want, Have: have}, "p: other version (2.0.0 installed, disabled; the set pins 1.0.0)"},
		{SetDifference{Kind: DiffNotInSet, ID: "p", Have: have}, "p: enabled but not in the set (2.0.0)"},
		{SetDifference{Kind: DiffMissing, ID: "p"}, "p: missing"},
	} {
		if got := c.d.String(); got != c.want {
			t.Errorf("String(%+v) = %q; want %q", c.d, got, c.want)
		}
	}
}
