package view

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/mjolnir-forge/forgesync/api"
)

func TestWriteSetSync(t *testing.T) {
	tests := []struct {
		name string
		res  *api.SetSyncResult
		want string
	}{
		{"applied", &api.SetSyncResult{
			Check: api.SetCheck{Result: api.CheckApplied, Fingerprint: "sha256:f"}, SignedBy: "ABCD",
			Downloaded: []api.Downloaded{{Pack: "a", URL: "https://m/a.zip", Bytes: 10}},
			Summary: &api.Summary{Set: &api.SetResult{
				Installed: []api.SetChange{{ID: "a", Version: "1.0.0"}}, Upgraded: []api.SetChange{{ID: "b", Version: "2.0.0", Previous: "1.0.0"}},
				Downgraded: []api.SetChange{{ID: "c", Version: "1.0.0", Previous: "2.0.0"}}, Reinstalled: []api.SetChange{{ID: "d", Version: "1.0.0"}},
				Enabled: []string{"e"}, Disabled: []string{"f"}, Removed: []string{"g"},
			}, Warnings: []string{"w"}, Published: []string{"installed.json", "lifts.txt"}},
		}, "set sha256:f (signed by trusted key ABCD)\n" +
			"downloaded a from https://m/a.zip (10 bytes)\n" +
			"installed a 1.0.0\nupgraded b 1.0.0 → 2.0.0\ndowngraded c 2.0.0 → 1.0.0 (pinned by the set)\n" +
			"reinstalled d 1.0.0 from other bytes\nenabled e\ndisabled f (not in the set)\nremoved g (not in the set)\n" +
			"warning: w\npublished installed.json, lifts.txt\n" +
			"the machine now equals the set sha256:f\n"},
		{"not modified", &api.SetSyncResult{Check: api.SetCheck{Result: api.CheckEqual, Fingerprint: "sha256:f", NotModified: true}},
			"set sha256:f (unsigned or not checked)\nnothing to do: the set is unchanged since the last check and the machine equals it\n"},
		{"equal", &api.SetSyncResult{Check: api.SetCheck{Result: api.CheckEqual, Fingerprint: "sha256:f"}},
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
		sum  *api.Summary
		want string
	}{
		{&api.Summary{Generation: 4, Published: []string{"installed.json"}}, "rolled back: now generation 4\npublished installed.json\n"},
		{&api.Summary{}, "nothing to do: the installed set is already that generation's\nnothing to do; the inventory is up to date\n"},
	}
	for _, tt := range tests {
		var b strings.Builder
		if err := WriteRollback(&b, tt.sum); err != nil || b.String() != tt.want {
			t.Errorf("WriteRollback(%+v) = %v, %q; want %q", tt.sum, err, b.String(), tt.want)
		}
	}
}

// hostile is text from an archive or a server that tries to drive the
// terminal, reorder what is read, and forge a line of its own.
const hostile = "x\x1b[31m\u202e\x9b\u0085\x7f\nFORGED"

// checkEscaped fails when out holds a control or format character other
// than the line feeds of its own lines, or a forged line.
func checkEscaped(t *testing.T, what, out string) {
	t.Helper()
	for i, r := range out {
		if r == '\n' || r == '\r' && i == 0 {
			continue
		}
		if r < 0x20 || r >= 0x7f && r <= 0x9f || r == utf8.RuneError || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp) {
			t.Errorf("%s holds %q raw at %d:\n%s", what, r, i, out)
			return
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "FORGED") {
			t.Errorf("%s has a forged line:\n%s", what, out)
			return
		}
	}
}

func TestTextWritersEscape(t *testing.T) {
	h := hostile
	reasons := []api.Reason{{File: h, Path: h, Message: h, Value: h}}
	set := &api.SetResult{Fingerprint: h, Installed: []api.SetChange{{ID: h, Version: h}}, Upgraded: []api.SetChange{{ID: h, Version: h, Previous: h}},
		Downgraded: []api.SetChange{{ID: h, Version: h, Previous: h}}, Reinstalled: []api.SetChange{{ID: h, Version: h}},
		Enabled: []string{h}, Disabled: []string{h}, Removed: []string{h}}
	sum := &api.Summary{Outcomes: []api.Outcome{{Archive: h, Result: api.ResultRejected, Reasons: reasons}, {Archive: h, Result: api.ResultUpgraded, Pack: h, Version: h, Previous: h},
		{Archive: h, Result: api.ResultInstalled, Pack: h, Version: h}, {Archive: h, Result: api.ResultWaiting, Reasons: reasons}}, Warnings: []string{h}, Published: []string{h}, Set: set}
	check := api.SetCheck{Source: h, Result: api.CheckFailed, Fingerprint: h, Error: h}
	st := api.Status{Version: h, State: api.State(h), LastSync: &api.LastSync{Error: h}, Queue: []string{h}, Warnings: []string{h}, LogFile: h,
		Set: &api.SetStatus{Source: h, Name: h, Fingerprint: h, SignedBy: h, Machine: h, LastCheck: &check,
			Differences: []api.SetDifference{{Kind: api.DiffMissing, ID: h, Want: &api.SetEntry{Version: h}}}}}
	var b strings.Builder
	WriteStatus(&b, st, []api.Rejection{{Archive: h, Reasons: reasons}})
	checkEscaped(t, "WriteStatus", b.String())
	b.Reset()
	WriteSummary(&b, sum)
	checkEscaped(t, "WriteSummary", b.String())
	b.Reset()
	WritePacks(&b, []api.Pack{{ID: h, Version: h, Name: h}})
	checkEscaped(t, "WritePacks", b.String())
	b.Reset()
	WriteSetSync(&b, &api.SetSyncResult{Check: check, SignedBy: h, Downloaded: []api.Downloaded{{Pack: h, URL: h}}, Summary: sum})
	checkEscaped(t, "WriteSetSync", b.String())
	b.Reset()
	WriteStaged(&b, &api.SetStageResult{Check: check, Name: h, Fingerprint: h, SignedBy: h, Downloaded: []api.Downloaded{{Pack: h, URL: h}}})
	checkEscaped(t, "WriteStaged", b.String())
	b.Reset()
	WriteHistory(&b, &api.History{Generations: []api.HistoryGeneration{{Generation: api.Generation{Cause: api.Cause(h), Fingerprint: h},
		Changes: []api.GenerationChange{{Kind: api.ChangeUpdated, ID: h, Version: h, Previous: h}, {Kind: api.ChangeKind(h), ID: h}}}}})
	checkEscaped(t, "WriteHistory", b.String())
	for _, d := range []api.EventData{api.ArchiveSeen{Archive: h}, api.PackInstalled{Result: api.ResultInstalled, Pack: h, Version: h, Archive: h, Previous: h},
		api.PackRejected{Archive: h, Reasons: reasons}, api.InventoryPublished{Files: []string{h}}, api.ModuleDeployed{Component: h, Path: h},
		api.Warning{Message: h}, *set, api.GenerationRecorded{Cause: api.Cause(h), Fingerprint: h}, check, api.Download{Pack: h, URL: h}, api.SetStaged{Name: h, Fingerprint: h},
		api.PackEnabled{Pack: h, Version: h}, api.PackDisabled{Pack: h, Version: h}, api.PackRemoved{Pack: h, Version: h},
		api.SyncStarted{Trigger: h, Archives: []string{h}}, api.SyncFinished{Trigger: h, Archives: []string{h}, Results: map[api.Result]int{api.Result(h): 1}, Fingerprint: h, Error: h}} {
		checkEscaped(t, fmt.Sprintf("describe(%T)", d), describe(d))
	}
	// An event this version does not know is written raw, but escaped.
	b.Reset()
	ew := &EventWriter{W: &b}
	ew.Write(api.Event{Type: "from-the-future", Data: []byte("{\"m\":\"" + h[:len(h)-7] + "\"}")})
	checkEscaped(t, "EventWriter(unknown type)", b.String())
}

// TestWriteStatusWaiting: a last sync that left an archive waiting says
// "waiting" and why, not "error".
func TestWriteStatusWaiting(t *testing.T) {
	var b strings.Builder
	why := "a2.zip: paks/x.pak is held by another program (the game?); close it — the archive waits in drop and is retried at the next pass"
	WriteStatus(&b, api.Status{Version: "1", State: api.StateIdle, LastSync: &api.LastSync{Result: "waiting", Error: why}}, nil)
	if !strings.Contains(b.String(), ", waiting in ") || !strings.Contains(b.String(), "\n  waiting: "+why+"\n") || strings.Contains(b.String(), "error:") {
		t.Fatalf("WriteStatus = %q; want the last sync waiting and why", b.String())
	}
}

// TestDescribeLauncherEvents pins the text of the pack and pass events as
// status --watch prints them.
func TestDescribeLauncherEvents(t *testing.T) {
	fp := "sha256:" + strings.Repeat("ab", 32)
	cases := []struct {
		d    api.EventData
		want string
	}{
		{api.PackEnabled{Pack: "pack-a", Version: "1.2.0", Generation: 4}, "enabled pack-a 1.2.0 (generation 4)"},
		{api.PackDisabled{Pack: "pack-a", Version: "1.2.0", Generation: 5}, "disabled pack-a 1.2.0 (generation 5)"},
		{api.PackRemoved{Pack: "pack-a", Version: "1.2.0", Generation: 6}, "removed pack-a 1.2.0 (generation 6)"},
		{api.PackDisabled{Pack: "pack-a", Version: "1.2.0"}, "disabled pack-a 1.2.0"},
		{api.SyncStarted{Trigger: api.TriggerWatch, Archives: []string{"a.zip", "b.7z"}}, "sync started (watch): a.zip, b.7z"},
		{api.SyncStarted{Trigger: api.TriggerRequest, Archives: []string{}}, "sync started (request): no archives"},
		{api.SyncFinished{Trigger: api.TriggerRequest, Archives: []string{"a.zip", "b.7z", "c.zip"}, DurationSeconds: 1.25,
			Results: map[api.Result]int{api.ResultInstalled: 2, api.ResultRejected: 1}, Fingerprint: fp, Generation: 3},
			"sync finished (request) in 1.25 s: 2 installed, 1 rejected; generation 3, " + fp},
		{api.SyncFinished{Trigger: api.TriggerStart, Archives: []string{}, DurationSeconds: 0.004, Results: map[api.Result]int{}, Fingerprint: fp},
			"sync finished (start) in 0.004 s: no archives; " + fp},
		{api.SyncFinished{Trigger: api.TriggerWatch, Archives: []string{"a.zip"}, DurationSeconds: 0.5, Results: map[api.Result]int{}, Error: "read processing folder: permission denied"},
			"sync failed (watch) after 0.5 s: read processing folder: permission denied"},
	}
	for _, c := range cases {
		if got := describe(c.d); got != c.want {
			t.Errorf("describe(%#v) =\n%q; want\n%q", c.d, got, c.want)
		}
	}
}

// TestWriteStatusBuild: status names the daemon's commit and build date
// under its version when they are known, and says nothing of them when not.
func TestWriteStatusBuild(t *testing.T) {
	var b strings.Builder
	WriteStatus(&b, api.Status{Version: "1.2.3", PID: 7, State: api.StateIdle, Commit: "feedc0de", BuildDate: "2026-12-01T10:00:00Z"}, nil)
	if want := "forgesync 1.2.3 (pid 7): idle, up 0 ms\ncommit feedc0de, built 2026-12-01T10:00:00Z\n"; !strings.HasPrefix(b.String(), want) {
		t.Errorf("WriteStatus = %q; want it to start %q", b.String(), want)
	}
	b.Reset()
	WriteStatus(&b, api.Status{Version: "1.2.3", PID: 7, State: api.StateIdle}, nil)
	if strings.Contains(b.String(), "commit") {
		t.Errorf("WriteStatus without a commit = %q; want no commit line", b.String())
	}
}

// TestWriteStatusCounts: the last sync counts what it did by result, the
// counts say one thing in the singular, and the doors against the limit
// are the enabled packs'.
func TestWriteStatusCounts(t *testing.T) {
	at := time.Date(2026, 12, 3, 7, 0, 0, 0, time.Local)
	cases := []struct {
		st   api.Status
		want string
	}{
		{api.Status{Version: "1", PID: 7, State: api.StateIdle, UptimeSeconds: 3,
			LastSync: &api.LastSync{Time: at, Result: "rejected", DurationSeconds: 0.275, Results: map[api.Result]int{api.ResultInstalled: 3, api.ResultRejected: 1}},
			Counts:   api.Counts{Packs: 4, Enabled: 3, Pieces: 9, Lifts: 2, Doors: 257, EnabledDoors: 250, Rejected: 1}},
			"forgesync 1 (pid 7): idle, up 3.0 s\n" +
				"last sync: 2026-12-03 07:00:00, 3 installed, 1 rejected (275 ms)\n" +
				"packs: 4 installed, 3 enabled; 9 pieces, 2 lifts; 250 of 256 doors in enabled packs; 1 rejected archive\n"},
		{api.Status{Version: "1", PID: 7, State: api.StateIdle, UptimeSeconds: 3,
			LastSync: &api.LastSync{Time: at, Result: "ok", DurationSeconds: 0.006, Results: map[api.Result]int{api.ResultInstalled: 1}},
			Counts:   api.Counts{Packs: 1, Enabled: 1, Pieces: 1, Lifts: 1, Doors: 1, EnabledDoors: 1}},
			"forgesync 1 (pid 7): idle, up 3.0 s\n" +
				"last sync: 2026-12-03 07:00:00, 1 installed (6 ms)\n" +
				"packs: 1 installed, 1 enabled; 1 piece, 1 lift; 1 of 256 doors in enabled packs; 0 rejected archives\n"},
		{api.Status{Version: "1", PID: 7, State: api.StateIdle, UptimeSeconds: 3,
			LastSync: &api.LastSync{Time: at, Result: "refused", DurationSeconds: 0.006, Error: "x: pack is not installed"}},
			"forgesync 1 (pid 7): idle, up 3.0 s\n" +
				"last sync: 2026-12-03 07:00:00, refused in 6 ms\n  error: x: pack is not installed\n" +
				"packs: 0 installed, 0 enabled; 0 pieces, 0 lifts; 0 of 256 doors in enabled packs; 0 rejected archives\n"},
	}
	for _, tc := range cases {
		var b strings.Builder
		WriteStatus(&b, tc.st, nil)
		if b.String() != tc.want {
			t.Errorf("WriteStatus =\n%s\nwant\n%s", b.String(), tc.want)
		}
	}
}

// TestCountsInWords: each count in the events and the history says one
// thing in the singular.
func TestCountsInWords(t *testing.T) {
	fp := "sha256:" + strings.Repeat("ab", 32)
	for _, tc := range []struct{ got, want string }{
		{describe(api.ArchiveSeen{Archive: "a.zip", Size: 1}), "claimed a.zip (1 byte)"},
		{describe(api.InventoryPublished{Files: []string{"installed.txt"}, Packs: 1}), "published installed.txt (1 enabled pack)"},
		{describe(api.GenerationRecorded{N: 2, Cause: "drop", Packs: 1, Fingerprint: fp}), "generation 2 (drop): 1 pack, " + fp},
		{describe(api.SyncFinished{Trigger: "watch", Archives: []string{"a.zip"}, Results: map[api.Result]int{api.ResultInstalled: 1}, Fingerprint: fp}),
			"sync finished (watch) in 0 s: 1 installed; " + fp},
	} {
		if tc.got != tc.want {
			t.Errorf("got  %q\nwant %q", tc.got, tc.want)
		}
	}
	var b strings.Builder
	WriteHistory(&b, &api.History{Current: 1, KeptBytes: 1, Generations: []api.HistoryGeneration{{Generation: api.Generation{N: 1, Cause: "drop",
		Fingerprint: fp, Time: time.Date(2026, 12, 3, 7, 0, 0, 0, time.Local), Packs: []api.GenerationPack{{ID: "a", Version: "1.0.0", Enabled: true}}}}}})
	want := "generation 1 (current)  2026-12-03 07:00:00  drop  1 pack, 1 enabled  " + fp + "\nkept archives: 1 B\n"
	if b.String() != want {
		t.Errorf("WriteHistory =\n%s\nwant\n%s", b.String(), want)
	}
}

func TestWriteStatusPriority(t *testing.T) {
	var b strings.Builder
	if err := WriteStatus(&b, api.Status{Version: "1", State: api.StateIdle, Priority: "background"}, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "\ninstall priority: background\n") {
		t.Errorf("status text has no install priority line:\n%s", b.String())
	}
	b.Reset()
	WriteStatus(&b, api.Status{Version: "1", State: api.StateIdle}, nil)
	if strings.Contains(b.String(), "priority") {
		t.Errorf("a status without a priority (an older daemon) names one:\n%s", b.String())
	}
}

// TestWriteSetSyncPending: a set committed while the game holds an
// inventory file says what waits, once, and never that the machine now
// equals the set; the same result without it does.
func TestWriteSetSyncPending(t *testing.T) {
	fp := "sha256:" + strings.Repeat("cd", 32)
	held := api.Reason{Rule: "held", File: "installed.txt", Message: "inventory not published yet: installed.txt is held by another program (the game?); close it"}
	res := &api.SetSyncResult{Check: api.SetCheck{Result: api.CheckApplied, Fingerprint: fp},
		Summary: &api.Summary{Set: &api.SetResult{Fingerprint: fp, Upgraded: []api.SetChange{{ID: "p", Version: "2", Previous: "1"}}}, Pending: []api.Reason{held}}}
	var b strings.Builder
	WriteSetSync(&b, res)
	if out := b.String(); strings.Count(out, held.Message) != 1 || strings.Contains(out, "now equals") || !strings.Contains(out, "is committed") {
		t.Fatalf("WriteSetSync with the inventory pending =\n%s\nwant what waits said once, and no claim that the machine equals the set", out)
	}
	res.Summary.Pending = nil
	b.Reset()
	WriteSetSync(&b, res)
	if !strings.Contains(b.String(), "the machine now equals the set "+fp) {
		t.Fatalf("WriteSetSync with nothing pending =\n%s\nwant the machine now equals the set", b.String())
	}
}

// TestStatusDoorAutomationFromDeploy: the human view says what the deploy
// found, not what the version gates alone allow, and names the builds.
func TestStatusDoorAutomationFromDeploy(t *testing.T) {
	var out bytes.Buffer
	st := api.Status{State: api.StateIdle, Version: "1.0.0", PID: 7, Modules: &api.Modules{
		Gates:           api.Gates{DoorAutomation: true, PackLifts: true},
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
	for _, d := range []api.EventData{api.Progress{Archive: "a.zip", Done: 1, Total: 2}, api.InventoryPublished{Files: []string{"lifts.txt"}, Packs: 2}} {
		raw, _ := json.Marshal(d)
		if err := ew.Write(api.Event{ID: 1, Time: at, Type: d.EventType(), Data: raw}); err != nil {
			t.Fatal(err)
		}
	}
	ew.Close()
	want := "\r03:04:05 [###############...............]  50% a.zip\n03:04:05 published lifts.txt (2 enabled packs)\n"
	if out.String() != want {
		t.Errorf("events =\n%q\nwant\n%q", out.String(), want)
	}
}

// TestWatchDownloads: status --watch draws a download under way as a bar
// in MiB, ends it with one line (for a delta, what was fetched against the
// whole), and says a 304 re-check in one quiet line; status keeps the last
// download's figures after a check with nothing new.
func TestWatchDownloads(t *testing.T) {
	var out bytes.Buffer
	ew := &EventWriter{W: &out}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.Local)
	const mib = 1 << 20
	delta := &api.DeltaStats{SeedBytes: 3 * mib, FetchedBytes: mib, WireBytes: mib / 2}
	for _, d := range []api.EventData{api.Download{Pack: "p", URL: "https://h/chunks/", Done: mib, Total: 4 * mib},
		api.Download{Pack: "p", URL: "https://h/chunks/", Done: 4 * mib, Total: 4 * mib, Delta: delta},
		api.Download{Pack: "q", URL: "https://h/q.zip", Done: 2 * mib, Total: 2 * mib},
		api.SetCheck{Source: "https://h/forgepacks.lock", Result: api.CheckEqual, NotModified: true}} {
		raw, _ := json.Marshal(d)
		if err := ew.Write(api.Event{ID: 1, Time: at, Type: d.EventType(), Data: raw}); err != nil {
			t.Fatal(err)
		}
	}
	want := "\r03:04:05 [#######.......................]  25% 1.0 MiB of 4.0 MiB p\n" +
		"03:04:05 rebuilt p from chunks: fetched 1.0 MiB of 4.0 MiB (3.0 MiB from earlier archives, 0.5 MiB on the wire)\n" +
		"03:04:05 downloaded q (2.0 MiB) from https://h/q.zip\n" +
		"03:04:05 pack set not modified: https://h/forgepacks.lock\n"
	if out.String() != want {
		t.Errorf("events =\n%q\nwant\n%q", out.String(), want)
	}
	var b strings.Builder
	WriteStatus(&b, api.Status{Version: "1", State: api.StateIdle, Set: &api.SetStatus{Source: "s", Fingerprint: "sha256:f", Equal: true,
		LastCheck:    &api.SetCheck{Time: at, Result: api.CheckEqual, NotModified: true},
		LastDownload: &api.SetCheck{Time: at, Result: api.CheckApplied, Delta: delta}}}, nil)
	if !strings.Contains(b.String(), "  last download: ") || !strings.Contains(b.String(), "    delta updates: fetched 1.0 MiB of 4.0 MiB") {
		t.Errorf("status after a 304 =\n%s\nwant the last download's figures", b.String())
	}
}

func TestDifferenceLine(t *testing.T) {
	want := &api.SetEntry{ID: "p", Version: "1.0.0", SHA256: "aaaaaaaaaaaaaaaa"}
	have := &api.SetPack{ID: "p", Version: "2.0.0", SHA256: "bbbbbbbbbbbbbbbb", Enabled: false}
	for _, c := range []struct {
		d    api.SetDifference
		want string
	}{
		{api.SetDifference{Kind: api.DiffMissing, ID: "p", Want: want}, "p: missing (the set pins 1.0.0)"},
		{api.SetDifference{Kind: api.DiffOtherVersion, ID: "p", Want: want, Have: have}, "p: other version (2.0.0 installed, disabled; the set pins 1.0.0)"},
		{api.SetDifference{Kind: api.DiffNotInSet, ID: "p", Have: have}, "p: enabled but not in the set (2.0.0)"},
		{api.SetDifference{Kind: api.DiffMissing, ID: "p"}, "p: missing"},
	} {
		if got := differenceLine(c.d); got != c.want {
			t.Errorf("differenceLine(%+v) = %q; want %q", c.d, got, c.want)
		}
	}
}

// TestStatusDoorAutomationOffSaysWhy: door automation the configuration
// turned off says why on the status line.
func TestStatusDoorAutomationOffSaysWhy(t *testing.T) {
	var out bytes.Buffer
	st := api.Status{State: api.StateIdle, Version: "1.0.0", PID: 7, Modules: &api.Modules{
		Gates:             api.Gates{DoorAutomation: true, PackLifts: true},
		DoorAutomationOff: "[deploy] native = false",
		SupportedBuilds:   []string{"CU4"},
	}}
	if err := WriteStatus(&out, st, nil); err != nil {
		t.Fatal(err)
	}
	if want := "door automation: off ([deploy] native = false); pack lifts"; !strings.Contains(out.String(), want) {
		t.Errorf("status =\n%s\nwant %q", out.String(), want)
	}
}
