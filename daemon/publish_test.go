package daemon

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/installer/deploy"
	"github.com/mjolnir-forge/forgesync/installer/store"
	"github.com/mjolnir-forge/forgesync/inventory/rejection"
	"github.com/mjolnir-forge/forgesync/pipeline"
	"github.com/mjolnir-forge/forgesync/sets/fetch"
	"github.com/mjolnir-forge/forgesync/sets/follow"
)

// TestPublisherEveryCall: each call of the pipeline's and the follower's
// observers becomes the one event of its type with the data its domain
// values say, as a client of the stream decodes it.
func TestPublisherEveryCall(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	reasons := []rejection.Reason{{File: "forgepack.json", Path: "id", Line: 2, Column: 9, Rule: "pattern", Value: `"A"`, Message: "must be a pack slug"}}
	delta := &fetch.DeltaStats{Chunks: 9, SeedChunks: 3, FetchedChunks: 6, SeedBytes: 30, FetchedBytes: 60, Requests: 2, WireBytes: 50}
	wireDelta := &api.DeltaStats{SeedChunks: 3, FetchedChunks: 6, SeedBytes: 30, FetchedBytes: 60, Requests: 2, WireBytes: 50}
	for _, c := range []struct {
		call func(publisher)
		want api.EventData
	}{
		{func(p publisher) { p.PassStarted(pipeline.TriggerWatch, nil) }, api.SyncStarted{Trigger: "watch", Archives: []string{}}},
		{func(p publisher) { p.ArchiveClaimed("a.zip", 7) }, api.ArchiveSeen{Archive: "a.zip", Size: 7}},
		{func(p publisher) { p.Extracting("a.zip", 1, 2) }, api.Progress{Archive: "a.zip", Step: "extract", Done: 1, Total: 2}},
		{func(p publisher) {
			p.PackChanged(pipeline.PackChange{Kind: pipeline.ChangeEnabled, Pack: "p", Version: "1.0.0", Generation: 4})
		}, api.PackEnabled{Pack: "p", Version: "1.0.0", Generation: 4}},
		{func(p publisher) {
			p.PackChanged(pipeline.PackChange{Kind: pipeline.ChangeDisabled, Pack: "p", Version: "1.0.0"})
		},
			api.PackDisabled{Pack: "p", Version: "1.0.0"}},
		{func(p publisher) {
			p.PackChanged(pipeline.PackChange{Kind: pipeline.ChangeRemoved, Pack: "p", Version: "1.0.0", Generation: 5})
		},
			api.PackRemoved{Pack: "p", Version: "1.0.0", Generation: 5}},
		{func(p publisher) {
			p.PackInstalled(pipeline.Outcome{Archive: "a.zip", Result: pipeline.ResultUpgraded, Pack: "p", Version: "2.0.0", Previous: "1.0.0"})
		}, api.PackInstalled{Archive: "a.zip", Pack: "p", Version: "2.0.0", Result: api.ResultUpgraded, Previous: "1.0.0"}},
		{func(p publisher) {
			p.PackRejected(pipeline.Outcome{Archive: "b.zip", Result: pipeline.ResultRejected, Pack: "q", Version: "1.0.0", Reasons: reasons})
		}, api.PackRejected{Archive: "b.zip", Pack: "q", Version: "1.0.0", Reasons: wireReasons(reasons)}},
		{func(p publisher) { p.Published([]string{"installed.json"}, 3) }, api.InventoryPublished{Files: []string{"installed.json"}, Packs: 3}},
		{func(p publisher) {
			p.SetApplied(pipeline.SetResult{Fingerprint: "sha256:cd", Generation: 2, Installed: []pipeline.SetChange{{ID: "p", Version: "1.0.0"}},
				Upgraded: []pipeline.SetChange{}, Downgraded: []pipeline.SetChange{}, Disabled: []string{"r"}, Removed: []string{}})
		}, api.SetResult{Fingerprint: "sha256:cd", Generation: 2, Installed: []api.SetChange{{ID: "p", Version: "1.0.0"}},
			Upgraded: []api.SetChange{}, Downgraded: []api.SetChange{}, Disabled: []string{"r"}, Removed: []string{}}},
		{func(p publisher) {
			p.GenerationRecorded(store.Generation{N: 3, Cause: pipeline.CauseDisable, Fingerprint: "sha256:ef", Packs: make([]store.GenerationPack, 2)})
		}, api.GenerationRecorded{N: 3, Cause: api.CauseDisable, Fingerprint: "sha256:ef", Packs: 2}},
		{func(p publisher) { p.Warning("w") }, api.Warning{Message: "w"}},
		{func(p publisher) {
			p.PassFinished(pipeline.Pass{Trigger: pipeline.TriggerRequest, Archives: []string{"a.zip"}, Duration: 1500 * time.Millisecond,
				Results: map[pipeline.Result]int{pipeline.ResultInstalled: 1}, Fingerprint: "sha256:ab", Generation: 1})
		}, api.SyncFinished{Trigger: "request", Archives: []string{"a.zip"}, DurationSeconds: 1.5,
			Results: map[api.Result]int{api.ResultInstalled: 1}, Fingerprint: "sha256:ab", Generation: 1}},
		{func(p publisher) {
			p.PassFinished(pipeline.Pass{Trigger: pipeline.TriggerStart, Duration: time.Second, Err: errors.New("read processing folder: denied")})
		}, api.SyncFinished{Trigger: "start", Archives: []string{}, Results: map[api.Result]int{}, DurationSeconds: 1, Error: "read processing folder: denied"}},
		{func(p publisher) {
			p.ModuleDeployed(deploy.FileReport{Component: "native", Name: "n", Path: "/m/x.dll", Status: deploy.StagedLocked, SHA256: "ab"})
		}, api.ModuleDeployed{Component: "native", Path: "/m/x.dll", SHA256: "ab", Pending: true}},
		{func(p publisher) {
			p.Checked(follow.Check{Time: at, Source: "https://h/set/", Result: follow.CheckApplied, Fingerprint: "sha256:ab", Delta: delta,
				Fallbacks: []string{"p: gone"}})
		}, api.SetCheck{Time: at, Source: "https://h/set/", Result: api.CheckApplied, Fingerprint: "sha256:ab", Delta: wireDelta,
			Fallbacks: []string{"p: gone"}}},
		{func(p publisher) {
			p.Downloading(fetch.Progress{Pack: "p", URL: "https://m/p.zip", Done: 9, Total: 9, Delta: delta, Fallback: "f"})
		}, api.Download{Pack: "p", URL: "https://m/p.zip", Done: 9, Total: 9, Delta: wireDelta, Fallback: "f", MirrorBytes: delta.FetchedBytes}},
	} {
		ev := NewEvents(EventsOptions{})
		c.call(publisher{ev})
		sub := ev.Subscribe(0)
		ev.Close()
		got, err := sub.Next(t.Context())
		if err != nil {
			t.Fatalf("%T: no event: %v", c.want, err)
		}
		d, err := got.Decode()
		if err != nil || got.Type != c.want.EventType() || !reflect.DeepEqual(d, c.want) {
			t.Errorf("%s event = %#v, %v; want %#v", got.Type, d, err, c.want)
		}
		if more, err := sub.Next(t.Context()); err == nil {
			t.Errorf("%T: a second event %+v", c.want, more)
		}
	}
}
