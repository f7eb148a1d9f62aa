package daemon

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/config"
	"github.com/mjolnir-forge/forgesync/installer/store"
	"github.com/mjolnir-forge/forgesync/native"
	"github.com/mjolnir-forge/forgesync/pipeline"
)

// OnDisk is what `status` shows when no daemon answers: the state on
// disk, read under the state's shared lock, in the wire shapes a running
// daemon answers with. Status has no version, pid or last sync: no
// daemon runs.
type OnDisk struct {
	Status     api.Status
	Rejections []api.Rejection
}

// ReadOnDisk reads the state of cfg as it is on disk, for `status` when no
// daemon answers: the installed packs, the generation, the rejected
// archives with their reasons, the mods' version gates and whether door
// automation can work ([deploy] native on, the gates met, the module
// deployed into the mods folder). It holds the state's lock shared while
// it reads, waiting up to wait for a writer (a `sync`) to finish, and
// changes nothing on disk: no folder made, nothing recovered, nothing
// published.
func ReadOnDisk(ctx context.Context, cfg *config.Config, wait time.Duration) (*OnDisk, error) {
	if err := cfg.RequireGame(); err != nil {
		return nil, err
	}
	lctx, cancel := context.WithTimeout(ctx, wait)
	s, err := store.OpenRead(lctx, cfg.Paths.State)
	cancel()
	if err != nil {
		return nil, err
	}
	defer s.Close()
	packs, err := pipeline.ReadPacks(cfg.Paths.State)
	if err != nil {
		return nil, err
	}
	rejected, err := pipeline.Rejections(cfg.Paths.Drop, cfg.Paths.State)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("status: read the rejected archives of %s: %w", cfg.Paths.State, err)
	}
	h, err := pipeline.ReadHistory(cfg.Paths.State)
	if err != nil {
		return nil, err
	}
	st := api.Status{Generation: h.Current, KeptArchiveBytes: h.KeptBytes, Modules: modulesOnDisk(cfg), Folders: statusFolders(cfg)}
	if pl, err := pipeline.ReadProfiles(cfg.Paths.State); err == nil {
		st.Profile = pl.Current
	}
	for _, p := range packs {
		st.Counts.Packs++
		if p.Enabled {
			st.Counts.Enabled++
			st.Counts.EnabledDoors += p.Manifest.Doors()
		}
		st.Counts.Pieces += len(p.Manifest.Pieces)
		st.Counts.Lifts += p.Manifest.Lifts()
		st.Counts.Doors += p.Manifest.Doors()
	}
	st.Counts.Rejected = len(rejected)
	st.Warnings = append(st.Warnings, st.Modules.Gates.Reasons...)
	return &OnDisk{Status: st, Rejections: wireRejections(rejected)}, nil
}

// modulesOnDisk is what status shows of the modules without a daemon: the
// gates, and whether door automation can work, which needs [deploy]
// native, the gates met and the module in the mods folder (a deploy put
// it there). No deploy ran, so none is reported.
func modulesOnDisk(cfg *config.Config) *api.Modules {
	g := native.CheckGatesDir(cfg.Paths.Mods)
	_, err := os.Stat(filepath.Join(cfg.Paths.Mods, filepath.FromSlash(native.ModulePath())))
	pm := &pipeline.Modules{Gates: g, SupportedBuilds: native.SupportedBuilds(), DoorAutomation: g.DoorAutomation && err == nil}
	if !cfg.Deploy.Native {
		pm.DoorAutomation, pm.DoorAutomationOff = false, pipeline.NativeOff
	}
	return wireModules(pm)
}
