// Package render owns the bytes of the four inventory files of SPEC §6 —
// installed.json, lifts.txt, doors.txt and installed.txt — computed from a
// set of installed packs by pure functions, and of the normalized manifest
// the pipeline stores for each installed pack, written like installed.json
// (encoding/json, with the number rule of SPEC §6); and it refuses a set
// the files cannot hold (a clash, the door limit of SPEC §4). It knows
// nothing of where or how the files are written.
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
	installedJSONName = "installed.json"
	liftsName         = "lifts.txt"
	DoorsName         = "doors.txt"
	InstalledName     = "installed.txt"
)

// The first lines of the text files.
const (
	liftsHeader     = "forge-lifts 1"
	doorsHeader     = "forge-doors 1"
	installedHeader = "forge-installed 1"
)

// Names returns the four file names in publication order: installed.json,
// lifts.txt, doors.txt, then installed.txt, the identity bindings, last.
func Names() []string {
	return []string{installedJSONName, liftsName, DoorsName, InstalledName}
}

// File is one rendered inventory file.
type File struct {
	Name string
	Data []byte
}

var (
	// errConflict is returned when two installed packs share an id, or two
	// pieces of installed packs share a tag or a class.
	errConflict = errors.New("render: conflicting installed packs")
	// errTooManyDoors is returned when the enabled packs declare more
	// door definitions than inventory.MaxDoorsInstalled.
	errTooManyDoors = errors.New("render: too many door definitions across enabled packs")
	// errUnrenderable is returned for a pack the files cannot hold: no
	// manifest, an archive hash that is not SHA-256 hex, a number that is
	// not finite, a control character (a tab, a line break) in a field of
	// the text files, a lift on a panel or a door on a block.
	errUnrenderable = errors.New("render: pack cannot be rendered")
)

// Files renders the four inventory files of packs in publication order
// (see [Names]). The manifests are expected to have passed
// inventory.Decode; Files checks only what the files themselves depend on,
// and fails, naming the packs, when the set breaks it (see [errConflict],
// [errTooManyDoors], [errUnrenderable]); nothing is rendered then.
func Files(packs []inventory.InstalledPack) ([]File, error) {
	s, err := newSet(packs)
	if err != nil {
		return nil, err
	}
	installedJSON, err := s.installedJSON()
	if err != nil {
		return nil, err
	}
	return []File{
		{installedJSONName, installedJSON},
		{liftsName, s.lifts()},
		{DoorsName, s.doors()},
		{InstalledName, s.installed()},
	}, nil
}

// set is a checked set of packs, sorted by id, with every piece indexed in
// tag order and in class order.
type set struct {
	packs       []*inventory.InstalledPack // sorted by id
	pieces      []row                      // every piece of every pack
	byTag       []int32                    // indices into pieces, sorted by tag
	byClass     []int32                    // indices into pieces, sorted by class
	enabledRows int                        // pieces of enabled packs
	liftRows    int                        // lift blocks of enabled packs
}

// row is one piece of an installed pack.
type row struct {
	pack  *inventory.InstalledPack
	piece *inventory.Piece
}

// newSet checks packs against the rules the files depend on, sorts them and
// indexes their pieces. The rules of SPEC §3 are the manifest validator's;
// this only guards what would make the files ambiguous or malformed.
// Uniqueness is checked on the sorted indexes, which the text files need
// anyway, rather than with maps.
func newSet(packs []inventory.InstalledPack) (*set, error) {
	s := &set{packs: make([]*inventory.InstalledPack, len(packs))}
	n, doors := 0, 0
	for i := range packs {
		p := &packs[i]
		if p.Manifest == nil {
			return nil, fmt.Errorf("%w: packs[%d] has no manifest", errUnrenderable, i)
		}
		if !isSHA256(p.ArchiveSHA256) {
			return nil, fmt.Errorf("%w: pack %s: archive SHA-256 %q is not 64 lower-case hex digits", errUnrenderable, p.Manifest.ID, p.ArchiveSHA256)
		}
		s.packs[i] = p
		n += len(p.Manifest.Pieces)
		if p.Enabled {
			doors += p.Manifest.Doors()
		}
	}
	slices.SortFunc(s.packs, func(a, b *inventory.InstalledPack) int {
		return strings.Compare(a.Manifest.ID, b.Manifest.ID)
	})
	for i := 1; i < len(s.packs); i++ {
		if s.packs[i].Manifest.ID == s.packs[i-1].Manifest.ID {
			return nil, fmt.Errorf("%w: pack id %q is installed twice", errConflict, s.packs[i].Manifest.ID)
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
			errTooManyDoors, doors, inventory.MaxDoorsInstalled, strings.Join(with, ", "))
	}
	s.pieces = make([]row, 0, n)
	for _, p := range s.packs {
		m := p.Manifest
		for j := range m.Pieces {
			pc := &m.Pieces[j]
			if err := checkPiece(m, pc); err != nil {
				return nil, fmt.Errorf("%w: pack %s piece %s: %v", errUnrenderable, m.ID, pc.ID, err)
			}
			s.pieces = append(s.pieces, row{p, pc})
			if p.Enabled {
				s.enabledRows++
				if pc.Lift != nil {
					s.liftRows++
				}
			}
		}
	}
	tag := func(r row) string { return r.piece.Tag }
	class := func(r row) string { return r.piece.Class }
	s.byTag, s.byClass = s.index(tag), s.index(class)
	for _, by := range [...]struct {
		what string
		idx  []int32
		key  func(row) string
	}{{"tag", s.byTag, tag}, {"class", s.byClass, class}} {
		for i := 1; i < len(by.idx); i++ {
			a, b := s.pieces[by.idx[i-1]], s.pieces[by.idx[i]]
			if k := by.key(a); k == by.key(b) {
				return nil, fmt.Errorf("%w: %s %q belongs to both %s/%s and %s/%s", errConflict, by.what, k,
					a.pack.Manifest.ID, a.piece.ID, b.pack.Manifest.ID, b.piece.ID)
			}
		}
	}
	return s, nil
}

// index returns the indices of s.pieces sorted by key, in byte order; ties
// keep pack and manifest order.
func (s *set) index(key func(row) string) []int32 {
	idx := make([]int32, len(s.pieces))
	for i := range idx {
		idx[i] = int32(i)
	}
	slices.SortStableFunc(idx, func(a, b int32) int {
		return strings.Compare(key(s.pieces[a]), key(s.pieces[b]))
	})
	return idx
}

// hasControl reports whether v holds a control character (below U+0020),
// a tab or a line break among them, which would break a row of the text
// files. It tests eight bytes at a time.
func hasControl(v string) bool {
	const highs, spaces = 0x8080808080808080, 0x2020202020202020
	i := 0
	for ; i+8 <= len(v); i += 8 {
		w := v[i : i+8]
		x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
			uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
		// Only a byte below 0x20 sets its high bit when 0x20 is taken
		// from it without having it set before (^x); a borrow reaches
		// higher bytes only after such a byte.
		if (x-spaces)&^x&highs != 0 {
			return true
		}
	}
	for ; i < len(v); i++ {
		if v[i] < 0x20 {
			return true
		}
	}
	return false
}

// checkPiece reports what in one piece the files cannot hold.
func checkPiece(m *inventory.Manifest, pc *inventory.Piece) error {
	for _, f := range [...]struct{ name, v string }{
		{"pack id", m.ID}, {"version", m.Version}, {"piece id", pc.ID},
		{"kind", string(pc.Kind)}, {"tag", pc.Tag}, {"class", pc.Class},
	} {
		if f.v == "" || hasControl(f.v) {
			return fmt.Errorf("%s %q is empty or holds a tab, a line break or another control character", f.name, f.v)
		}
	}
	if pc.Lift != nil && pc.Kind != inventory.KindBlock {
		return fmt.Errorf("lift on a %s; only blocks carry lifts", pc.Kind)
	}
	if pc.Door != nil && pc.Kind != inventory.KindPanel {
		return fmt.Errorf("door on a %s; only panels carry doors", pc.Kind)
	}
	var nums [20]float64
	n := copy(nums[:], pc.Dimensions[:])
	if l := pc.Lift; l != nil {
		n += copy(nums[n:], l.OffsetM[:])
		n += copy(nums[n:], l.SizeM[:])
		n += copy(nums[n:], l.Direction[:])
		nums[n], nums[n+1] = l.AccelerationMS2, l.MaxSpeedMS
		n += 2
	}
	if d := pc.Door; d != nil {
		n += copy(nums[n:], d.TriggerSizeM[:])
		nums[n], nums[n+1], nums[n+2] = d.TravelM, d.SpeedMS, d.HoldOpenS
		n += 3
	}
	for _, v := range nums[:n] {
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
	// Whole numbers, most of a catalog, skip the shortest-float search;
	// below 2^53 they print the same either way.
	if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
		return strconv.AppendInt(b, int64(v), 10)
	}
	return strconv.AppendFloat(b, v, 'f', -1, 64)
}

func (s *set) lifts() []byte {
	b := make([]byte, 0, len(liftsHeader)+1+s.liftRows*200)
	b = append(b, liftsHeader+"\n"...)
	for _, i := range s.byClass {
		r := s.pieces[i]
		l := r.piece.Lift
		if l == nil || !r.pack.Enabled {
			continue
		}
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
	b := make([]byte, 0, len(doorsHeader)+1+inventory.MaxDoorsInstalled*100)
	b = append(b, doorsHeader+"\n"...)
	for _, i := range s.byTag {
		r := s.pieces[i]
		d, dim := r.piece.Door, r.piece.Dimensions
		if d == nil || !r.pack.Enabled {
			continue
		}
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
	b := make([]byte, 0, len(installedHeader)+1+s.enabledRows*200)
	b = append(b, installedHeader+"\n"...)
	for _, i := range s.byTag {
		r := s.pieces[i]
		if !r.pack.Enabled {
			continue
		}
		pc, m := r.piece, r.pack.Manifest
		b = append(b, pc.Tag...)
		b = append(b, '\t')
		b = append(b, m.ID...)
		b = append(b, '\t')
		b = append(b, m.Version...)
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

// isSHA256 reports whether s is a SHA-256 in lower-case hex.
func isSHA256(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := range len(s) {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
