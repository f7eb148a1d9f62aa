package api

import (
	"strings"
	"testing"
)

func TestWriteSetSync(t *testing.T) {
	tests := []struct {
		name string
		res  *SetSyncResult
		want string
	}{
		{"applied", &SetSyncResult{
			Check: SetCheck{Result: CheckApplied, Fingerprint: "sha256:f"}, SignedBy: "ABCD",
			Downloaded: []Downloaded{{Pack: "a", URL: "https://m/a.zip", Bytes: 10}},
			Summary: &Summary{Set: &SetResult{
				Installed: []SetChange{{ID: "a", Version: "1.0.0"}}, Upgraded: []SetChange{{ID: "b", Version: "2.0.0", Previous: "1.0.0"}},
				Downgraded: []SetChange{{ID: "c", Version: "1.0.0", Previous: "2.0.0"}}, Reinstalled: []SetChange{{ID: "d", Version: "1.0.0"}},
				Enabled: []string{"e"}, Disabled: []string{"f"}, Removed: []string{"g"},
			}, Warnings: []string{"w"}, Published: []string{"installed.json", "lifts.txt"}},
		}, "set sha256:f (signed by trusted key ABCD)\n" +
			"downloaded a from https://m/a.zip (10 bytes)\n" +
			"installed a 1.0.0\nupgraded b 1.0.0 → 2.0.0\ndowngraded c 2.0.0 → 1.0.0 (pinned by the set)\n" +
			"reinstalled d 1.0.0 from other bytes\nenabled e\ndisabled f (not in the set)\nremoved g (not in the set)\n" +
			"warning: w\npublished installed.json, lifts.txt\n" +
			"the machine now equals the set sha256:f\n"},
		{"not modified", &SetSyncResult{Check: SetCheck{Result: CheckEqual, Fingerprint: "sha256:f", NotModified: true}},
			"set sha256:f (unsigned or not checked)\nnothing to do: the set is unchanged (304) and the machine equals it\n"},
		{"equal", &SetSyncResult{Check: SetCheck{Result: CheckEqual, Fingerprint: "sha256:f"}},
			"set sha256:f (unsigned or not checked)\nnothing to do: the machine equals the set\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			if err := WriteSetSync(&b, tt.res); err != nil || b.String() != tt.want {
				t.Errorf("WriteSetSync = %v,\n%s\nwant\n%s", err, b.String(), tt.want)
			}
		})
	}
}

func TestWriteRollback(t *testing.T) {
	tests := []struct {
		sum  *Summary
		want string
	}{
		{&Summary{Generation: 4, Published: []string{"installed.json"}}, "rolled back: now generation 4\npublished installed.json\n"},
		{&Summary{}, "nothing to do: the installed set is already that generation's\nnothing to do; the inventory is up to date\n"},
	}
	for _, tt := range tests {
		var b strings.Builder
		if err := WriteRollback(&b, tt.sum); err != nil || b.String() != tt.want {
			t.Errorf("WriteRollback(%+v) = %v, %q; want %q", tt.sum, err, b.String(), tt.want)
		}
	}
}

// TestWriteStatusWaiting: a last sync that left an archive waiting says
// "waiting" and why, not "error".
func TestWriteStatusWaiting(t *testing.T) {
	var b strings.Builder
	why := "a2.zip: paks/x.pak is held by another program (the game?); close it — the archive waits in drop and is retried at the next pass"
	WriteStatus(&b, Status{Version: "1", State: StateIdle, LastSync: &LastSync{Result: "waiting", Error: why}}, nil)
	if !strings.Contains(b.String(), ", waiting in ") || !strings.Contains(b.String(), "\n  waiting: "+why+"\n") || strings.Contains(b.String(), "error:") {
		t.Fatalf("WriteStatus = %q; want the last sync waiting and why", b.String())
	}
}
