package daemon

import (
	"context"
	"encoding/json"
	"log/slog"
	"path/filepath"
	"sync"
	"time"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
	"github.com/mjolnir-forge/forgesync/selfupdate"
)

// updateCheckEvery is how often the daemon reads the release feed at most.
const updateCheckEvery = 24 * time.Hour

// updateRetryAfter is how soon a check that failed (the machine offline,
// the feed down) is tried again: a player who was offline in the morning
// still hears of a release the same day.
const updateRetryAfter = time.Hour

// updateCheckFile keeps the last check in the state folder, so that a
// daemon started again within the day does not read the feed again.
const updateCheckFile = "update-check.json"

// updateChecker reads the release feed at most once a day ([update] check)
// and keeps what it found for GET /v1/update.
type updateChecker struct {
	opts  selfupdate.Options
	file  string // the last check, in the state folder
	now   func() time.Time
	log   *slog.Logger
	check func(ctx context.Context, o selfupdate.Options) (selfupdate.Release, error)

	mu   sync.Mutex // guards last
	last api.UpdateStatus
}

// newUpdateChecker returns the checker of a daemon of version current
// whose state folder is state.
func newUpdateChecker(o selfupdate.Options, state string, log *slog.Logger) *updateChecker {
	u := &updateChecker{opts: o, file: filepath.Join(state, updateCheckFile), now: time.Now, log: log, check: selfupdate.Check}
	u.last = api.UpdateStatus{Current: o.Current, Checking: true}
	return u
}

// Status returns what the last check found.
func (u *updateChecker) Status() api.UpdateStatus {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.last
}

// run checks when a check is due, then again each time one falls due,
// until ctx ends.
func (u *updateChecker) run(ctx context.Context) error {
	for {
		next := u.checkIfDue(ctx)
		t := time.NewTimer(next.Sub(u.now()))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
	}
}

// checkIfDue reads the feed unless the last check (kept in the state
// folder) is less than a day old (an hour when it failed), and returns
// when the next is due.
func (u *updateChecker) checkIfDue(ctx context.Context) time.Time {
	now := u.now()
	var kept api.UpdateStatus
	if data, err := atomicfile.ReadFile(u.file, 64<<10); err == nil && json.Unmarshal(data, &kept) == nil && kept.CheckedAt != nil {
		every := updateCheckEvery
		if kept.Error != "" {
			every = updateRetryAfter
		}
		if age := now.Sub(*kept.CheckedAt); age >= 0 && age < every {
			u.set(kept)
			return kept.CheckedAt.Add(every)
		}
	}
	st := api.UpdateStatus{Latest: kept.Latest, CheckedAt: &now}
	r, err := u.check(ctx, u.opts)
	if err != nil {
		st.Error = err.Error()
	} else {
		st.Latest = r.Latest
	}
	if data, err := json.Marshal(st); err == nil {
		if err := atomicfile.WriteFile(u.file, data, 0o644); err != nil {
			u.log.Warn("update check: keep its result", attrErr(err))
		}
	}
	u.set(st)
	switch {
	case err != nil:
		u.log.Warn("update check failed; trying again in an hour", attrErr(err))
		return now.Add(updateRetryAfter)
	case r.Available:
		u.log.Info("a newer forgesync exists: run forgesync update", "version", r.Latest, "current", u.opts.Current)
	}
	return now.Add(updateCheckEvery)
}

// set makes st, for this daemon's version, the last check.
func (u *updateChecker) set(st api.UpdateStatus) {
	st.Current, st.Checking = u.opts.Current, true
	if st.Latest != "" {
		st.Available = selfupdate.Newer(st.Latest, u.opts.Current)
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	u.last = st
}
