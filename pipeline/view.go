package pipeline

import (
	"encoding/json"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/installer/deploy"
	"github.com/mjolnir-forge/forgesync/inventory"
	"github.com/mjolnir-forge/forgesync/rejection"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// PackView returns a pack as the status socket and `forgesync packs` show
// it; the counts are made here and nowhere else.
func PackView(p inventory.InstalledPack) api.Pack {
	m := p.Manifest
	pieces, err := json.Marshal(m.Pieces)
	if err != nil {
		pieces = []byte("[]") // validated pieces always marshal
	}
	return api.Pack{ID: m.ID, Version: m.Version, Name: m.Name, Authors: m.Authors, Description: m.Description,
		Enabled: p.Enabled, ArchiveSHA256: p.ArchiveSHA256,
		PieceCount: len(m.Pieces), Lifts: m.Lifts(), Doors: m.Doors(), Pieces: pieces}
}

// Status returns the daemon's status from the latest snapshot (the server
// adds its version and pid).
func (r *Runner) Status() api.Status {
	s := r.Snapshot()
	st := api.Status{State: s.State, StartedAt: s.Started, LastSync: apiLastSync(s.LastSync), Modules: apiModules(s.Modules),
		Warnings: s.Warnings, Queue: s.Queue}
	for _, p := range s.Packs {
		st.Counts.Packs++
		if p.Enabled {
			st.Counts.Enabled++
			st.Counts.EnabledDoors += p.Manifest.Doors()
		}
		st.Counts.Pieces += len(p.Manifest.Pieces)
		st.Counts.Lifts += p.Manifest.Lifts()
		st.Counts.Doors += p.Manifest.Doors()
	}
	if n, err := countRejected(r.p.opts.Drop); err == nil {
		st.Counts.Rejected = n
	} else {
		st.Counts.Rejected = len(s.Rejections)
	}
	if s.History != nil {
		st.Generation, st.KeptArchiveBytes = s.History.Current, s.History.KeptBytes
	}
	if s.Modules != nil {
		st.Warnings = append(append([]string{}, st.Warnings...), s.Modules.Gates.Reasons...)
		for _, f := range s.Modules.Deployed {
			if f.Status == deploy.DeployFailed {
				st.Warnings = append(st.Warnings, f.Reason)
			}
		}
	}
	return st
}

// History returns the kept generations from the latest snapshot.
func (r *Runner) History() *History {
	if h := r.Snapshot().History; h != nil {
		return h
	}
	return HistoryOf(nil, 0)
}

// Packs returns the installed packs from the latest snapshot.
func (r *Runner) Packs() []api.Pack {
	s := r.Snapshot()
	out := make([]api.Pack, 0, len(s.Packs))
	for _, p := range s.Packs {
		out = append(out, PackView(p))
	}
	return out
}

// Rejections returns the rejected archives as drop/rejected/ holds them
// now (a player may delete or move one between passes), or else as the
// latest snapshot saw them. It never waits for the writer: the records
// are replaced atomically.
func (r *Runner) Rejections() []rejection.Record {
	if rej, err := Rejections(r.p.opts.Drop, r.p.store.Dir); err == nil {
		return rej
	}
	return r.Snapshot().Rejections
}

// SetPacks returns installed packs as a pack set sees them (SPEC §10): id,
// version, archive SHA-256 and whether enabled.
func SetPacks(packs []inventory.InstalledPack) []lock.Installed {
	out := make([]lock.Installed, 0, len(packs))
	for _, p := range packs {
		out = append(out, lock.Installed{ID: p.Manifest.ID, Version: p.Manifest.Version, SHA256: p.ArchiveSHA256, Enabled: p.Enabled})
	}
	return out
}

// Installed returns the installed packs as a pack set sees them.
func (p *Pipeline) Installed() ([]lock.Installed, error) {
	packs, err := p.Packs()
	if err != nil {
		return nil, err
	}
	return SetPacks(packs), nil
}
