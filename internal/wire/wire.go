// Package wire owns the conversions from the domain's types to api's wire
// shapes for the types of the domain packages below the pipeline (packset's
// sets and differences, native's version gates, rejection's reasons and
// records): one small function per type, each the only place its wire
// shape is filled in. The domain packages know nothing of api; whoever
// answers the socket, emits an event or prints for the CLI calls these.
// The pipeline's own types are converted in the pipeline, which this
// package may not import (the pipeline calls it).
package wire

import (
	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/native"
	"github.com/mjolnir-forge/forgesync/rejection"
	"github.com/mjolnir-forge/forgesync/sets/fetch"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// Gates is a version gate in its wire shape; Mods is never nil.
func Gates(g native.Gates) api.Gates {
	mods := make([]api.ModVersion, len(g.Mods))
	for i, m := range g.Mods {
		mods[i] = api.ModVersion{Mod: m.Mod, Version: m.Version, Minimum: m.Minimum, State: api.ModState(m.State), Reason: m.Reason}
	}
	return api.Gates{Mods: mods, DoorAutomation: g.DoorAutomation, PackLifts: g.PackLifts, Reasons: g.Reasons}
}

// Download is a download's progress in its wire shape: the data of the
// download event.
func Download(p fetch.Progress) api.Download {
	return api.Download{Pack: p.Pack, URL: p.URL, Done: p.Done, Total: p.Total, Delta: DeltaStats(p.Delta), Fallback: p.Fallback}
}

// DeltaStats are an archive's delta figures in their wire shape; nil for
// none.
func DeltaStats(d *fetch.DeltaStats) *api.DeltaStats {
	if d == nil {
		return nil
	}
	return &api.DeltaStats{SeedBytes: d.SeedBytes, FetchedBytes: d.FetchedBytes, SeedChunks: d.SeedChunks, FetchedChunks: d.FetchedChunks,
		Requests: d.Requests, WireBytes: d.WireBytes}
}

// SetEntry is a pack's identity in a set in its wire shape.
func SetEntry(e lock.Entry) api.SetEntry {
	return api.SetEntry{ID: e.ID, Version: e.Version, SHA256: e.SHA256}
}

// SetPacks are a machine's installed packs as a set sees them, in their
// wire shape; never nil.
func SetPacks(packs []lock.Installed) []api.SetPack {
	out := make([]api.SetPack, len(packs))
	for i, p := range packs {
		out[i] = setPack(p)
	}
	return out
}

func setPack(p lock.Installed) api.SetPack {
	return api.SetPack{ID: p.ID, Version: p.Version, SHA256: p.SHA256, Enabled: p.Enabled}
}

// SetDifferences are a machine's differences from a set in their wire
// shape; never nil.
func SetDifferences(ds []lock.Difference) []api.SetDifference {
	out := make([]api.SetDifference, len(ds))
	for i, d := range ds {
		out[i] = api.SetDifference{Kind: api.DifferenceKind(d.Kind), ID: d.ID}
		if d.Want != nil {
			w := SetEntry(*d.Want)
			out[i].Want = &w
		}
		if d.Have != nil {
			h := setPack(*d.Have)
			out[i].Have = &h
		}
	}
	return out
}

// SetComparison is a machine compared with a set in its wire shape.
func SetComparison(c lock.Comparison) api.SetComparison {
	return api.SetComparison{Set: c.Set, Machine: c.Machine, Equal: c.Equal, Differences: SetDifferences(c.Differences)}
}

// Reasons are rejection reasons in their wire shape; nil stays nil.
func Reasons(rs []rejection.Reason) []api.Reason {
	if rs == nil {
		return nil
	}
	out := make([]api.Reason, len(rs))
	for i, r := range rs {
		out[i] = api.Reason{File: r.File, Path: r.Path, Line: r.Line, Column: r.Column, Rule: r.Rule, Value: r.Value, Message: r.Message}
	}
	return out
}

// Rejections are rejected archives in their wire shape; nil stays nil.
func Rejections(recs []rejection.Record) []api.Rejection {
	if recs == nil {
		return nil
	}
	out := make([]api.Rejection, len(recs))
	for i, r := range recs {
		out[i] = api.Rejection{Archive: r.Archive, Time: r.Time, Pack: r.Pack, Version: r.Version, Reasons: Reasons(r.Reasons)}
	}
	return out
}
