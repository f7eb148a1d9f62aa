package installer

import "time"

// IncomingDir is the folder under the state folder holding archives of a
// set apply that are verified but not yet kept: each is named by its
// SHA-256, and moves to archives/ when the apply rolls forward.
const IncomingDir = "incoming"

// Generation is one committed installed set (SPEC §11). A generation never
// changes once recorded; readers may share it.
type Generation struct {
	N           int              `json:"n"`
	Time        time.Time        `json:"time"`
	Cause       string           `json:"cause"` // drop, install, enable, disable, remove, set or rollback
	Fingerprint string           `json:"fingerprint"`
	Packs       []GenerationPack `json:"packs"` // sorted by id
}

// GenerationPack is one installed pack of a generation.
type GenerationPack struct {
	ID      string `json:"id"`
	Version string `json:"version"`
	SHA256  string `json:"sha256"` // of the archive it was installed from
	Enabled bool   `json:"enabled"`
}

// PendingSet is the journal of a set apply or rollback: the installed set
// it makes (every pack with its enabled flag), whether packs outside it are
// removed rather than disabled, and the generation cause it records.
type PendingSet struct {
	Cause string           `json:"cause"`
	Prune bool             `json:"prune"`
	Packs []GenerationPack `json:"packs"`
}

// KeptKey returns the part of a kept archive's name that its content
// decides: id, version and the first 12 hex digits of its SHA-256. A kept
// archive's name is its key and an extension.
func KeptKey(id, version, sha256 string) string {
	if len(sha256) > 12 {
		sha256 = sha256[:12]
	}
	return id + "-" + version + "-" + sha256
}

// KeyOfKept returns the key of a kept archive's file name (see KeptKey), or
// "" when the name has none.
func KeyOfKept(name string) string {
	for i := len(name) - 13; i >= 0; i-- {
		if name[i] != '-' {
			continue
		}
		ok := true
		for _, c := range name[i+1 : i+13] {
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
				ok = false
				break
			}
		}
		if ok && (i+13 == len(name) || name[i+13] == '.') {
			return name[:i+13]
		}
	}
	return ""
}

// StateFileName is the state file's name under the state folder; readers
// that do not take the lock read it whole (it is replaced atomically).
const StateFileName = stateFile
