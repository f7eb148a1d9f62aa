package daemon

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/internal/errkind"
	"github.com/mjolnir-forge/forgesync/pipeline"
	"github.com/mjolnir-forge/forgesync/sets/follow"
)

// NewBackend returns what the status socket serves of a running daemon:
// the writer r's snapshots and mutations, and, when sets is not nil, the
// pack set endpoints of SPEC §10.3 ([setBackend]) of the Syncer it holds,
// which a config reload may replace. Every answer is the domain's value
// converted to its wire shape.
func NewBackend(r *pipeline.Runner, sets *atomic.Pointer[follow.Syncer]) Backend {
	if sets == nil {
		return runnerBackend{r}
	}
	return setsBackend{runnerBackend{r}, sets}
}

// runnerBackend serves a Runner: a [Backend], [retrier] and [installer].
type runnerBackend struct {
	r *pipeline.Runner
}

// Status is the writer's status from its latest snapshot.
func (b runnerBackend) Status() api.Status { return wireStatus(b.r.Status()) }

// Packs are the installed packs from the latest snapshot.
func (b runnerBackend) Packs() []api.Pack { return wirePacks(b.r.Packs()) }

// Rejections are the rejected archives in drop/rejected/.
func (b runnerBackend) Rejections() []api.Rejection { return wireRejections(b.r.Rejections()) }

// History is the kept generations from the latest snapshot.
func (b runnerBackend) History() *api.History { return wireHistory(b.r.History()) }

// Enable enables a pack through the writer.
func (b runnerBackend) Enable(ctx context.Context, id string) (*api.Summary, error) {
	return wired(b.r.Enable(ctx, id))
}

// Disable disables a pack through the writer.
func (b runnerBackend) Disable(ctx context.Context, id string) (*api.Summary, error) {
	return wired(b.r.Disable(ctx, id))
}

// Remove uninstalls a pack through the writer.
func (b runnerBackend) Remove(ctx context.Context, id string) (*api.Summary, error) {
	return wired(b.r.Remove(ctx, id))
}

// SyncDrop processes the drop folder through the writer.
func (b runnerBackend) SyncDrop(ctx context.Context) (*api.Summary, error) {
	return wired(b.r.SyncDrop(ctx))
}

// Rollback returns to generation n through the writer.
func (b runnerBackend) Rollback(ctx context.Context, n int) (*api.Summary, error) {
	return wired(b.r.Rollback(ctx, n))
}

// Retry moves rejected archives back into drop and processes them.
func (b runnerBackend) Retry(ctx context.Context, req api.Retry) (*api.Summary, error) {
	return wired(b.r.Retry(ctx, pipeline.RetryOptions{Archives: req.Archives, All: req.All}))
}

// InstallHanded installs an archive a command copied into drop/.install/.
func (b runnerBackend) InstallHanded(ctx context.Context, req api.Install) (*api.Summary, error) {
	return wired(b.r.InstallHanded(ctx, req.Archive, pipeline.InstallOptions{Force: req.Force}))
}

// setsBackend serves a Runner and the set follower beside it: a
// runnerBackend that is also a [setBackend], and whose status says how the
// machine stands against its set.
type setsBackend struct {
	runnerBackend
	follower *atomic.Pointer[follow.Syncer] // a config reload replaces it
}

func (b setsBackend) sets() *follow.Syncer { return b.follower.Load() }

// Status adds to the Runner's status how the machine stands against its
// set, and its warnings of the set's expiry.
func (b setsBackend) Status() api.Status {
	st := b.runnerBackend.Status()
	installed, _ := b.r.Installed()
	st.Set = wireSetStatus(b.sets().Status(installed))
	st.Warnings = append(st.Warnings, b.sets().Warnings()...)
	return st
}

// SetInfo answers GET /v1/set.
func (b setsBackend) SetInfo() api.SetInfo {
	installed, _ := b.r.Installed()
	return wireSetInfo(installed, b.sets().Status(installed))
}

// SetDiff answers POST /v1/set/diff.
func (b setsBackend) SetDiff(_ context.Context, body []byte) (api.SetComparison, error) {
	installed, _ := b.r.Installed()
	c, err := follow.Diff(installed, body)
	if err != nil {
		return api.SetComparison{}, err
	}
	return wireComparison(c), nil
}

// SetApply answers POST /v1/set/apply.
func (b setsBackend) SetApply(ctx context.Context, req api.SetApplyRequest) (*api.SetSyncResult, error) {
	switch {
	case req.URL != "" && req.Lock != "":
		return nil, fmt.Errorf("give either url or lock, not both: %w", errkind.Invalid)
	case req.URL == "" && req.Lock == "":
		return nil, fmt.Errorf("give the url of a lock, or a lock (with its signature): %w", errkind.Invalid)
	}
	r := follow.Request{Source: req.URL, Prune: req.Prune}
	if req.Lock != "" {
		r.Lock = []byte(req.Lock)
		if req.Signature != "" {
			r.Signature = []byte(req.Signature)
		}
	}
	res, err := b.sets().SyncSet(ctx, r)
	return wireSetSync(res), err
}

// SetCheck answers POST /v1/set/check.
func (b setsBackend) SetCheck(ctx context.Context) (*api.SetSyncResult, error) {
	res, err := b.sets().Check(ctx)
	return wireSetSync(res), err
}

// SetFollow answers POST /v1/set/follow.
func (b setsBackend) SetFollow(ctx context.Context) (*api.SetSyncResult, error) {
	res, err := b.sets().Resume(ctx)
	return wireSetSync(res), err
}

var (
	_ retrier    = runnerBackend{}
	_ installer  = runnerBackend{}
	_ setBackend = setsBackend{}
)
