package render

import (
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/mjolnir-forge/forgesync/inventory"
)

// This file writes installed.json and the stored normalized manifests by
// hand rather than with encoding/json: the layout is the one
// json.MarshalIndent(v, "", "  ") gives with HTML escaping off (a test holds
// the two to the same bytes), but numbers follow the one rule of SPEC §6
// (no exponent, -0 written 0), and a large inventory renders without
// reflection.

// Format and FormatVersion identify installed.json.
const (
	Format        = "forge-installed"
	FormatVersion = 1
)

// jsonWriter appends indented JSON to b.
type jsonWriter struct {
	b []byte
}

// indent is a line break and enough indentation for the deepest value.
const indent = "\n                    "

func (w *jsonWriter) newline(depth int) {
	w.b = append(w.b, indent[:1+2*depth]...)
}

// key starts member name of an object at depth; first is whether it is the
// object's first member.
func (w *jsonWriter) key(depth int, first bool, name string) {
	if !first {
		w.b = append(w.b, ',')
	}
	w.newline(depth)
	w.b = append(w.b, '"')
	w.b = append(w.b, name...)
	w.b = append(w.b, '"', ':', ' ')
}

func (w *jsonWriter) str(s string) { w.b = appendString(w.b, s) }

func (w *jsonWriter) num(v float64) { w.b = appendNum(w.b, v) }

func (w *jsonWriter) boolean(v bool) { w.b = strconv.AppendBool(w.b, v) }

// vec writes three numbers as a list whose elements sit at depth+1.
func (w *jsonWriter) vec(depth int, v inventory.Vec3) {
	w.b = append(w.b, '[')
	for i, x := range v {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.newline(depth + 1)
		w.num(x)
	}
	w.newline(depth)
	w.b = append(w.b, ']')
}

func (s *set) installedJSON() []byte {
	w := &jsonWriter{b: make([]byte, 0, 4096+len(s.pieces)*700)}
	w.b = append(w.b, '{')
	w.key(1, true, "format")
	w.str(Format)
	w.key(1, false, "version")
	w.b = strconv.AppendInt(w.b, FormatVersion, 10)
	w.key(1, false, "packs")
	if len(s.packs) == 0 {
		w.b = append(w.b, "[]"...)
	} else {
		w.b = append(w.b, '[')
		for i, p := range s.packs {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			w.newline(2)
			w.pack(2, p)
		}
		w.newline(1)
		w.b = append(w.b, ']')
	}
	w.newline(0)
	w.b = append(w.b, '}', '\n')
	return w.b
}

// Manifest renders the normalized form of a manifest that the pipeline
// stores: the keys of SPEC §3 in its order, absent utilities omitted,
// numbers by the rule of SPEC §6, two-space indentation and a final
// newline, in the same writer as installed.json. Decoding it gives back an
// equal manifest, and rendering that gives the same bytes. It fails, like
// [Files], for what the form cannot hold (see [ErrUnrenderable]).
func Manifest(m *inventory.Manifest) ([]byte, error) {
	if m == nil {
		return nil, fmt.Errorf("%w: no manifest", ErrUnrenderable)
	}
	for i := range m.Pieces {
		if err := checkPiece(m, &m.Pieces[i]); err != nil {
			return nil, fmt.Errorf("%w: %s piece %s: %w", ErrUnrenderable, m.ID, m.Pieces[i].ID, err)
		}
	}
	w := &jsonWriter{b: make([]byte, 0, 1024+len(m.Pieces)*700)}
	w.b = append(w.b, '{')
	w.key(1, true, "schema")
	w.b = strconv.AppendInt(w.b, int64(m.Schema), 10)
	w.manifest(0, m, false, nil)
	w.b = append(w.b, '\n')
	return w.b, nil
}

// pack writes an installed pack at depth d: its manifest with enabled and
// archive_sha256 before the pieces, as installed.json holds it.
func (w *jsonWriter) pack(d int, p *inventory.InstalledPack) {
	w.b = append(w.b, '{')
	w.manifest(d, p.Manifest, true, func() {
		w.key(d+1, false, "enabled")
		w.boolean(p.Enabled)
		w.key(d+1, false, "archive_sha256")
		w.str(p.ArchiveSHA256)
	})
}

// manifest writes the members of m's object at depth d, after the opening
// brace (first says whether id is the first member), with the members
// extra writes before the pieces, and closes the object.
func (w *jsonWriter) manifest(d int, m *inventory.Manifest, first bool, extra func()) {
	w.key(d+1, first, "id")
	w.str(m.ID)
	w.key(d+1, false, "version")
	w.str(m.Version)
	w.key(d+1, false, "name")
	w.str(m.Name)
	w.key(d+1, false, "authors")
	w.strings(d+1, m.Authors)
	if m.Description != "" {
		w.key(d+1, false, "description")
		w.str(m.Description)
	}
	if extra != nil {
		extra()
	}
	w.key(d+1, false, "pieces")
	if len(m.Pieces) == 0 {
		w.b = append(w.b, "[]"...)
	} else {
		w.b = append(w.b, '[')
		for i := range m.Pieces {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			w.newline(d + 2)
			w.piece(d+2, &m.Pieces[i])
		}
		w.newline(d + 1)
		w.b = append(w.b, ']')
	}
	w.newline(d)
	w.b = append(w.b, '}')
}

func (w *jsonWriter) strings(d int, ss []string) {
	if len(ss) == 0 {
		w.b = append(w.b, "[]"...)
		return
	}
	w.b = append(w.b, '[')
	for i, s := range ss {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.newline(d + 1)
		w.str(s)
	}
	w.newline(d)
	w.b = append(w.b, ']')
}

func (w *jsonWriter) piece(d int, pc *inventory.Piece) {
	w.b = append(w.b, '{')
	w.key(d+1, true, "id")
	w.str(pc.ID)
	w.key(d+1, false, "kind")
	w.str(string(pc.Kind))
	w.key(d+1, false, "tag")
	w.str(pc.Tag)
	w.key(d+1, false, "class")
	w.str(pc.Class)
	w.key(d+1, false, "dimensions_m")
	w.vec(d+1, pc.Dimensions)
	if l := pc.Lift; l != nil {
		e := d + 2
		w.key(d+1, false, "lift")
		w.b = append(w.b, '{')
		w.key(e, true, "offset_m")
		w.vec(e, l.OffsetM)
		w.key(e, false, "size_m")
		w.vec(e, l.SizeM)
		w.key(e, false, "direction")
		w.vec(e, l.Direction)
		w.key(e, false, "acceleration_m_s2")
		w.num(l.AccelerationMS2)
		w.key(e, false, "max_speed_m_s")
		w.num(l.MaxSpeedMS)
		w.key(e, false, "negates_gravity")
		w.boolean(l.NegatesGravity)
		w.newline(d + 1)
		w.b = append(w.b, '}')
	}
	if dr := pc.Door; dr != nil {
		e := d + 2
		w.key(d+1, false, "door")
		w.b = append(w.b, '{')
		w.key(e, true, "travel_m")
		w.num(dr.TravelM)
		w.key(e, false, "speed_m_s")
		w.num(dr.SpeedMS)
		w.key(e, false, "trigger_size_m")
		w.vec(e, dr.TriggerSizeM)
		w.key(e, false, "hold_open_s")
		w.num(dr.HoldOpenS)
		w.newline(d + 1)
		w.b = append(w.b, '}')
	}
	if len(pc.Surfaces) > 0 {
		w.key(d+1, false, "surfaces")
		w.b = append(w.b, '[')
		for i, sf := range pc.Surfaces {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			w.newline(d + 2)
			w.b = append(w.b, '{')
			w.key(d+3, true, "slot")
			w.b = strconv.AppendInt(w.b, int64(sf.Slot), 10)
			w.key(d+3, false, "profile")
			w.str(string(sf.Profile))
			w.newline(d + 2)
			w.b = append(w.b, '}')
		}
		w.newline(d + 1)
		w.b = append(w.b, ']')
	}
	w.newline(d)
	w.b = append(w.b, '}')
}

const hexDigits = "0123456789abcdef"

// plain says which ASCII bytes a JSON string holds as they are.
var plain = func() (t [utf8.RuneSelf]bool) {
	for c := range t {
		t[c] = c >= 0x20 && c != '"' && c != '\\'
	}
	return t
}()

// appendString appends s as a JSON string the way encoding/json does with
// HTML escaping off: quote, backslash and control characters escaped,
// U+2028 and U+2029 escaped, invalid UTF-8 replaced by U+FFFD.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if plain[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
