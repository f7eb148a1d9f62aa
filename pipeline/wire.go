package pipeline

import (
	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/deploy"
	"github.com/mjolnir-forge/forgesync/store"
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

// apiCause is a generation's cause in its wire shape: the same words.
func apiCause(c store.Cause) api.Cause { return api.Cause(c) }
