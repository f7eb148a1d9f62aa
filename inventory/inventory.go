// Package inventory owns the Forge pack catalog model (pack, piece, lift,
// door, surface), the strict forgepack.json decoder and validator that the
// CLI packer, the scanner and the daemon all share, the limits of SPEC §3,
// and the manifest's JSON Schema for editors (forgepack.schema.json). It
// reads bytes and returns values; it knows nothing of disks, archives or
// sockets.
package inventory

import (
	"slices"

	"github.com/mjolnir-forge/forgesync/internal/spec"
)

// Limits of SPEC §3.
const (
	// MaxManifestBytes is the largest forgepack.json accepted.
	MaxManifestBytes = spec.MaxManifestBytes
	// maxDepth is the deepest nesting of objects and lists accepted.
	maxDepth = 16
	// maxPieces is the most pieces one pack may declare.
	maxPieces = 512
	// maxSurfaces is the most surface profiles one piece may declare.
	maxSurfaces = 16
	// MaxDoorsInstalled is the most door definitions across enabled packs.
	MaxDoorsInstalled = 256
	// maxLiftClassesUsed is how many lift classes the runtime uses, chosen by
	// sorted class path; more are allowed and ignored by the runtime.
	maxLiftClassesUsed = 16
	// maxVersionBytes is the longest pack version accepted.
	maxVersionBytes = 64
	// maxSchemaRefBytes is the longest "$schema" reference accepted.
	maxSchemaRefBytes = 1024
	// SchemaVersion is the only manifest schema this program reads.
	SchemaVersion = 1
)

// ManifestName is the file name of a pack's manifest.
const ManifestName = "forgepack.json"

// Kind is what a piece is: a block (which may carry a lift) or a panel (which
// may carry a door).
type Kind string

// The piece kinds.
const (
	KindBlock Kind = "block"
	KindPanel Kind = "panel"
)

// Profile is one of the fixed surface profile names.
type Profile string

// The surface profiles of SPEC §3.3.
const (
	ProfileGlassCyan       Profile = "glass_cyan"
	ProfileTeleporterGreen Profile = "teleporter_green"
)

// Vec3 is three numbers: metres, or a direction.
type Vec3 [3]float64

// Manifest is a validated, normalized forgepack.json. Its JSON tags give the
// keys of SPEC §3 and omit absent utilities; the stored form with the number
// rule of SPEC §6 is render.Manifest's.
type Manifest struct {
	Schema      int      `json:"schema"`
	ID          string   `json:"id"`
	Version     string   `json:"version"`
	Name        string   `json:"name"`
	Authors     []string `json:"authors"`
	Description string   `json:"description,omitempty"`
	Pieces      []Piece  `json:"pieces"`
}

// Piece is one catalog piece of a pack.
type Piece struct {
	ID         string    `json:"id"`
	Kind       Kind      `json:"kind"`
	Tag        string    `json:"tag"`
	Class      string    `json:"class"`
	Dimensions Vec3      `json:"dimensions_m"`
	Lift       *Lift     `json:"lift,omitempty"`
	Door       *Door     `json:"door,omitempty"`
	Surfaces   []Surface `json:"surfaces,omitempty"`
}

// Lift is a gravity lift trigger on a block (SPEC §3.1), in the block's
// authored local axes and metres.
type Lift struct {
	OffsetM         Vec3    `json:"offset_m"`
	SizeM           Vec3    `json:"size_m"`
	Direction       Vec3    `json:"direction"`
	AccelerationMS2 float64 `json:"acceleration_m_s2"`
	MaxSpeedMS      float64 `json:"max_speed_m_s"`
	NegatesGravity  bool    `json:"negates_gravity"`
}

// Door is an automatic door on a panel (SPEC §3.2).
type Door struct {
	TravelM      float64 `json:"travel_m"`
	SpeedMS      float64 `json:"speed_m_s"`
	TriggerSizeM Vec3    `json:"trigger_size_m"`
	HoldOpenS    float64 `json:"hold_open_s"`
}

// Surface assigns a surface profile to a material slot (SPEC §3.3).
type Surface struct {
	Slot    int     `json:"slot"`
	Profile Profile `json:"profile"`
}

// packageName returns the long Unreal package name a pack with id packID
// must carry for profile p (SPEC §5).
func packageName(packID string, p Profile) string {
	switch p {
	case ProfileGlassCyan:
		return "/Game/MJOLNIR/Forge/" + packID + "/Surfaces/MI_GlassCyan"
	case ProfileTeleporterGreen:
		return "/Game/MJOLNIR/Forge/" + packID + "/Surfaces/MI_TeleporterGreen"
	}
	return ""
}

// Profiles returns the distinct surface profiles the pack uses, sorted.
func (m *Manifest) Profiles() []Profile {
	var ps []Profile
	for _, pc := range m.Pieces {
		for _, s := range pc.Surfaces {
			if !slices.Contains(ps, s.Profile) {
				ps = append(ps, s.Profile)
			}
		}
	}
	slices.Sort(ps)
	return ps
}

// RequiredPackages returns the long package names the pack's content must
// carry for the surface profiles it uses, sorted; none when it uses none.
func (m *Manifest) RequiredPackages() []string {
	var names []string
	for _, p := range m.Profiles() {
		names = append(names, packageName(m.ID, p))
	}
	return names
}

// Doors returns the number of door definitions in the pack.
func (m *Manifest) Doors() int {
	n := 0
	for _, p := range m.Pieces {
		if p.Door != nil {
			n++
		}
	}
	return n
}

// Lifts returns how many of the pack's pieces are lift blocks.
func (m *Manifest) Lifts() int {
	n := 0
	for _, p := range m.Pieces {
		if p.Lift != nil {
			n++
		}
	}
	return n
}

// InstalledPack is a pack as installed: its validated manifest, whether it is
// enabled, and the SHA-256 (lower-case hex) of the archive it came from.
type InstalledPack struct {
	Manifest      *Manifest
	Enabled       bool
	ArchiveSHA256 string
}
