package daemon

import (
	"encoding/json"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/installer/deploy"
	"github.com/mjolnir-forge/forgesync/installer/store"
	"github.com/mjolnir-forge/forgesync/inventory"
	"github.com/mjolnir-forge/forgesync/inventory/rejection"
	"github.com/mjolnir-forge/forgesync/native"
	"github.com/mjolnir-forge/forgesync/pipeline"
	"github.com/mjolnir-forge/forgesync/sets/fetch"
	"github.com/mjolnir-forge/forgesync/sets/follow"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// The domain keeps its own types, so that no file on disk changes when
// the wire does and the other way round; this file is the one place each
// is turned into the api shape the socket answers, the event stream
// carries and the CLI prints. Enums reach the wire by their words (a test
// holds each domain constant equal to the wire's); lists stay nil or
// empty as they were, so the JSON is what the domain value says, unless a
// function says otherwise.

// wireSummary is a transaction's summary in its wire shape; nil stays nil.
func wireSummary(s *pipeline.Summary) *api.Summary {
	if s == nil {
		return nil
	}
	out := &api.Summary{Published: s.Published, Warnings: s.Warnings, Generation: s.Generation,
		DurationSeconds: s.Duration.Seconds(), DurationNanos: s.Duration.Nanoseconds(),
		Set: wireSetResult(s.Set), RolledBackTo: s.RolledBackTo, Pending: wireReasons(s.Pending)}
	if sw := s.Switched; sw != nil {
		out.Switched = &api.ProfileSwitched{From: sw.From, To: sw.To, Generation: sw.Generation}
	}
	if s.Outcomes != nil {
		out.Outcomes = make([]api.Outcome, len(s.Outcomes))
		for i, o := range s.Outcomes {
			out.Outcomes[i] = api.Outcome{Archive: o.Archive, Result: api.Result(o.Result), Pack: o.Pack, Version: o.Version,
				Previous: o.Previous, Reasons: wireReasons(o.Reasons)}
		}
	}
	return out
}

// wireSetResult is what a set apply or a rollback changed, the data of
// the set-applied event; nil stays nil.
func wireSetResult(r *pipeline.SetResult) *api.SetResult {
	if r == nil {
		return nil
	}
	return &api.SetResult{Fingerprint: r.Fingerprint, Generation: r.Generation, Installed: wireSetChanges(r.Installed),
		Upgraded: wireSetChanges(r.Upgraded), Downgraded: wireSetChanges(r.Downgraded), Reinstalled: wireSetChanges(r.Reinstalled),
		Enabled: r.Enabled, Disabled: r.Disabled, Removed: r.Removed}
}

func wireSetChanges(cs []pipeline.SetChange) []api.SetChange {
	if cs == nil {
		return nil
	}
	out := make([]api.SetChange, len(cs))
	for i, c := range cs {
		out[i] = api.SetChange{ID: c.ID, Version: c.Version, Previous: c.Previous}
	}
	return out
}

// wireReasons are rejection reasons in their wire shape.
func wireReasons(rs []rejection.Reason) []api.Reason {
	if rs == nil {
		return nil
	}
	out := make([]api.Reason, len(rs))
	for i, r := range rs {
		out[i] = api.Reason{File: r.File, Path: r.Path, Line: r.Line, Column: r.Column, Rule: r.Rule, Value: r.Value, Message: r.Message}
		// A path that only repeats the file says nothing more: absent.
		if r.Path == r.File {
			out[i].Path = ""
		}
	}
	return out
}

// wireRejections are rejected archives in their wire shape.
func wireRejections(recs []rejection.Record) []api.Rejection {
	if recs == nil {
		return nil
	}
	out := make([]api.Rejection, len(recs))
	for i, r := range recs {
		out[i] = api.Rejection{Archive: r.Archive, Time: r.Time, Pack: r.Pack, Version: r.Version, Reasons: wireReasons(r.Reasons)}
	}
	return out
}

// wireHistory is the kept generations in their wire shape, as GET
// /v1/history answers and `forgesync history` prints; nil stays nil.
func wireHistory(h *pipeline.History) *api.History {
	if h == nil {
		return nil
	}
	out := &api.History{Current: h.Current, KeptBytes: h.KeptBytes}
	if h.Generations != nil {
		out.Generations = make([]api.HistoryGeneration, len(h.Generations))
	}
	for i, g := range h.Generations {
		out.Generations[i] = api.HistoryGeneration{Generation: wireGeneration(g.Generation)}
		if g.Changes != nil {
			out.Generations[i].Changes = make([]api.GenerationChange, len(g.Changes))
		}
		for j, c := range g.Changes {
			out.Generations[i].Changes[j] = api.GenerationChange{Kind: api.ChangeKind(c.Kind), ID: c.ID, Version: c.Version, Previous: c.Previous}
		}
	}
	return out
}

// wireGeneration is a stored generation in its wire shape.
func wireGeneration(g store.Generation) api.Generation {
	packs := make([]api.GenerationPack, len(g.Packs))
	for i, p := range g.Packs {
		packs[i] = api.GenerationPack{ID: p.ID, Version: p.Version, SHA256: p.SHA256, Enabled: p.Enabled}
	}
	return api.Generation{N: g.N, Time: g.Time, Cause: api.Cause(g.Cause), Fingerprint: g.Fingerprint, Packs: packs}
}

// wireStatus is the writer's status in its wire shape; the server fills
// in what it knows of itself (version, pid, uptime, log file, priority).
func wireStatus(s pipeline.Status) api.Status {
	c := s.Counts
	return api.Status{State: api.State(s.State), StartedAt: s.Started, LastSync: wireLastSync(s.LastSync), Modules: wireModules(s.Modules),
		Warnings: s.Warnings, Queue: s.Queue, Generation: s.Generation, KeptArchiveBytes: s.KeptArchiveBytes, Profile: s.Profile,
		Counts: api.Counts{Packs: c.Packs, Enabled: c.Enabled, Pieces: c.Pieces, Lifts: c.Lifts, Doors: c.Doors,
			EnabledDoors: c.EnabledDoors, Rejected: c.Rejected}}
}

// wireLastSync is the last sync in its wire shape; nil (before the first)
// stays nil.
func wireLastSync(l *pipeline.LastSync) *api.LastSync {
	if l == nil {
		return nil
	}
	return &api.LastSync{Time: l.Time, Result: api.SyncResult(l.Result), DurationSeconds: l.DurationSeconds, Error: l.Error,
		Results: wireResults(l.Results)}
}

// wireResults are a pass's archives counted by result; nil stays nil.
func wireResults(rs map[pipeline.Result]int) map[api.Result]int {
	if rs == nil {
		return nil
	}
	out := make(map[api.Result]int, len(rs))
	for r, n := range rs {
		out[api.Result(r)] = n
	}
	return out
}

// wireModules is what status shows of the deployed modules; nil (before
// the first deploy) stays nil.
func wireModules(m *pipeline.Modules) *api.Modules {
	if m == nil {
		return nil
	}
	return &api.Modules{Gates: wireGates(m.Gates), Deployed: wireFileReports(m.Deployed), DoorAutomation: m.DoorAutomation,
		DoorAutomationOff: m.DoorAutomationOff, SupportedBuilds: m.SupportedBuilds}
}

// wireGates is a version gate in its wire shape; Mods is never nil.
func wireGates(g native.Gates) api.Gates {
	mods := make([]api.ModVersion, len(g.Mods))
	for i, m := range g.Mods {
		mods[i] = api.ModVersion{Mod: m.Mod, Version: m.Version, Minimum: m.Minimum, State: api.ModState(m.State), Reason: m.Reason}
	}
	return api.Gates{Mods: mods, DoorAutomation: g.DoorAutomation, PackLifts: g.PackLifts, Reasons: g.Reasons}
}

// wireFileReports are a deploy's reports in their wire shape; never nil.
func wireFileReports(reports []deploy.FileReport) []api.FileReport {
	out := make([]api.FileReport, len(reports))
	for i, r := range reports {
		out[i] = api.FileReport{Component: r.Component, Name: r.Name, Path: r.Path, Status: api.DeployStatus(r.Status),
			SHA256: r.SHA256, Staged: r.Staged, Reason: r.Reason}
	}
	return out
}

// wirePacks are installed packs as GET /v1/packs and `forgesync packs`
// show them; never nil.
func wirePacks(packs []inventory.InstalledPack) []api.Pack {
	out := make([]api.Pack, 0, len(packs))
	for _, p := range packs {
		out = append(out, wirePack(p))
	}
	return out
}

// wirePack is one installed pack in its wire shape; the counts are made
// here and nowhere else.
func wirePack(p inventory.InstalledPack) api.Pack {
	m := p.Manifest
	pieces, err := json.Marshal(m.Pieces)
	if err != nil {
		pieces = []byte("[]") // validated pieces always marshal
	}
	return api.Pack{ID: m.ID, Version: m.Version, Name: m.Name, Authors: m.Authors, Description: m.Description,
		Enabled: p.Enabled, ArchiveSHA256: p.ArchiveSHA256,
		PieceCount: len(m.Pieces), Lifts: m.Lifts(), Doors: m.Doors(), Pieces: pieces}
}

// wireSetSync is what a set sync did in its wire shape, as POST
// /v1/set/apply answers and `forgesync sync --set` prints; nil stays nil,
// and Downloaded is never nil.
func wireSetSync(r *follow.Result) *api.SetSyncResult {
	if r == nil {
		return nil
	}
	out := &api.SetSyncResult{Check: wireCheck(r.Check), SignedBy: r.SignedBy, Downloaded: make([]api.Downloaded, len(r.Downloaded)),
		Summary: wireSummary(r.Summary)}
	for i, d := range r.Downloaded {
		out.Downloaded[i] = api.Downloaded{Pack: d.Pack, URL: d.URL, Bytes: d.Bytes, Delta: wireDelta(d.Delta), Fallback: d.Fallback}
	}
	return out
}

// wireCheck is a check of a set's source, the data of the set-checked
// event.
func wireCheck(c follow.Check) api.SetCheck {
	return api.SetCheck{Time: c.Time, Source: c.Source, Result: string(c.Result), Fingerprint: c.Fingerprint, NotModified: c.NotModified,
		Error: c.Error, Delta: wireDelta(c.Delta), Fallbacks: c.Fallbacks, PeerBytes: c.PeerBytes, MirrorBytes: c.MirrorBytes}
}

// wireDownload is a download's progress, the data of the download event,
// with where its bytes came from: a LAN peer or a mirror (SPEC §13).
func wireDownload(pr fetch.Progress) api.Download {
	out := api.Download{Pack: pr.Pack, URL: pr.URL, Done: pr.Done, Total: pr.Total, Delta: wireDelta(pr.Delta), Fallback: pr.Fallback}
	switch d := pr.Delta; {
	case d != nil:
		out.PeerBytes, out.MirrorBytes = d.PeerBytes, d.FetchedBytes-d.PeerBytes
	case pr.Peer:
		out.PeerBytes = pr.Done
	default:
		out.MirrorBytes = pr.Done
	}
	return out
}

// wireDelta are an archive's delta figures; nil for none.
func wireDelta(d *fetch.DeltaStats) *api.DeltaStats {
	if d == nil {
		return nil
	}
	return &api.DeltaStats{SeedBytes: d.SeedBytes, FetchedBytes: d.FetchedBytes, SeedChunks: d.SeedChunks, FetchedChunks: d.FetchedChunks,
		Requests: d.Requests, WireBytes: d.WireBytes}
}

// wireSetStatus is how the machine stands against its set; nil (no set)
// stays nil, and Differences is never nil.
func wireSetStatus(s *follow.Status) *api.SetStatus {
	if s == nil {
		return nil
	}
	out := &api.SetStatus{Source: s.Source, Name: s.Name, Fingerprint: s.Fingerprint, SignedBy: s.SignedBy, Following: s.Following,
		Machine: s.Machine, Equal: s.Equal, Differences: wireDifferences(s.Differences), Serial: s.Serial, Expires: s.Expires}
	if s.LastCheck != nil {
		c := wireCheck(*s.LastCheck)
		out.LastCheck = &c
	}
	if s.LastDownload != nil {
		c := wireCheck(*s.LastDownload)
		out.LastDownload = &c
	}
	if a := s.LastApply; a != nil {
		out.LastApply = &api.SetApply{Time: a.Time, Fingerprint: a.Fingerprint, Generation: a.Generation}
	}
	if p := s.Paused; p != nil {
		out.Paused = &api.SetPause{Since: p.Since, Source: p.Source, Fingerprint: p.Fingerprint, Following: p.Following, Resume: follow.ResumeHint}
	}
	return out
}

// wireSetInfo is the answer of GET /v1/set: the machine's installed packs
// and their fingerprint, and the set it follows or last applied (nil:
// none).
func wireSetInfo(installed []lock.Installed, set *follow.Status) api.SetInfo {
	info := api.SetInfo{Fingerprint: lock.MachineFingerprint(installed), Packs: wireSetPacks(installed), Set: wireSetStatus(set)}
	if s := info.Set; s != nil {
		info.Source, info.SignedBy, info.LastCheck, info.LastApply = s.Source, s.SignedBy, s.LastCheck, s.LastApply
	}
	return info
}

// wireComparison is a machine compared with a set.
func wireComparison(c lock.Comparison) api.SetComparison {
	return api.SetComparison{Set: c.Set, Machine: c.Machine, Equal: c.Equal, Differences: wireDifferences(c.Differences)}
}

// wireDifferences are a machine's differences from a set; never nil.
func wireDifferences(ds []lock.Difference) []api.SetDifference {
	out := make([]api.SetDifference, len(ds))
	for i, d := range ds {
		out[i] = api.SetDifference{Kind: api.DifferenceKind(d.Kind), ID: d.ID}
		if w := d.Want; w != nil {
			out[i].Want = &api.SetEntry{ID: w.ID, Version: w.Version, SHA256: w.SHA256}
		}
		if d.Have != nil {
			h := wireSetPack(*d.Have)
			out[i].Have = &h
		}
	}
	return out
}

// wireSetPacks are installed packs as a set sees them; never nil.
func wireSetPacks(packs []lock.Installed) []api.SetPack {
	out := make([]api.SetPack, len(packs))
	for i, p := range packs {
		out[i] = wireSetPack(p)
	}
	return out
}

func wireSetPack(p lock.Installed) api.SetPack {
	return api.SetPack{ID: p.ID, Version: p.Version, SHA256: p.SHA256, Enabled: p.Enabled}
}

// wirePass is how a pass over drop ended, the data of the sync-finished
// event; its lists are never nil.
func wirePass(p pipeline.Pass) api.SyncFinished {
	d := api.SyncFinished{Trigger: string(p.Trigger), Archives: append([]string{}, p.Archives...), Results: wireResults(p.Results),
		DurationSeconds: p.Duration.Seconds(), Fingerprint: p.Fingerprint, Generation: p.Generation}
	if d.Results == nil {
		d.Results = map[api.Result]int{}
	}
	if p.Err != nil {
		d.Error = p.Err.Error()
	}
	return d
}

// wirePackChange is what an enable, disable or remove changed, the data
// of its event; nil for a change of another kind.
func wirePackChange(c pipeline.PackChange) api.EventData {
	d := api.PackChange{Pack: c.Pack, Version: c.Version, Generation: c.Generation}
	switch c.Kind {
	case pipeline.ChangeEnabled:
		return api.PackEnabled(d)
	case pipeline.ChangeDisabled:
		return api.PackDisabled(d)
	case pipeline.ChangeRemoved:
		return api.PackRemoved(d)
	}
	return nil
}
