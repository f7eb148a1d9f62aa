package render

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/mjolnir-forge/forgesync/inventory"
)

// This file writes installed.json and the stored normalized manifests with
// encoding/json (two-space indentation, HTML escaping off), through shapes
// of their own that fix the keys and their order, and a number type that
// follows the one rule of SPEC §6: no exponent, -0 written 0.

// Format and FormatVersion identify installed.json.
const (
	format        = "forge-installed"
	formatVersion = 1
)

// number is a float64 that marshals itself by the number rule of SPEC §6
// (appendNum). Only finite numbers reach it: checkPiece refuses the rest.
type number float64

// MarshalJSON writes n as appendNum does.
func (n number) MarshalJSON() ([]byte, error) { return appendNum(nil, float64(n)), nil }

// vec is an inventory.Vec3 of numbers.
type vec [3]number

func vecOf(v inventory.Vec3) vec { return vec{number(v[0]), number(v[1]), number(v[2])} }

// installedFile is the document of installed.json.
type installedFile struct {
	Format  string       `json:"format"`
	Version int          `json:"version"`
	Packs   []packRecord `json:"packs"`
}

// packRecord is one installed pack in installed.json: its manifest with
// enabled and archive_sha256 before the pieces.
type packRecord struct {
	ID            string        `json:"id"`
	Version       string        `json:"version"`
	Name          string        `json:"name"`
	Authors       []string      `json:"authors"`
	Description   string        `json:"description,omitempty"`
	Enabled       bool          `json:"enabled"`
	ArchiveSHA256 string        `json:"archive_sha256"`
	Pieces        []pieceRecord `json:"pieces"`
}

// manifestRecord is the stored normalized form of a manifest.
type manifestRecord struct {
	Schema      int           `json:"schema"`
	ID          string        `json:"id"`
	Version     string        `json:"version"`
	Name        string        `json:"name"`
	Authors     []string      `json:"authors"`
	Description string        `json:"description,omitempty"`
	Pieces      []pieceRecord `json:"pieces"`
}

// pieceRecord is a piece with the keys of SPEC §3 in their order.
type pieceRecord struct {
	ID         string          `json:"id"`
	Kind       string          `json:"kind"`
	Tag        string          `json:"tag"`
	Class      string          `json:"class"`
	Dimensions vec             `json:"dimensions_m"`
	Lift       *liftRecord     `json:"lift,omitempty"`
	Door       *doorRecord     `json:"door,omitempty"`
	Surfaces   []surfaceRecord `json:"surfaces,omitempty"`
}

type liftRecord struct {
	OffsetM         vec    `json:"offset_m"`
	SizeM           vec    `json:"size_m"`
	Direction       vec    `json:"direction"`
	AccelerationMS2 number `json:"acceleration_m_s2"`
	MaxSpeedMS      number `json:"max_speed_m_s"`
	NegatesGravity  bool   `json:"negates_gravity"`
}

type doorRecord struct {
	TravelM      number `json:"travel_m"`
	SpeedMS      number `json:"speed_m_s"`
	TriggerSizeM vec    `json:"trigger_size_m"`
	HoldOpenS    number `json:"hold_open_s"`
}

type surfaceRecord struct {
	Slot    int    `json:"slot"`
	Profile string `json:"profile"`
}

// nonNil returns ss, or an empty list for nil: the files write [] where a
// list is empty, never null.
func nonNil[T any](ss []T) []T {
	if ss == nil {
		return []T{}
	}
	return ss
}

func piecesOf(m *inventory.Manifest) []pieceRecord {
	out := make([]pieceRecord, len(m.Pieces))
	for i := range m.Pieces {
		pc := &m.Pieces[i]
		r := pieceRecord{ID: pc.ID, Kind: string(pc.Kind), Tag: pc.Tag, Class: pc.Class, Dimensions: vecOf(pc.Dimensions)}
		if l := pc.Lift; l != nil {
			r.Lift = &liftRecord{OffsetM: vecOf(l.OffsetM), SizeM: vecOf(l.SizeM), Direction: vecOf(l.Direction),
				AccelerationMS2: number(l.AccelerationMS2), MaxSpeedMS: number(l.MaxSpeedMS), NegatesGravity: l.NegatesGravity}
		}
		if d := pc.Door; d != nil {
			r.Door = &doorRecord{TravelM: number(d.TravelM), SpeedMS: number(d.SpeedMS), TriggerSizeM: vecOf(d.TriggerSizeM),
				HoldOpenS: number(d.HoldOpenS)}
		}
		for _, sf := range pc.Surfaces {
			r.Surfaces = append(r.Surfaces, surfaceRecord{Slot: sf.Slot, Profile: string(sf.Profile)})
		}
		out[i] = r
	}
	return out
}

// encode returns v as indented JSON with HTML escaping off and a final
// newline, size bytes being a guess of its length.
func encode(v any, size int) ([]byte, error) {
	b := bytes.NewBuffer(make([]byte, 0, size))
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("%w: %w", errUnrenderable, err)
	}
	return b.Bytes(), nil
}

func (s *set) installedJSON() ([]byte, error) {
	doc := installedFile{Format: format, Version: formatVersion, Packs: make([]packRecord, len(s.packs))}
	for i, p := range s.packs {
		m := p.Manifest
		doc.Packs[i] = packRecord{ID: m.ID, Version: m.Version, Name: m.Name, Authors: nonNil(m.Authors),
			Description: m.Description, Enabled: p.Enabled, ArchiveSHA256: p.ArchiveSHA256, Pieces: piecesOf(m)}
	}
	return encode(doc, 4096+len(s.pieces)*700)
}

// Manifest renders the normalized form of a manifest that the pipeline
// stores: the keys of SPEC §3 in its order, absent utilities omitted,
// numbers by the rule of SPEC §6, two-space indentation and a final
// newline, as installed.json writes them. Decoding it gives back an equal
// manifest, and rendering that gives the same bytes. It fails, like
// [Files], for what the form cannot hold (see [errUnrenderable]).
func Manifest(m *inventory.Manifest) ([]byte, error) {
	if m == nil {
		return nil, fmt.Errorf("%w: no manifest", errUnrenderable)
	}
	for i := range m.Pieces {
		if err := checkPiece(m, &m.Pieces[i]); err != nil {
			return nil, fmt.Errorf("%w: %s piece %s: %w", errUnrenderable, m.ID, m.Pieces[i].ID, err)
		}
	}
	doc := manifestRecord{Schema: m.Schema, ID: m.ID, Version: m.Version, Name: m.Name, Authors: nonNil(m.Authors),
		Description: m.Description, Pieces: piecesOf(m)}
	return encode(doc, 1024+len(m.Pieces)*700)
}
