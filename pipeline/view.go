package pipeline

import (
	"time"

	"github.com/mjolnir-forge/forgesync/installer/deploy"
	"github.com/mjolnir-forge/forgesync/installer/store"
	"github.com/mjolnir-forge/forgesync/inventory"
	"github.com/mjolnir-forge/forgesync/inventory/rejection"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// Status is what the daemon's status says of the installed state: what
// the writer is doing and since when, the last finished sync, the sizes of
// the installed set, the deployed modules (nil before the first deploy),
// the warnings a user should act on, the archives waiting for or in the
// writer, the current generation (0 before the first) and the disk the
// kept archives take.
type Status struct {
	State            State
	Started          time.Time
	LastSync         *LastSync
	Counts           Counts
	Modules          *Modules
	Warnings         []string
	Queue            []string
	Generation       int
	KeptArchiveBytes int64
	Profile          string // the current profile
}

// Counts are the sizes of the installed set. Pieces, Lifts and Doors count
// every installed pack's, enabled or not; EnabledDoors counts the enabled
// packs' only, as inventory.MaxDoorsInstalled does; Rejected counts the
// archives in drop/rejected/.
type Counts struct {
	Packs, Enabled, Pieces, Lifts, Doors, EnabledDoors, Rejected int
}

// Status returns the daemon's status from the latest snapshot.
func (r *Runner) Status() Status {
	s := r.Snapshot()
	st := Status{State: s.State, Started: s.Started, LastSync: s.LastSync, Modules: s.Modules, Warnings: s.Warnings, Queue: s.Queue}
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
	st.Profile = store.OwnProfile
	if s.Profiles != nil {
		st.Profile = s.Profiles.Current
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

// Packs returns the installed packs from the latest snapshot; the caller
// must not change them.
func (r *Runner) Packs() []inventory.InstalledPack {
	return r.Snapshot().Packs
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
