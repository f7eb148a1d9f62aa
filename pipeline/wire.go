package pipeline

import (
	"context"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/installer/deploy"
	"github.com/mjolnir-forge/forgesync/installer/store"
	"github.com/mjolnir-forge/forgesync/internal/wire"
)

// The store and the deployer keep their own types, so that the state file
// and the ledger do not change when the wire does; these are the one place
// each is turned into the api shape the pipeline returns.

// apiGeneration is a stored generation in its wire shape.
func apiGeneration(g store.Generation) api.Generation {
	packs := make([]api.GenerationPack, len(g.Packs))
	for i, p := range g.Packs {
		packs[i] = api.GenerationPack{ID: p.ID, Version: p.Version, SHA256: p.SHA256, Enabled: p.Enabled}
	}
	return api.Generation{N: g.N, Time: g.Time, Cause: apiCause(g.Cause), Fingerprint: g.Fingerprint, Packs: packs}
}

// apiFileReports are a deploy's reports in their wire shape; never nil.
func apiFileReports(reports []deploy.FileReport) []api.FileReport {
	out := make([]api.FileReport, len(reports))
	for i, r := range reports {
		out[i] = api.FileReport{Component: r.Component, Name: r.Name, Path: r.Path, Status: api.DeployStatus(r.Status),
			SHA256: r.SHA256, Staged: r.Staged, Reason: r.Reason}
	}
	return out
}

// WireHistory is the kept generations in their wire shape, as GET
// /v1/history answers and `forgesync history` prints; nil stays nil, and
// each list stays nil or empty as it was.
func WireHistory(h *History) *api.History {
	if h == nil {
		return nil
	}
	out := &api.History{Current: h.Current, KeptBytes: h.KeptBytes}
	if h.Generations != nil {
		out.Generations = make([]api.HistoryGeneration, len(h.Generations))
	}
	for i, g := range h.Generations {
		out.Generations[i] = api.HistoryGeneration{Generation: apiGeneration(g.Generation)}
		if g.Changes != nil {
			out.Generations[i].Changes = make([]api.GenerationChange, len(g.Changes))
		}
		for j, c := range g.Changes {
			out.Generations[i].Changes[j] = api.GenerationChange{Kind: api.ChangeKind(c.Kind), ID: c.ID, Version: c.Version, Previous: c.Previous}
		}
	}
	return out
}

// apiLastSync is the last sync in its wire shape; nil (before the first)
// stays nil.
func apiLastSync(l *LastSync) *api.LastSync {
	if l == nil {
		return nil
	}
	return &api.LastSync{Time: l.Time, Result: api.SyncResult(l.Result), DurationSeconds: l.DurationSeconds, Error: l.Error, Results: l.Results}
}

// apiModules is what status shows of the deployed modules in its wire
// shape; nil (before the first deploy) stays nil.
func apiModules(m *Modules) *api.Modules {
	if m == nil {
		return nil
	}
	return &api.Modules{Gates: wire.Gates(m.Gates), Deployed: apiFileReports(m.Deployed), DoorAutomation: m.DoorAutomation,
		SupportedBuilds: m.SupportedBuilds}
}

// apiCause is a generation's cause in its wire shape: the same words.
func apiCause(c store.Cause) api.Cause { return api.Cause(c) }

// WireSummary is a transaction's summary in its wire shape, as the daemon
// answers a mutation and the CLI prints it; nil stays nil, and each list
// stays nil or empty as it was, so the JSON is what the summary says.
func WireSummary(s *Summary) *api.Summary {
	if s == nil {
		return nil
	}
	out := &api.Summary{Published: s.Published, Warnings: s.Warnings, Duration: s.Duration, Generation: s.Generation,
		Set: apiSetResult(s.Set), RolledBackTo: s.RolledBackTo, Pending: wire.Reasons(s.Pending)}
	if s.Outcomes != nil {
		out.Outcomes = make([]api.Outcome, len(s.Outcomes))
		for i, o := range s.Outcomes {
			out.Outcomes[i] = apiOutcome(o)
		}
	}
	return out
}

// apiOutcome is an archive's outcome in its wire shape.
func apiOutcome(o Outcome) api.Outcome {
	return api.Outcome{Archive: o.Archive, Result: o.Result, Pack: o.Pack, Version: o.Version, Previous: o.Previous, Reasons: wire.Reasons(o.Reasons)}
}

// apiSetResult is what a set apply or a rollback changed in its wire
// shape, the data of the set-applied event; nil stays nil, and each list
// keeps being nil or empty as it was.
func apiSetResult(r *SetResult) *api.SetResult {
	if r == nil {
		return nil
	}
	return &api.SetResult{Fingerprint: r.Fingerprint, Generation: r.Generation, Installed: apiSetChanges(r.Installed),
		Upgraded: apiSetChanges(r.Upgraded), Downgraded: apiSetChanges(r.Downgraded), Reinstalled: apiSetChanges(r.Reinstalled),
		Enabled: r.Enabled, Disabled: r.Disabled, Removed: r.Removed}
}

func apiSetChanges(cs []SetChange) []api.SetChange {
	if cs == nil {
		return nil
	}
	out := make([]api.SetChange, len(cs))
	for i, c := range cs {
		out[i] = api.SetChange{ID: c.ID, Version: c.Version, Previous: c.Previous}
	}
	return out
}

// WireBackend is a Runner as the status socket serves it: its mutations
// answer with their summaries in wire shape, its rejections are api's, so that it is a
// daemon.Backend, daemon.Retrier and daemon.Installer; everything else is
// the Runner's.
type WireBackend struct {
	*Runner
}

// Enable enables a pack through the writer.
func (b WireBackend) Enable(ctx context.Context, id string) (*api.Summary, error) {
	return wired(b.Runner.Enable(ctx, id))
}

// Disable disables a pack through the writer.
func (b WireBackend) Disable(ctx context.Context, id string) (*api.Summary, error) {
	return wired(b.Runner.Disable(ctx, id))
}

// Remove uninstalls a pack through the writer.
func (b WireBackend) Remove(ctx context.Context, id string) (*api.Summary, error) {
	return wired(b.Runner.Remove(ctx, id))
}

// SyncDrop processes the drop folder through the writer.
func (b WireBackend) SyncDrop(ctx context.Context) (*api.Summary, error) {
	return wired(b.Runner.SyncDrop(ctx))
}

// Rollback returns to generation n through the writer.
func (b WireBackend) Rollback(ctx context.Context, n int) (*api.Summary, error) {
	return wired(b.Runner.Rollback(ctx, n))
}

// Retry moves rejected archives back into drop and processes them.
func (b WireBackend) Retry(ctx context.Context, req api.Retry) (*api.Summary, error) {
	return wired(b.Runner.Retry(ctx, req))
}

// InstallHanded installs an archive a command copied into drop/.install/.
func (b WireBackend) InstallHanded(ctx context.Context, req api.Install) (*api.Summary, error) {
	return wired(b.Runner.InstallHanded(ctx, req))
}

// History is the kept generations in their wire shape.
func (b WireBackend) History() *api.History {
	return WireHistory(b.Runner.History())
}

// Rejections are the rejected archives in their wire shape.
func (b WireBackend) Rejections() []api.Rejection {
	return wire.Rejections(b.Runner.Rejections())
}

// wired passes a transaction's result on with its summary in wire shape.
func wired(sum *Summary, err error) (*api.Summary, error) {
	return WireSummary(sum), err
}
