package api

import "time"

// Generation is one committed installed set (SPEC §11). A generation never
// changes once recorded; readers may share it.
type Generation struct {
	N           int              `json:"n"`
	Time        time.Time        `json:"time"`
	Cause       Cause            `json:"cause"`
	Fingerprint string           `json:"fingerprint"`
	Packs       []GenerationPack `json:"packs"` // sorted by id
}

// Cause is what recorded a generation.
type Cause string

// The causes of a generation (SPEC §11).
const (
	CauseDrop     Cause = "drop" // a pass over the drop folder
	CauseInstall  Cause = "install"
	CauseEnable   Cause = "enable"
	CauseDisable  Cause = "disable"
	CauseRemove   Cause = "remove"
	CauseSet      Cause = "set" // a set apply
	CauseRollback Cause = "rollback"
	CauseProfile  Cause = "profile" // a profile switch (SPEC §12)
)

// GenerationPack is one installed pack of a generation.
type GenerationPack struct {
	ID      string `json:"id"`
	Version string `json:"version"`
	SHA256  string `json:"sha256"` // of the archive it was installed from
	Enabled bool   `json:"enabled"`
}

// History is the answer of GET /v1/history and `forgesync history --json`:
// the kept generations, newest first, each with what changed from the one
// before, and the disk the kept archives take.
type History struct {
	Current     int                 `json:"current"` // the newest generation; 0 when none
	KeptBytes   int64               `json:"kept_bytes"`
	Generations []HistoryGeneration `json:"generations"`
}

// HistoryGeneration is a generation and what changed from the one before.
type HistoryGeneration struct {
	Generation
	Changes []GenerationChange `json:"changes"`
}

// GenerationChange is one difference between a generation and the one
// before it.
type GenerationChange struct {
	Kind     ChangeKind `json:"kind"`
	ID       string     `json:"id"`
	Version  string     `json:"version,omitempty"`
	Previous string     `json:"previous,omitempty"` // the version before, for ChangeUpdated
}

// ChangeKind says how a pack changed from one generation to the next.
type ChangeKind string

// The kinds of GenerationChange.
const (
	ChangeAdded    ChangeKind = "added"
	ChangeUpdated  ChangeKind = "updated" // another version, or the same from other bytes
	ChangeRemoved  ChangeKind = "removed"
	ChangeEnabled  ChangeKind = "enabled"
	ChangeDisabled ChangeKind = "disabled"
)

// Rollback is the body of POST /v1/rollback: the generation to return to;
// 0 is the one before the current one.
type Rollback struct {
	Generation int `json:"generation"`
}

// Install is the body of POST /v1/install: the archive a command copied
// to drop/.install/FOLDER/NAME, as "FOLDER/NAME", and whether to force
// a same-version reinstall or a downgrade.
type Install struct {
	Archive string `json:"archive"`
	Force   bool   `json:"force,omitempty"`
}

// Retry is the body of POST /v1/rejections/retry: the rejected archives
// to move back into drop (their names in drop/rejected/), or all of them.
type Retry struct {
	Archives []string `json:"archives,omitempty"`
	All      bool     `json:"all,omitempty"`
}
