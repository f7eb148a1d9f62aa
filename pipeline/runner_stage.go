package pipeline

import (
	"context"

	"github.com/mjolnir-forge/forgesync/installer/store"
)

// RecordProfile records a staged set as a profile on the writer goroutine
// (see Pipeline.RecordProfile); the installed set does not change, so it
// is not reported as a sync.
func (r *Runner) RecordProfile(ctx context.Context, spec ProfileSpec, source ArchiveSource) (*store.Profile, error) {
	var pr *store.Profile
	err := r.Do(ctx, func(ctx context.Context, p *Pipeline) error {
		var err error
		pr, err = p.RecordProfile(ctx, spec, source)
		return err
	})
	return pr, err
}

// SwitchFingerprint switches to the profile whose set has fingerprint fp
// through the writer; see Pipeline.SwitchFingerprint.
func (r *Runner) SwitchFingerprint(ctx context.Context, fp string) (*Summary, error) {
	return r.submit(ctx, func(ctx context.Context) (*Summary, error) { return r.p.SwitchFingerprint(ctx, fp) })
}

// ReadProfiles returns the profiles kept in the state folder without
// waiting for the writer (see ReadProfiles).
func (r *Runner) ReadProfiles() (*ProfileList, error) { return ReadProfiles(r.p.store.Dir) }
