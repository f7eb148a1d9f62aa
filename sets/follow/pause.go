package follow

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mjolnir-forge/forgesync/internal/errkind"
	"github.com/mjolnir-forge/forgesync/sets/fetch"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// Pause says that a set applied by hand pinned a machine that follows
// [sets] source: the follower checks nothing until following is resumed
// (`sync --set --follow`, POST /v1/set/follow). It is kept in set.json, so
// it holds across restarts.
type Pause struct {
	// Since is when the set was applied by hand.
	Since time.Time `json:"since"`
	// Source is where the set applied by hand came from (its password
	// redacted), or "(request body)" for a lock sent as text.
	Source string `json:"source"`
	// Fingerprint is that set's.
	Fingerprint string `json:"fingerprint"`
	// Following is the source that was followed (its password redacted).
	Following string `json:"following"`
}

// ResumeHint says how to resume following, for errors and status.
const ResumeHint = "resume with `forgesync sync --set --follow` or POST /v1/set/follow"

// errPaused is wrapped, with [errkind.Conflict], by a check of the
// followed source while a set applied by hand pins the machine.
var errPaused = errors.New("following the pack set is paused")

// Paused returns the pause of following, or nil when the machine follows
// its source (or follows none).
func (s *Syncer) Paused() *Pause {
	if s.opts.Follow == "" {
		return nil
	}
	return s.view.Load().rec.Paused
}

// pausedError is ErrPaused saying since when, by which set, and how to
// resume.
func pausedError(p *Pause) error {
	return fmt.Errorf("%w: the machine was pinned by hand to %s (%s) at %s, and %s is not checked; %s: %w",
		errPaused, p.Source, p.Fingerprint, p.Since.UTC().Format(time.RFC3339), p.Following, ResumeHint, errkind.Conflict)
}

// followed returns the followed source as a sync shows it (its lock's
// location, without a password), or "" when it follows none or the
// source cannot be read.
func (s *Syncer) followed() string {
	if s.opts.Follow == "" {
		return ""
	}
	src, err := fetch.LockSource(s.opts.Follow)
	if err != nil {
		return lock.Redact(s.opts.Follow)
	}
	return src.Redacted()
}

// pinByHand records what a set applied by hand (not by the follower)
// means for following: one from another source, or sent as text, pauses
// it; the followed source itself, applied by hand, is following and
// resumes it. Called with mu held, after the set was applied.
func (s *Syncer) pinByHand(check *Check) error {
	followed := s.followed()
	if followed == "" {
		return nil
	}
	v := s.view.Load()
	rec := v.rec
	if check.Source == followed {
		if rec.Paused == nil {
			return nil
		}
		s.opts.Log.Info("pack set following resumed: the followed source was applied by hand", "source", followed)
		rec.Paused = nil
	} else {
		rec.Paused = &Pause{Since: s.opts.Now().UTC(), Source: check.Source, Fingerprint: check.Fingerprint, Following: followed}
		s.opts.Log.Info("pack set following paused: a set was applied by hand", "source", check.Source,
			"fingerprint", check.Fingerprint, "following", followed)
	}
	return s.save(rec, v.pins)
}

// Resume resumes following [sets] source after a set applied by hand
// paused it, and checks the source at once (applying it when the machine
// differs): `forgesync sync --set --follow`, POST /v1/set/follow. Without
// a source it fails with ErrNoSource.
func (s *Syncer) Resume(ctx context.Context) (*Result, error) {
	if s.opts.Follow == "" {
		return nil, fmt.Errorf("%w: set one to follow a pack set: %w", errNoSource, errkind.Invalid)
	}
	if err := s.unpause(); err != nil {
		return nil, err
	}
	return s.SyncSet(ctx, Request{Source: s.opts.Follow, follow: true})
}

// unpause forgets the pause and saves the record; while a sync runs it
// fails at once with ErrSyncRunning, as a sync asked for then does.
func (s *Syncer) unpause() error {
	if s.view.Load().rec.Paused == nil {
		return nil
	}
	if !s.mu.TryLock() {
		return fmt.Errorf("%w (try again when it ends): %w", errSyncRunning, errkind.Busy)
	}
	defer s.mu.Unlock()
	v := s.view.Load()
	rec := v.rec
	if rec.Paused == nil {
		return nil
	}
	s.opts.Log.Info("pack set following resumed", "source", s.followed())
	rec.Paused = nil
	return s.save(rec, v.pins)
}

// Retire waits for a sync that runs to end and keeps any other from
// starting on this Syncer, which a config reload replaces by a new one on
// the same state: a sync asked of it from now on fails with
// ErrSyncRunning.
func (s *Syncer) Retire() {
	s.mu.Lock() // never unlocked: the Syncer is done
	s.since.Store(s.opts.Now().UnixNano())
}
