package installer

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/mjolnir-forge/forgesync/api"
)

// IncomingDir is the folder under the state folder holding archives of a
// set apply that are verified but not yet kept: each is named by its
// SHA-256, and moves to archives/ when the apply rolls forward.
const IncomingDir = "incoming"

// Generation is one committed installed set (SPEC §11), in the shape the
// socket and the CLI show it.
type Generation = api.Generation

// GenerationPack is one installed pack of a generation.
type GenerationPack = api.GenerationPack

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

// Generations are the kept generations as the state file stores them:
// each pack of a generation is one string "id version sha256 1|0" (ids and
// versions hold no spaces), which reads several times faster than an
// object per pack; `forgesync history` reads 10 generations of 1,000
// packs. Generation itself keeps the object shape of SPEC §11.
type Generations []Generation

// storedGeneration is one generation in the state file.
type storedGeneration struct {
	N           int       `json:"n"`
	Time        time.Time `json:"time"`
	Cause       string    `json:"cause"`
	Fingerprint string    `json:"fingerprint"`
	Packs       []string  `json:"packs"`
}

// MarshalJSON implements json.Marshaler.
func (gs Generations) MarshalJSON() ([]byte, error) {
	out := make([]storedGeneration, len(gs))
	for i, g := range gs {
		packs := make([]string, len(g.Packs))
		for j, p := range g.Packs {
			on := "0"
			if p.Enabled {
				on = "1"
			}
			packs[j] = p.ID + " " + p.Version + " " + p.SHA256 + " " + on
		}
		out[i] = storedGeneration{N: g.N, Time: g.Time, Cause: g.Cause, Fingerprint: g.Fingerprint, Packs: packs}
	}
	return json.Marshal(out)
}

// UnmarshalJSON implements json.Unmarshaler.
func (gs *Generations) UnmarshalJSON(data []byte) error {
	var in []storedGeneration
	if err := json.Unmarshal(data, &in); err != nil {
		return err
	}
	out := make(Generations, len(in))
	for i, g := range in {
		packs := make([]GenerationPack, len(g.Packs))
		for j, s := range g.Packs {
			f := strings.Split(s, " ")
			if len(f) != 4 || (f[3] != "0" && f[3] != "1") {
				return fmt.Errorf("generation %d: pack %d: %q is not \"id version sha256 1|0\"", g.N, j, s)
			}
			packs[j] = GenerationPack{ID: f[0], Version: f[1], SHA256: f[2], Enabled: f[3] == "1"}
		}
		out[i] = Generation{N: g.N, Time: g.Time, Cause: g.Cause, Fingerprint: g.Fingerprint, Packs: packs}
	}
	*gs = out
	return nil
}
