package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
	"github.com/mjolnir-forge/forgesync/internal/semver"
)

// IncomingDir is the folder under the state folder holding archives of a
// set apply that are verified but not yet kept: each is named by its
// SHA-256, and moves to archives/ when the apply rolls forward.
const IncomingDir = "incoming"

// Generation is one committed installed set (SPEC §11) as the store keeps
// it. Its JSON names are those of the state file, whatever the wire's
// shape becomes.
type Generation struct {
	N           int              `json:"n"`
	Time        time.Time        `json:"time"`
	Cause       Cause            `json:"cause"`
	Fingerprint string           `json:"fingerprint"`
	Packs       []GenerationPack `json:"packs"` // sorted by id
}

// Cause is what recorded a generation: its owner names the causes (the
// pipeline, SPEC §11); the store keeps it as written.
type Cause string

// GenerationPack is one installed pack of a generation, as a pending set
// in the state file stores it too.
type GenerationPack struct {
	ID      string `json:"id"`
	Version string `json:"version"`
	SHA256  string `json:"sha256"` // of the archive it was installed from
	Enabled bool   `json:"enabled"`
}

// PendingSet is the journal of a set apply, rollback or profile switch: the
// installed set it makes (every pack with its enabled flag), whether packs
// outside it are removed rather than disabled, the generation cause it
// records and the profile it makes current.
type PendingSet struct {
	Cause Cause            `json:"cause"`
	Prune bool             `json:"prune"`
	Packs []GenerationPack `json:"packs"`
	// Profile, when not "", is the profile the set makes current once it
	// is rolled forward (a profile switch, a set recorded as a profile).
	Profile string `json:"profile,omitempty"`
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

// Generations are the kept generations as the state file stores them: the
// oldest with every pack, each later one with only the packs that changed
// from the one before ("set", a pack new or different) and the ids it no
// longer has ("unset"). A pack is one string "id version sha256 1|0" (ids
// and versions hold no spaces). `forgesync history` reads 10 generations
// of 1,000 packs, and the JSON decoder is most of its time: this keeps the
// file small. Generation itself keeps the object shape of SPEC §11.
type Generations []Generation

// storedGeneration is one generation in the state file.
type storedGeneration struct {
	N           int       `json:"n"`
	Time        time.Time `json:"time"`
	Cause       string    `json:"cause"`
	Fingerprint string    `json:"fingerprint"`
	Packs       []string  `json:"packs,omitempty"` // the oldest: every pack
	Set         []string  `json:"set,omitempty"`   // later ones: the packs new or changed
	Unset       []string  `json:"unset,omitempty"` // later ones: the ids gone
}

func packString(p GenerationPack) string {
	on := "0"
	if p.Enabled {
		on = "1"
	}
	return p.ID + " " + p.Version + " " + p.SHA256 + " " + on
}

// MarshalJSON implements json.Marshaler.
func (gs Generations) MarshalJSON() ([]byte, error) {
	out := make([]storedGeneration, len(gs))
	for i, g := range gs {
		sg := storedGeneration{N: g.N, Time: g.Time, Cause: string(g.Cause), Fingerprint: g.Fingerprint}
		if i == 0 {
			sg.Packs = make([]string, len(g.Packs))
			for j, p := range g.Packs {
				sg.Packs[j] = packString(p)
			}
		} else {
			prev := make(map[string]GenerationPack, len(gs[i-1].Packs))
			for _, p := range gs[i-1].Packs {
				prev[p.ID] = p
			}
			for _, p := range g.Packs {
				if old, ok := prev[p.ID]; !ok || old != p {
					sg.Set = append(sg.Set, packString(p))
				}
				delete(prev, p.ID)
			}
			for id := range prev {
				sg.Unset = append(sg.Unset, id)
			}
			slices.Sort(sg.Unset)
		}
		out[i] = sg
	}
	return json.Marshal(out)
}

// UnmarshalJSON implements json.Unmarshaler.
func (gs *Generations) UnmarshalJSON(data []byte) error {
	var in []storedGeneration
	if err := json.Unmarshal(data, &in); err != nil {
		return err
	}
	parse := func(n int, s string) (GenerationPack, error) {
		f := strings.Split(s, " ")
		if len(f) != 4 || f[0] == "" || (f[3] != "0" && f[3] != "1") {
			return GenerationPack{}, fmt.Errorf("generation %d: %q is not \"id version sha256 1|0\"", n, s)
		}
		return GenerationPack{ID: f[0], Version: f[1], SHA256: f[2], Enabled: f[3] == "1"}, nil
	}
	out := make(Generations, len(in))
	var prev []GenerationPack
	for i, g := range in {
		var packs []GenerationPack
		if i == 0 {
			packs = make([]GenerationPack, 0, len(g.Packs))
			for _, s := range g.Packs {
				p, err := parse(g.N, s)
				if err != nil {
					return err
				}
				packs = append(packs, p)
			}
		} else {
			if len(g.Packs) > 0 {
				return fmt.Errorf("generation %d: only the oldest generation lists every pack", g.N)
			}
			set := make(map[string]GenerationPack, len(g.Set))
			for _, s := range g.Set {
				p, err := parse(g.N, s)
				if err != nil {
					return err
				}
				set[p.ID] = p
			}
			gone := make(map[string]bool, len(g.Unset))
			for _, id := range g.Unset {
				gone[id] = true
			}
			packs = make([]GenerationPack, 0, len(prev)+len(set))
			for _, p := range prev {
				if gone[p.ID] {
					continue
				}
				if q, ok := set[p.ID]; ok {
					p = q
					delete(set, p.ID)
				}
				packs = append(packs, p)
			}
			for _, p := range set {
				packs = append(packs, p)
			}
		}
		slices.SortFunc(packs, func(a, b GenerationPack) int { return strings.Compare(a.ID, b.ID) })
		out[i] = Generation{N: g.N, Time: g.Time, Cause: Cause(g.Cause), Fingerprint: g.Fingerprint, Packs: packs}
		prev = packs
	}
	*gs = out
	return nil
}

// SplitKeptKey returns the pack id and version of a kept archive's key
// (see KeptKey), or ok false when key is not one. Ids and pre-release
// versions both hold '-'; an id holds no '.', so the split is the first
// '-' after which the rest is a valid SemVer.
func SplitKeptKey(key string) (id, version string, ok bool) {
	if len(key) < 14 || key[len(key)-13] != '-' {
		return "", "", false
	}
	rest := key[:len(key)-13]
	for i := 0; i < len(rest); i++ {
		if rest[i] != '-' {
			continue
		}
		if id, version := rest[:i], rest[i+1:]; strings.Trim(id, "abcdefghijklmnopqrstuvwxyz0123456789-") == "" && semver.Valid(version) {
			return id, version, true
		}
	}
	return "", "", false
}

// GenerationsFile is the copy of the kept generations beside packs.json,
// under the state folder. packs.json holds the generations too; the copy
// is what tells, once a damaged packs.json is set aside, which set the
// machine had: the last generation's, not every archive kept for rollback.
// It is advisory (written without a flush, like the attempt counts): a
// copy that is missing or damaged only means every kept archive is
// installed again.
const GenerationsFile = "generations.json"

// generationsFormat names the format of [GenerationsFile].
const generationsFormat = "forgesync-generations"

// generationsCopy is the content of [GenerationsFile].
type generationsCopy struct {
	Format      string      `json:"format"`
	Generations Generations `json:"generations"`
}

// EncodeGenerations returns the bytes of [GenerationsFile] for gens.
func EncodeGenerations(gens Generations) ([]byte, error) {
	data, err := json.Marshal(generationsCopy{Format: generationsFormat, Generations: gens})
	if err != nil {
		return nil, fmt.Errorf("store: encode the copy of the generations: %w", err)
	}
	return append(data, '\n'), nil
}

// LoadGenerations reads [GenerationsFile]: nil when there is none, an
// error naming the file when it cannot be read or is damaged.
func (s *Store) LoadGenerations() (Generations, error) {
	path := s.Path(GenerationsFile)
	data, err := atomicfile.Renamer{}.ReadLimited(path, MaxStateBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("store: read %s: %w", path, err)
	}
	var c generationsCopy
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("store: %s is damaged: %w", path, err)
	}
	if c.Format != generationsFormat {
		return nil, fmt.Errorf("store: %s is damaged: format %q, want %q", path, c.Format, generationsFormat)
	}
	return c.Generations, nil
}
