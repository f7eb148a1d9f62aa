package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/mjolnir-forge/forgesync/daemon"
	"github.com/mjolnir-forge/forgesync/installer"
	"github.com/mjolnir-forge/forgesync/native"
	"github.com/mjolnir-forge/forgesync/pipeline"
)

// backend serves the status socket from the pipeline's Runner: reads from
// its snapshot, mutations through its single writer. It is wiring only:
// it converts between the pipeline's types and the socket's.
type backend struct {
	r       *pipeline.Runner
	logFile string                          // the service's log file, for status
	modules atomic.Pointer[json.RawMessage] // gates and deploy reports, refreshed by the writer
}

// moduleStatus is the "modules" part of GET /v1/status.
type moduleStatus struct {
	Gates    native.Gates           `json:"gates"`
	Deployed []installer.FileReport `json:"deployed"`
}

func (b *backend) setModules(g native.Gates, reports []installer.FileReport) {
	if reports == nil {
		reports = []installer.FileReport{}
	}
	data, _ := json.Marshal(moduleStatus{Gates: g, Deployed: reports})
	raw := json.RawMessage(data)
	b.modules.Store(&raw)
}

func (b *backend) Status() daemon.Status {
	s := b.r.Snapshot()
	st := daemon.Status{State: s.State, Version: version, StartedAt: s.Started, Warnings: s.Warnings, Queue: s.Queue, LogFile: b.logFile}
	if s.LastSync != nil {
		st.LastSync = &daemon.LastSync{Time: s.LastSync.Time, Result: s.LastSync.Result,
			DurationSeconds: s.LastSync.Duration.Seconds(), Error: s.LastSync.Error}
	}
	for _, p := range s.Packs {
		st.Counts.Packs++
		if p.Enabled {
			st.Counts.Enabled++
		}
		st.Counts.Pieces += len(p.Manifest.Pieces)
		for _, pc := range p.Manifest.Pieces {
			if pc.Lift != nil {
				st.Counts.Lifts++
			}
		}
		st.Counts.Doors += p.Manifest.Doors()
	}
	st.Counts.Rejected = len(s.Rejections)
	if m := b.modules.Load(); m != nil {
		st.Modules = *m
		var ms moduleStatus
		if json.Unmarshal(*m, &ms) == nil {
			st.Warnings = append(st.Warnings, ms.Gates.Reasons...)
		}
	}
	return st
}

func (b *backend) Packs() []daemon.Pack {
	s := b.r.Snapshot()
	out := make([]daemon.Pack, 0, len(s.Packs))
	for _, p := range s.Packs {
		m := p.Manifest
		pieces, _ := json.Marshal(m.Pieces)
		out = append(out, daemon.Pack{ID: m.ID, Version: m.Version, Name: m.Name, Authors: m.Authors,
			Description: m.Description, Enabled: p.Enabled, ArchiveSHA256: p.ArchiveSHA256, Pieces: pieces})
	}
	return out
}

func (b *backend) Rejections() []daemon.Rejection {
	return b.r.Snapshot().Rejections
}

func (b *backend) Enable(ctx context.Context, id string) (json.RawMessage, error) {
	return summaryJSON(b.r.Enable(ctx, id))
}

func (b *backend) Disable(ctx context.Context, id string) (json.RawMessage, error) {
	return summaryJSON(b.r.Disable(ctx, id))
}

func (b *backend) Remove(ctx context.Context, id string) (json.RawMessage, error) {
	return summaryJSON(b.r.Remove(ctx, id))
}

func (b *backend) Sync(ctx context.Context) (json.RawMessage, error) {
	return summaryJSON(b.r.Sync(ctx))
}

// summaryJSON maps the pipeline's errors to the socket's and its summary
// to the response body.
func summaryJSON(sum *pipeline.Summary, err error) (json.RawMessage, error) {
	switch {
	case errors.Is(err, pipeline.ErrNotInstalled):
		return nil, fmt.Errorf("%w: %w", daemon.ErrNotFound, err)
	case errors.Is(err, pipeline.ErrRefused):
		return nil, fmt.Errorf("%w: %w", daemon.ErrConflict, err)
	case errors.Is(err, context.Canceled):
		return nil, fmt.Errorf("%w: %w", daemon.ErrBusy, err)
	case err != nil:
		return nil, err
	}
	data, err := json.Marshal(sum)
	return data, err
}

// publishEvent turns a pipeline event into a socket event.
func publishEvent(ev *daemon.Events, kind string, data any) {
	switch kind {
	case pipeline.EventArchiveSeen:
		name, _ := data.(string)
		ev.Publish(daemon.EventArchiveSeen, daemon.ArchiveSeenData{Archive: name})
	case pipeline.EventProgress:
		p, _ := data.(pipeline.ProgressInfo)
		ev.Publish(daemon.EventProgress, daemon.ProgressData{Archive: p.Archive, Step: "extract", Done: p.Done, Total: p.Total})
	case pipeline.EventInstalled:
		o, _ := data.(pipeline.Outcome)
		ev.Publish(daemon.EventPackInstalled, daemon.PackInstalledData{Archive: o.Archive, Pack: o.Pack, Version: o.Version, Previous: o.Previous})
	case pipeline.EventRejected:
		o, _ := data.(pipeline.Outcome)
		ev.Publish(daemon.EventPackRejected, daemon.PackRejectedData{Archive: o.Archive, Reasons: o.Reasons})
	case pipeline.EventPublished:
		files, _ := data.([]string)
		ev.Publish(daemon.EventInventoryPublished, daemon.InventoryPublishedData{Files: files})
	case pipeline.EventWarning:
		msg, _ := data.(string)
		ev.Publish(daemon.EventWarning, daemon.WarningData{Message: msg})
	}
}
