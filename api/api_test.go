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
