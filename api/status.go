package api

import (
	"encoding/json"
	"time"
)

// State is what the daemon is doing, in [Status.State].
type State string

// The daemon's states.
const (
	StateIdle    State = "idle"
	StateSyncing State = "syncing" // a transaction runs
	StateError   State = "error"   // the last sync failed: LastSync.Error says why
)

// Status is the answer of GET /v1/status.
type Status struct {
	State State `json:"state"`
	// Version is the daemon's version; the server fills it in.
	Version string `json:"version"`
	// Commit and BuildDate are the commit the daemon was built from and
	// when (RFC 3339), empty when unknown; the server fills them in.
	Commit    string `json:"commit,omitempty"`
	BuildDate string `json:"build_date,omitempty"`
	// PID is the daemon's process id; the server fills it in.
	PID int `json:"pid"`
	// StartedAt is when the daemon started; UptimeSeconds is filled in by
	// the server from it when the backend leaves it zero.
	StartedAt     time.Time `json:"started_at"`
	UptimeSeconds float64   `json:"uptime_s"`
	// LastSync is the last finished sync, nil before the first.
	LastSync *LastSync `json:"last_sync,omitempty"`
	// Counts are the sizes of the installed set.
	Counts Counts `json:"counts"`
	// Modules holds the mod versions and gates (SPEC §7) and what the last
	// deploy did; nil before the first deploy.
	Modules *Modules `json:"modules,omitempty"`
	// Warnings are things a user should act on, in plain words.
	Warnings []string `json:"warnings"`
	// LogFile is the file a service logs to, rotated by size; empty when
	// the daemon logs to a terminal. The server fills it in.
	LogFile string `json:"log_file,omitempty"`
	// Queue lists the archive names waiting in drop or being processed.
	Queue []string `json:"queue"`
	// Generation is the current generation (SPEC §11); 0 before the first.
	Generation int `json:"generation"`
	// KeptArchiveBytes is the disk the kept archives take: the installed
	// packs' and the kept generations'.
	KeptArchiveBytes int64 `json:"kept_archive_bytes"`
	// Profile is the current profile (SPEC §12): "own" unless a switch
	// made another current.
	Profile string `json:"profile,omitempty"`
	// Set says how the machine stands against its pack set (SPEC §10):
	// the set's fingerprint and source, and whether the machine equals
	// it; nil when the machine has no set.
	Set *SetStatus `json:"set,omitempty"`
	// Priority is the install work's priority, the configuration's
	// [performance] priority: "background" or "normal". The server fills
	// it in.
	Priority string `json:"priority,omitempty"`
	// Folders are where the daemon works, as absolute paths. The server
	// fills them in.
	Folders Folders `json:"folders"`
}

// Folders are the daemon's folders in [Status], absolute.
type Folders struct {
	// Drop is the drop folder: an archive renamed into it is installed.
	Drop string `json:"drop"`
	// State is forgesync's own data: packs.json, kept archives, the
	// api-key file.
	State string `json:"state"`
	// Inventory is where the inventory files (installed.json,
	// installed.txt, doors.txt, lifts.txt) are published.
	Inventory string `json:"inventory"`
}

// LastSync describes the last finished sync.
type LastSync struct {
	Time            time.Time  `json:"time"`
	Result          SyncResult `json:"result"`
	DurationSeconds float64    `json:"duration_s"`
	// Error is the failure in plain words, when Result says it failed or
	// waits.
	Error string `json:"error,omitempty"`
	// Results counts a pass's archives by outcome (as sync-finished
	// does); empty for a change to one pack and for a failed pass.
	Results map[Result]int `json:"results,omitempty"`
}

// SyncResult is how the last sync ended, in [LastSync.Result].
type SyncResult string

// The ends of a sync.
const (
	SyncOK       SyncResult = "ok"
	SyncRejected SyncResult = "rejected" // an archive was rejected
	// SyncWaiting: an archive waits for the machine's condition to pass;
	// Error says which and why.
	SyncWaiting SyncResult = "waiting"
	SyncRefused SyncResult = "refused" // the install rules refused a request
	SyncError   SyncResult = "error"   // it failed: Error says why
)

// Counts are the sizes of the installed set in [Status]. Pieces, Lifts
// and Doors count every installed pack's, enabled or not; EnabledDoors
// counts the enabled packs' only, as the 256-door limit does.
type Counts struct {
	Packs   int `json:"packs"`
	Enabled int `json:"enabled"`
	Pieces  int `json:"pieces"`
	Lifts   int `json:"lifts"`
	Doors   int `json:"doors"`
	// EnabledDoors are the doors of the enabled packs: what the limit of
	// inventory.MaxDoorsInstalled counts.
	EnabledDoors int `json:"enabled_doors"`
	Rejected     int `json:"rejected"`
}

// Pack is one installed pack as GET /v1/packs and GET /v1/packs/{id} show
// it, and as `forgesync packs` lists it.
type Pack struct {
	ID            string   `json:"id"`
	Version       string   `json:"version"`
	Name          string   `json:"name"`
	Authors       []string `json:"authors,omitempty"`
	Description   string   `json:"description,omitempty"`
	Enabled       bool     `json:"enabled"`
	ArchiveSHA256 string   `json:"archive_sha256"`
	// Pieces, Lifts and Doors count the pack's pieces.
	PieceCount int `json:"piece_count"`
	Lifts      int `json:"lifts"`
	Doors      int `json:"doors"`
	// Pieces are the pack's normalized pieces (SPEC §6, installed.json), as
	// the inventory renders them: their shape is the manifest's, which
	// this package leaves to the inventory.
	Pieces json.RawMessage `json:"pieces"`
}

// ModState says what was found for one gating mod.
type ModState string

// ModVersion is the gate's finding for one mod.
type ModVersion struct {
	Mod     string   `json:"mod"`
	Version string   `json:"version,omitempty"`
	Minimum string   `json:"minimum"`
	State   ModState `json:"state"`
	Reason  string   `json:"reason,omitempty"`
}

// Gates is the SPEC §7 version gate.
type Gates struct {
	Mods []ModVersion `json:"mods"`
	// DoorAutomation reports whether the mods' versions let the native
	// door module animate doors: MJOLNIRForge, MJOLNIRLobby and
	// MJOLNIRLevelLoader at their minimum versions or newer, together.
	DoorAutomation bool `json:"door_automation"`
	// PackLifts reports whether pack lifts can work (MJOLNIRLevelLoader).
	PackLifts bool `json:"pack_lifts"`
	// Reasons says in words why something cannot work, and what to do.
	Reasons []string `json:"reasons,omitempty"`
}

// DeployStatus says what a deploy did with one file.
type DeployStatus string

// FileReport is what a deploy did with one file.
type FileReport struct {
	Component string       `json:"component"` // "lua" or "native"
	Name      string       `json:"name"`
	Path      string       `json:"path"`
	Status    DeployStatus `json:"status"`
	SHA256    string       `json:"sha256"`           // of the source bytes
	Staged    string       `json:"staged,omitempty"` // the pending file beside a locked target
	Reason    string       `json:"reason,omitempty"` // why a file was skipped, staged or failed
}

// ReloadResult is the answer of POST /v1/reload: the config file read,
// the sections whose changes were applied, and the keys that changed but
// take effect only at a restart.
type ReloadResult struct {
	Config       string   `json:"config"`
	Applied      []string `json:"applied"`
	NeedsRestart []string `json:"needs_restart"`
}

// Modules is the "modules" part of GET /v1/status: the gates, what the
// last deploy did, and whether doors can be automated at all.
type Modules struct {
	Gates    Gates        `json:"gates"`
	Deployed []FileReport `json:"deployed"`
	// DoorAutomation reports whether doors can be animated: the gates
	// allow it and the native module was not missing or failed at the
	// last deploy.
	DoorAutomation bool `json:"door_automation"`
	// DoorAutomationOff says why door automation is off when the
	// configuration turned it off ([deploy] native = false).
	DoorAutomationOff string `json:"door_automation_off,omitempty"`
	// SupportedBuilds are the game builds the release's native module
	// accepts (its build allowlist).
	SupportedBuilds []string `json:"supported_builds"`
}

// UpdateStatus is the answer of GET /v1/update: the daemon's version and
// what its last look at the release feed found ([update] check).
type UpdateStatus struct {
	Current   string `json:"current"`
	Latest    string `json:"latest,omitempty"`
	Available bool   `json:"available"`
	// Checking reports whether the daemon checks the feed ([update] check).
	Checking bool `json:"checking"`
	// CheckedAt is when the feed was last read; absent before then.
	CheckedAt *time.Time `json:"checked_at,omitempty"`
	// Error says why the last check failed; absent when it did not.
	Error string `json:"error,omitempty"`
}
