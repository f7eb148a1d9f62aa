// Package api owns the wire shapes forgesync shows the outside (SPEC §8):
// the event vocabulary (each event type and the Go type of its data), the
// status, pack, set, history and rejection answers of the status socket,
// the summary a transaction returns, and the OpenAPI document that
// describes them. The shapes are the wire's alone: the domain packages
// keep their own types and know nothing of these, and the daemon converts
// them once (daemon/wire.go), so a change here changes no file on disk and
// no domain code. Beyond the data it only decodes an event's data by its
// type; the CLI's plain-text views of the shapes are cmd/forgesync/view's.
// It imports nothing of the module.
package api

import (
	"encoding/json"
	"fmt"
	"time"
)

// EventType says what an [Event] reports.
type EventType string

// The event types (SPEC §8). Each has one data type, whose EventType
// method returns it.
const (
	EventArchiveSeen        EventType = "archive-seen"
	EventProgress           EventType = "progress"
	EventPackInstalled      EventType = "pack-installed"
	EventPackRejected       EventType = "pack-rejected"
	EventInventoryPublished EventType = "inventory-published"
	EventModuleDeployed     EventType = "module-deployed"
	eventWarning            EventType = "warning"
	// EventSetApplied follows a set apply or a rollback that changed the
	// installed set (SPEC §10.3); its data is a [SetResult].
	EventSetApplied EventType = "set-applied"
	// EventGeneration follows every transaction that recorded a generation
	// (SPEC §11); its data is a [GenerationRecorded].
	EventGeneration EventType = "generation"
	// EventPackEnabled, EventPackDisabled and EventPackRemoved follow an
	// enable, disable or remove request that changed the installed set;
	// their data is a [PackEnabled], [PackDisabled] or [PackRemoved]. A set
	// apply or a rollback reports what it changed in [EventSetApplied].
	EventPackEnabled  EventType = "pack-enabled"
	EventPackDisabled EventType = "pack-disabled"
	EventPackRemoved  EventType = "pack-removed"
	// EventSyncStarted and EventSyncFinished come around every pass over
	// the drop folder, whatever triggered it, the finish even when the pass
	// failed; their data is a [SyncStarted] and a [SyncFinished].
	EventSyncStarted  EventType = "sync-started"
	EventSyncFinished EventType = "sync-finished"
	// EventProfileSwitched follows a profile switch (SPEC §12); its data is
	// a [ProfileSwitched].
	EventProfileSwitched EventType = "profile-switched"
	// EventDropped is never published: it is the type of the last line
	// the server writes on an event stream whose client fell so far behind
	// that its buffer filled up. That line has ID 0 and [Dropped] data.
	EventDropped EventType = "dropped"
)

// EventData is the data of one event; its dynamic type fixes the event's
// type, so an event cannot carry the data of another.
type EventData interface {
	EventType() EventType
}

// ArchiveSeen is the data of [EventArchiveSeen]: an archive in drop was
// claimed for processing.
type ArchiveSeen struct {
	Archive string `json:"archive"` // file name in drop
	Size    int64  `json:"size"`    // bytes
}

// Progress is the data of [EventProgress]: how far one archive's step is.
// Total is 0 when it is not known.
type Progress struct {
	Archive string `json:"archive"`
	Step    string `json:"step"` // "extract"
	Done    int64  `json:"done"`
	Total   int64  `json:"total"`
}

// PackInstalled is the data of [EventPackInstalled]: an archive was
// installed, replaced another version, or was already installed.
type PackInstalled struct {
	Archive string `json:"archive"`
	Pack    string `json:"pack"`
	Version string `json:"version"`
	Result  Result `json:"result"`
	// Previous is the version it replaced, empty for a new pack.
	Previous string `json:"previous,omitempty"`
}

// PackRejected is the data of [EventPackRejected].
type PackRejected struct {
	Archive string   `json:"archive"`
	Pack    string   `json:"pack,omitempty"`    // as far as it could be read
	Version string   `json:"version,omitempty"` // likewise
	Reasons []Reason `json:"reasons"`
}

// InventoryPublished is the data of [EventInventoryPublished].
type InventoryPublished struct {
	Files []string `json:"files"` // the files rewritten, in publication order
	Packs int      `json:"packs"` // enabled packs in the published set
}

// ModuleDeployed is the data of [EventModuleDeployed]: a deployed file
// (a Lua script or the native module) was written.
type ModuleDeployed struct {
	Component string `json:"component"` // "lua" or "native"
	Path      string `json:"path"`
	SHA256    string `json:"sha256"`
	// Pending is true when the file was locked (a running game) and is
	// staged beside it until the lock goes.
	Pending bool `json:"pending,omitempty"`
}

// Warning is the data of [eventWarning].
type Warning struct {
	Message string `json:"message"`
}

// GenerationRecorded is the data of [EventGeneration].
type GenerationRecorded struct {
	N           int    `json:"n"`
	Cause       Cause  `json:"cause"`
	Fingerprint string `json:"fingerprint"`
	Packs       int    `json:"packs"` // installed packs in the generation
}

// PackChange is what changed for one pack: its id, its installed version,
// and the generation the change recorded (0 when none was).
type PackChange struct {
	Pack       string `json:"pack"`
	Version    string `json:"version"`
	Generation int    `json:"generation,omitempty"`
}

// PackEnabled is the data of [EventPackEnabled].
type PackEnabled PackChange

// PackDisabled is the data of [EventPackDisabled].
type PackDisabled PackChange

// PackRemoved is the data of [EventPackRemoved]; Version is the version
// uninstalled.
type PackRemoved PackChange

// What started a pass, in [SyncStarted.Trigger].
const (
	// TriggerStart is the pass at the start, which also finishes what a
	// stop or a crash interrupted.
	TriggerStart = "start"
	// TriggerWatch is the drop folder's watcher (or its periodic rescan)
	// finding archives that settled.
	TriggerWatch = "watch"
	// TriggerRequest is a sync request: POST /v1/sync, `forgesync sync`.
	TriggerRequest = "request"
	// TriggerInstall is `forgesync install FILE`.
	TriggerInstall = "install"
)

// SyncStarted is the data of [EventSyncStarted].
type SyncStarted struct {
	Trigger string `json:"trigger"`
	// Archives are the archives the pass considers: those an earlier pass
	// left in processing, in the order it takes them, then those it is
	// about to claim from drop (one that is gone meanwhile, or waits for
	// the machine, see [ResultWaiting], is listed too). It is sent before
	// the pass claims anything.
	Archives []string `json:"archives"`
}

// SyncFinished is the data of [EventSyncFinished].
type SyncFinished struct {
	Trigger string `json:"trigger"`
	// Archives are the archives the pass gave an outcome, in order; none
	// when it failed.
	Archives []string `json:"archives"`
	// Results counts the archives' outcomes by result; a result no
	// archive had is absent.
	Results         map[Result]int `json:"results"`
	DurationSeconds float64        `json:"duration_s"`
	// Fingerprint is the set fingerprint (SPEC §10.1) of the enabled packs
	// after the pass; absent when the pass failed.
	Fingerprint string `json:"fingerprint,omitempty"`
	// Generation is the generation the pass recorded, 0 when the installed
	// set did not change.
	Generation int `json:"generation,omitempty"`
	// Error is why the pass failed; nothing of it was committed.
	Error string `json:"error,omitempty"`
}

// ProfileSwitched is the data of [EventProfileSwitched]: the profile
// current before and after, and the generation the switch recorded (0
// when the installed set was the profile's already).
type ProfileSwitched struct {
	From       string `json:"from"`
	To         string `json:"to"`
	Generation int    `json:"generation"`
}

// Dropped is the data of the [EventDropped] marker: the id of the last
// event written before it. The client reconnects with since=LastID and
// finds out by the ids whether the ring still held what it missed.
type Dropped struct {
	LastID uint64 `json:"last_id"`
}

// EventType returns [EventArchiveSeen].
func (ArchiveSeen) EventType() EventType { return EventArchiveSeen }

// EventType returns [EventProgress].
func (Progress) EventType() EventType { return EventProgress }

// EventType returns [EventPackInstalled].
func (PackInstalled) EventType() EventType { return EventPackInstalled }

// EventType returns [EventPackRejected].
func (PackRejected) EventType() EventType { return EventPackRejected }

// EventType returns [EventInventoryPublished].
func (InventoryPublished) EventType() EventType { return EventInventoryPublished }

// EventType returns [EventModuleDeployed].
func (ModuleDeployed) EventType() EventType { return EventModuleDeployed }

// EventType returns [eventWarning].
func (Warning) EventType() EventType { return eventWarning }

// EventType returns [EventSetApplied].
func (SetResult) EventType() EventType { return EventSetApplied }

// EventType returns [EventGeneration].
func (GenerationRecorded) EventType() EventType { return EventGeneration }

// EventType returns [EventPackEnabled].
func (PackEnabled) EventType() EventType { return EventPackEnabled }

// EventType returns [EventPackDisabled].
func (PackDisabled) EventType() EventType { return EventPackDisabled }

// EventType returns [EventPackRemoved].
func (PackRemoved) EventType() EventType { return EventPackRemoved }

// EventType returns [EventSyncStarted].
func (SyncStarted) EventType() EventType { return EventSyncStarted }

// EventType returns [EventSyncFinished].
func (SyncFinished) EventType() EventType { return EventSyncFinished }

// EventType returns [EventProfileSwitched].
func (ProfileSwitched) EventType() EventType { return EventProfileSwitched }

// EventType returns [EventDropped].
func (Dropped) EventType() EventType { return EventDropped }

// Event is one entry of the event stream. IDs start at 1 and are
// consecutive for the life of the daemon, so a client that sees an id
// greater than the last one it saw plus one knows it missed events, and one
// that sees an id not greater than the last one knows the daemon restarted.
type Event struct {
	ID   uint64          `json:"id"`
	Time time.Time       `json:"time"`
	Type EventType       `json:"type"`
	Data json.RawMessage `json:"data,omitempty"`
}

// decoders decode the data of each known event type.
var decoders = map[EventType]func(json.RawMessage) (EventData, error){
	EventArchiveSeen:        decodeAs[ArchiveSeen],
	EventProgress:           decodeAs[Progress],
	EventPackInstalled:      decodeAs[PackInstalled],
	EventPackRejected:       decodeAs[PackRejected],
	EventInventoryPublished: decodeAs[InventoryPublished],
	EventModuleDeployed:     decodeAs[ModuleDeployed],
	eventWarning:            decodeAs[Warning],
	EventDropped:            decodeAs[Dropped],
	EventSetApplied:         decodeAs[SetResult],
	EventGeneration:         decodeAs[GenerationRecorded],
	EventSetChecked:         decodeAs[SetCheck],
	EventDownload:           decodeAs[Download],
	EventSetStaged:          decodeAs[SetStaged],
	EventPackEnabled:        decodeAs[PackEnabled],
	EventPackDisabled:       decodeAs[PackDisabled],
	EventPackRemoved:        decodeAs[PackRemoved],
	EventSyncStarted:        decodeAs[SyncStarted],
	EventSyncFinished:       decodeAs[SyncFinished],
	EventProfileSwitched:    decodeAs[ProfileSwitched],
}

func decodeAs[T EventData](raw json.RawMessage) (EventData, error) {
	var v T
	err := json.Unmarshal(raw, &v)
	return v, err
}

// Decode returns the event's data as the value of its type (ArchiveSeen,
// Progress, …, not a pointer). A type this version does not know is an
// error a client may skip: a newer daemon may send it.
func (e Event) Decode() (EventData, error) {
	dec, ok := decoders[e.Type]
	if !ok {
		return nil, fmt.Errorf("event %d: unknown type %q", e.ID, e.Type)
	}
	d, err := dec(e.Data)
	if err != nil {
		return nil, fmt.Errorf("event %d (%s): %w", e.ID, e.Type, err)
	}
	return d, nil
}
