// Package render owns the bytes of the four inventory files of SPEC §6 —
// installed.json, lifts.txt, doors.txt and installed.txt — computed from a
// set of installed packs by pure functions, the strict reader of
// installed.json that the daemon recovers its state from, and the global
// figures of SPEC §4 (door count, lift classes the runtime uses) taken from
// the same set. It knows nothing of where or how the files are written.
package render

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/mjolnir-forge/forgesync/inventory"
)

// The names of the inventory files, in <mods>/MJOLNIRForgePacks/.
const (
	InstalledJSONName = "installed.json"
	LiftsName         = "lifts.txt"
	DoorsName         = "doors.txt"
	InstalledName     = "installed.txt"
)

// The first lines of the text files.
const (
	LiftsHeader     = "forge-lifts 1"
	DoorsHeader     = "forge-doors 1"
	InstalledHeader = "forge-installed 1"
)

// Names returns the four file names in publication order: installed.json,
// lifts.txt, doors.txt, then installed.txt, the identity bindings, last.
func Names() []string {
	return []string{InstalledJSONName, LiftsName, DoorsName, InstalledName}
}

// File is one rendered inventory file.
type File struct {
	Name string
	Data []byte
}

var (
	// ErrConflict is returned when two installed packs share an id, or two
	// pieces of installed packs share a tag or a class.
	ErrConflict = errors.New("render: conflicting installed packs")
	// ErrTooManyDoors is returned when the enabled packs declare more
	// door definitions than inventory.MaxDoorsInstalled.
	ErrTooManyDoors = errors.New("render: too many door definitions across enabled packs")
	// ErrUnrenderable is returned for a pack the files cannot hold: no
	// manifest, a number that is not finite, a tab or line break in a
	// field of the text files, a lift on a panel or a door on a block.
	ErrUnrenderable = errors.New("render: pack cannot be rendered")
)

// Files renders the four inventory files of packs in publication order
// (see [Names]). It fails, naming the packs, when the set breaks a rule the
// files depend on (see [ErrConflict], [ErrTooManyDoors], [ErrUnrenderable]);
// nothing is rendered then.
func Files(packs []inventory.InstalledPack) ([]File, error) {
	s, err := newSet(packs)
	if err != nil {
		return nil, err
	}
	return []File{
		{InstalledJSONName, s.installedJSON()},
		{LiftsName, s.lifts()},
		{DoorsName, s.doors()},
		{InstalledName, s.installed()},
	}, nil
}

// InstalledJSON renders installed.json: every installed pack, enabled or
// not, sorted by id, normalized.
func InstalledJSON(packs []inventory.InstalledPack) ([]byte, error) {
	s, err := newSet(packs)
	if err != nil {
		return nil, err
	}
	return s.installedJSON(), nil
}

// Lifts renders lifts.txt: one row per lift block of an enabled pack,
// sorted by class path.
func Lifts(packs []inventory.InstalledPack) ([]byte, error) {
	s, err := newSet(packs)
	if err != nil {
		return nil, err
	}
	return s.lifts(), nil
}

// Doors renders doors.txt: one row per door panel of an enabled pack,
// sorted by tag; only the header when there are none.
func Doors(packs []inventory.InstalledPack) ([]byte, error) {
	s, err := newSet(packs)
	if err != nil {
		return nil, err
	}
	return s.doors(), nil
}

// Installed renders installed.txt, the identity bindings: one row per piece
// of an enabled pack, sorted by tag.
func Installed(packs []inventory.InstalledPack) ([]byte, error) {
	s, err := newSet(packs)
	if err != nil {
		return nil, err
	}
	return s.installed(), nil
}

// DoorCount returns the number of door definitions across the enabled
// packs, the figure SPEC §4 caps at inventory.MaxDoorsInstalled.
func DoorCount(packs []inventory.InstalledPack) int {
	n := 0
	for _, p := range packs {
		if p.Enabled && p.Manifest != nil {
			n += p.Manifest.Doors()
		}
	}
	return n
}

// LiftClasses returns the classes of the lift blocks of the enabled packs,
// sorted by class path in byte order, split into the first
// inventory.MaxLiftClassesUsed, which the runtime uses, and the rest, which
// it ignores. Both are nil when there are none.
func LiftClasses(packs []inventory.InstalledPack) (used, ignored []string) {
	var all []string
	for _, p := range packs {
		if !p.Enabled || p.Manifest == nil {
			continue
		}
		for i := range p.Manifest.Pieces {
			if pc := &p.Manifest.Pieces[i]; pc.Lift != nil {
				all = append(all, pc.Class)
			}
		}
	}
	if len(all) == 0 {
		return nil, nil
	}
	slices.Sort(all)
	all = slices.Compact(all)
	if len(all) <= inventory.MaxLiftClassesUsed {
		return all, nil
	}
	return all[:inventory.MaxLiftClassesUsed:inventory.MaxLiftClassesUsed], all[inventory.MaxLiftClassesUsed:]
}

// set is a checked set of packs, sorted by id, with the rows of the text
// files collected.
type set struct {
	packs []*inventory.InstalledPack // sorted by id
	rows  []row                      // every piece of an enabled pack
}

// row is one piece of an enabled pack.
type row struct {
	pack  *inventory.Manifest
	piece *inventory.Piece
}

// newSet checks packs against the rules the files depend on and sorts them.
// The rules of SPEC §3 are the manifest validator's; this only guards what
// would make the files ambiguous or malformed.
func newSet(packs []inventory.InstalledPack) (*set, error) {
	s := &set{packs: make([]*inventory.InstalledPack, len(packs))}
	pieces, doors := 0, 0
	for i := range packs {
		p := &packs[i]
		if p.Manifest == nil {
			return nil, fmt.Errorf("%w: packs[%d] has no manifest", ErrUnrenderable, i)
		}
		s.packs[i] = p
		pieces += len(p.Manifest.Pieces)
		if p.Enabled {
			doors += p.Manifest.Doors()
		}
	}
	slices.SortFunc(s.packs, func(a, b *inventory.InstalledPack) int {
		return strings.Compare(a.Manifest.ID, b.Manifest.ID)
	})
	for i := 1; i < len(s.packs); i++ {
		if s.packs[i].Manifest.ID == s.packs[i-1].Manifest.ID {
			return nil, fmt.Errorf("%w: pack id %q is installed twice", ErrConflict, s.packs[i].Manifest.ID)
		}
	}
	if doors > inventory.MaxDoorsInstalled {
		var with []string
		for _, p := range s.packs {
			if n := p.Manifest.Doors(); p.Enabled && n > 0 {
				with = append(with, fmt.Sprintf("%s (%d)", p.Manifest.ID, n))
			}
		}
		return nil, fmt.Errorf("%w: %d door definitions, at most %d allowed; packs with doors: %s",
			ErrTooManyDoors, doors, inventory.MaxDoorsInstalled, strings.Join(with, ", "))
	}
	tags := make(map[string]string, pieces)
	classes := make(map[string]string, pieces)
	for _, p := range s.packs {
		m := p.Manifest
		for j := range m.Pieces {
			pc := &m.Pieces[j]
			owner := m.ID + "/" + pc.ID
			if err := checkPiece(m, pc); err != nil {
				return nil, fmt.Errorf("%w: pack %s piece %s: %v", ErrUnrenderable, m.ID, pc.ID, err)
			}
			if o, dup := tags[pc.Tag]; dup {
				return nil, fmt.Errorf("%w: tag %q belongs to both %s and %s", ErrConflict, pc.Tag, o, owner)
			}
			tags[pc.Tag] = owner
			if o, dup := classes[pc.Class]; dup {
				return nil, fmt.Errorf("%w: class %q belongs to both %s and %s", ErrConflict, pc.Class, o, owner)
			}
			classes[pc.Class] = owner
			if p.Enabled {
				s.rows = append(s.rows, row{m, pc})
			}
		}
	}
	return s, nil
}

// checkPiece reports what in one piece the files cannot hold.
func checkPiece(m *inventory.Manifest, pc *inventory.Piece) error {
	for _, f := range [...]struct{ name, v string }{
		{"pack id", m.ID}, {"version", m.Version}, {"piece id", pc.ID},
		{"kind", string(pc.Kind)}, {"tag", pc.Tag}, {"class", pc.Class},
	} {
		if f.v == "" || strings.ContainsAny(f.v, "\t\n\r") {
			return fmt.Errorf("%s %q is empty or holds a tab or line break", f.name, f.v)
		}
	}
	if pc.Lift != nil && pc.Kind != inventory.KindBlock {
		return fmt.Errorf("lift on a %s; only blocks carry lifts", pc.Kind)
	}
	if pc.Door != nil && pc.Kind != inventory.KindPanel {
		return fmt.Errorf("door on a %s; only panels carry doors", pc.Kind)
	}
	nums := append([]float64(nil), pc.Dimensions[:]...)
	if l := pc.Lift; l != nil {
		nums = append(nums, l.OffsetM[:]...)
		nums = append(nums, l.SizeM[:]...)
		nums = append(nums, l.Direction[:]...)
		nums = append(nums, l.AccelerationMS2, l.MaxSpeedMS)
	}
	if d := pc.Door; d != nil {
		nums = append(nums, d.TravelM, d.SpeedMS, d.HoldOpenS)
		nums = append(nums, d.TriggerSizeM[:]...)
	}
	for _, v := range nums {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("number %v is not finite", v)
		}
	}
	return nil
}

// appendNum appends v as SPEC §6 writes numbers: decimal dot, no exponent,
// the shortest form that reads back as the same float64, -0 written 0.
func appendNum(b []byte, v float64) []byte {
	if v == 0 {
		return append(b, '0')
	}
	return strconv.AppendFloat(b, v, 'f', -1, 64)
}

func (s *set) lifts() []byte {
	rows := make([]row, 0, len(s.rows)/4)
	for _, r := range s.rows {
		if r.piece.Lift != nil {
			rows = append(rows, r)
		}
	}
	slices.SortFunc(rows, func(a, b row) int { return strings.Compare(a.piece.Class, b.piece.Class) })
	b := make([]byte, 0, len(LiftsHeader)+1+len(rows)*200)
	b = append(b, LiftsHeader+"\n"...)
	for _, r := range rows {
		l := r.piece.Lift
		b = append(b, r.piece.Class...)
		b = append(b, '\t')
		b = append(b, r.piece.Tag...)
		for _, v := range [...]float64{
			l.OffsetM[0], l.OffsetM[1], l.OffsetM[2],
			l.SizeM[0], l.SizeM[1], l.SizeM[2],
			l.Direction[0], l.Direction[1], l.Direction[2],
			l.AccelerationMS2, l.MaxSpeedMS,
		} {
			b = append(b, '\t')
			b = appendNum(b, v)
		}
		if l.NegatesGravity {
			b = append(b, "\t1\n"...)
		} else {
			b = append(b, "\t0\n"...)
		}
	}
	return b
}

func (s *set) doors() []byte {
	rows := make([]row, 0, min(len(s.rows), inventory.MaxDoorsInstalled))
	for _, r := range s.rows {
		if r.piece.Door != nil {
			rows = append(rows, r)
		}
	}
	slices.SortFunc(rows, func(a, b row) int { return strings.Compare(a.piece.Tag, b.piece.Tag) })
	b := make([]byte, 0, len(DoorsHeader)+1+len(rows)*100)
	b = append(b, DoorsHeader+"\n"...)
	for _, r := range rows {
		d, dim := r.piece.Door, r.piece.Dimensions
		b = append(b, r.piece.Tag...)
		for _, v := range [...]float64{
			d.TravelM, d.SpeedMS,
			d.TriggerSizeM[0], d.TriggerSizeM[1], d.TriggerSizeM[2],
			d.HoldOpenS,
			dim[0], dim[1], dim[2],
		} {
			b = append(b, '\t')
			b = appendNum(b, v)
		}
		b = append(b, '\n')
	}
	return b
}

func (s *set) installed() []byte {
	rows := slices.Clone(s.rows)
	slices.SortFunc(rows, func(a, b row) int { return strings.Compare(a.piece.Tag, b.piece.Tag) })
	b := make([]byte, 0, len(InstalledHeader)+1+len(rows)*200)
	b = append(b, InstalledHeader+"\n"...)
	for _, r := range rows {
		pc := r.piece
		b = append(b, pc.Tag...)
		b = append(b, '\t')
		b = append(b, r.pack.ID...)
		b = append(b, '\t')
		b = append(b, r.pack.Version...)
		b = append(b, '\t')
		b = append(b, pc.ID...)
		b = append(b, '\t')
		b = append(b, pc.Kind...)
		b = append(b, '\t')
		b = append(b, pc.Class...)
		b = append(b, '\n')
	}
	return b
}
