package daemon

import (
	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/installer/deploy"
	"github.com/mjolnir-forge/forgesync/installer/store"
	"github.com/mjolnir-forge/forgesync/pipeline"
	"github.com/mjolnir-forge/forgesync/sets/fetch"
	"github.com/mjolnir-forge/forgesync/sets/follow"
)

// publisher turns what the pipeline and the set follower tell their
// observers into events of the daemon's stream, each converted once.
type publisher struct {
	ev *Events
}

var (
	_ pipeline.Observer = publisher{}
	_ follow.Observer   = publisher{}
)

// publish publishes d; a bus closed as the daemon stops takes no more,
// and nothing waits for the event.
func (p publisher) publish(d api.EventData) { _, _ = p.ev.Publish(d) }

// PassStarted publishes sync-started.
func (p publisher) PassStarted(trigger pipeline.Trigger, archives []string) {
	p.publish(api.SyncStarted{Trigger: string(trigger), Archives: append([]string{}, archives...)})
}

// ArchiveClaimed publishes archive-seen.
func (p publisher) ArchiveClaimed(archive string, size int64) {
	p.publish(api.ArchiveSeen{Archive: archive, Size: size})
}

// Extracting publishes progress.
func (p publisher) Extracting(archive string, done, total int64) {
	p.publish(api.Progress{Archive: archive, Step: "extract", Done: done, Total: total})
}

// PackChanged publishes pack-enabled, pack-disabled or pack-removed.
func (p publisher) PackChanged(c pipeline.PackChange) {
	if d := wirePackChange(c); d != nil {
		p.publish(d)
	}
}

// PackInstalled publishes pack-installed.
func (p publisher) PackInstalled(o pipeline.Outcome) {
	p.publish(api.PackInstalled{Archive: o.Archive, Pack: o.Pack, Version: o.Version, Result: api.Result(o.Result), Previous: o.Previous})
}

// PackRejected publishes pack-rejected.
func (p publisher) PackRejected(o pipeline.Outcome) {
	p.publish(api.PackRejected{Archive: o.Archive, Pack: o.Pack, Version: o.Version, Reasons: wireReasons(o.Reasons)})
}

// Published publishes inventory-published.
func (p publisher) Published(files []string, enabledPacks int) {
	p.publish(api.InventoryPublished{Files: files, Packs: enabledPacks})
}

// SetApplied publishes set-applied.
func (p publisher) SetApplied(r pipeline.SetResult) { p.publish(*wireSetResult(&r)) }

// GenerationRecorded publishes generation.
func (p publisher) GenerationRecorded(g store.Generation) {
	p.publish(api.GenerationRecorded{N: g.N, Cause: api.Cause(g.Cause), Fingerprint: g.Fingerprint, Packs: len(g.Packs)})
}

// ProfileSwitched publishes profile-switched.
func (p publisher) ProfileSwitched(s pipeline.ProfileSwitch) {
	p.publish(api.ProfileSwitched{From: s.From, To: s.To, Generation: s.Generation})
}

// Warning publishes warning.
func (p publisher) Warning(message string) { p.publish(api.Warning{Message: message}) }

// PassFinished publishes sync-finished.
func (p publisher) PassFinished(pass pipeline.Pass) { p.publish(wirePass(pass)) }

// ModuleDeployed publishes module-deployed.
func (p publisher) ModuleDeployed(r deploy.FileReport) {
	p.publish(api.ModuleDeployed{Component: r.Component, Path: r.Path, SHA256: r.SHA256, Pending: r.Status == deploy.StagedLocked})
}

// Checked publishes set-checked.
func (p publisher) Checked(c follow.Check) { p.publish(wireCheck(c)) }

// Downloading publishes download.
func (p publisher) Downloading(pr fetch.Progress) {
	p.publish(wireDownload(pr))
}
