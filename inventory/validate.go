package inventory

import (
	"bytes"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mjolnir-forge/forgesync/internal/semver"
	"github.com/mjolnir-forge/forgesync/inventory/rejection"
)

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// Decode parses and validates the bytes of a forgepack.json against every
// rule of SPEC §3. name is how errors refer to the file (usually
// "forgepack.json" or "ARCHIVE!forgepack.json"). On any fault it returns a
// *ManifestError listing every fault it could find, each with its JSON path,
// line, column, rule and value; a syntax error stops the search, because
// nothing after it can be read reliably.
func Decode(name string, data []byte) (*Manifest, error) {
	v := validator{file: name, data: data}
	switch {
	case len(data) > MaxManifestBytes:
		v.addAt(1, 1, "", RuleTooLarge, "manifest is larger than 1 MiB (1048576 bytes)", strconv.Itoa(len(data))+" bytes")
	case bytes.HasPrefix(data, utf8BOM):
		v.addAt(1, 1, "", RuleEncoding, "starts with a UTF-8 byte order mark; save the file as UTF-8 without BOM", "EF BB BF")
	default:
		root, serr := parseJSON(data)
		if serr != nil {
			v.add(serr.off, "", serr.rule, serr.msg, "")
			break
		}
		m := v.manifest(&root)
		if len(v.errs) == 0 {
			return m, nil
		}
	}
	return nil, &ManifestError{File: name, Errors: v.errs}
}

// validator walks the parsed tree, builds the Manifest and collects faults.
type validator struct {
	file       string // the manifest's name, each reason's File
	data       []byte
	errs       []rejection.Reason
	lineStarts []int // offsets of line starts, built on the first fault
}

func (v *validator) add(off int, path, rule, msg, value string) {
	line, col := v.position(off)
	v.addAt(line, col, path, rule, msg, value)
}

func (v *validator) addAt(line, col int, path, rule, msg, value string) {
	v.errs = append(v.errs, rejection.Reason{File: v.file, Path: path, Line: line, Column: col, Rule: rule, Value: value, Message: msg})
}

// position turns a byte offset into a 1-based line and character column.
func (v *validator) position(off int) (line, col int) {
	if v.lineStarts == nil {
		v.lineStarts = append(v.lineStarts, 0)
		for i, c := range v.data {
			if c == '\n' {
				v.lineStarts = append(v.lineStarts, i+1)
			}
		}
	}
	off = min(off, len(v.data))
	i := sort.SearchInts(v.lineStarts, off+1) - 1
	return i + 1, utf8.RuneCount(v.data[v.lineStarts[i]:off]) + 1
}

// text returns the value as written, shortened for messages.
func (v *validator) text(n *node) string {
	switch n.kind {
	case kindNull:
		return "null"
	case kindBool:
		return strconv.FormatBool(n.b)
	case kindNumber:
		return string(v.data[n.off:n.end])
	case kindString:
		s := n.str
		if len(s) > 80 {
			s = s[:77]
			for !utf8.ValidString(s) {
				s = s[:len(s)-1]
			}
			s += "..."
		}
		return strconv.Quote(s)
	case kindObject:
		return "an object"
	default:
		return "a list of " + strconv.Itoa(len(n.arr))
	}
}

func joinKey(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func joinIndex(path string, i int) string {
	return path + "[" + strconv.Itoa(i) + "]"
}

// object checks that n is an object whose keys are all in keys, reports
// unknown and duplicate keys, and returns the value of each known key by
// its index in keys (nil when absent). required lists the indexes that must
// be present.
func (v *validator) object(n *node, path string, keys []string, required ...int) (fields [8]*node, ok bool) {
	if n.kind != kindObject {
		v.add(n.off, path, RuleType, "must be an object", v.text(n))
		return fields, false
	}
	for i := range n.obj {
		m := &n.obj[i]
		idx := slices.Index(keys, m.key)
		switch {
		case m.dup:
			v.add(m.off, joinKey(path, m.key), RuleDuplicateKey, "duplicate key "+strconv.Quote(m.key)+" (each key may appear once in an object)", "")
		case idx < 0:
			v.add(m.off, joinKey(path, m.key), RuleUnknownKey, unknownKey(m.key, keys), "")
		default:
			fields[idx] = &m.val
		}
	}
	for _, r := range required {
		if fields[r] == nil {
			v.add(n.off, joinKey(path, keys[r]), RuleRequired, "is required", "")
		}
	}
	return fields, true
}

// unknownKey says that key is not one of keys, the keys allowed where it
// stands: with the allowed key it is a slip of (did you mean `max_speed_m_s`?),
// else with the list of them.
func unknownKey(key string, keys []string) string {
	msg := "unknown key " + strconv.Quote(key)
	if near := nearestKey(key, keys); near != "" {
		return msg + ": did you mean `" + near + "`?"
	}
	return msg + " (allowed: " + strings.Join(keys, ", ") + ")"
}

// nearestKey returns the key of keys that key is most likely a slip of:
// the one fewest edits away (letters inserted, deleted, replaced or two
// swapped, case ignored), when those edits are at most a third of its
// length (at least 1); "" when none is that near, or two are.
func nearestKey(key string, keys []string) string {
	best, bestD, tie := "", -1, false
	for _, k := range keys {
		d := editDistance(strings.ToLower(key), k)
		switch {
		case d > max(1, len([]rune(k))/3):
		case bestD < 0 || d < bestD:
			best, bestD, tie = k, d, false
		case d == bestD:
			tie = true
		}
	}
	if tie {
		return ""
	}
	return best
}

// editDistance is the optimal string alignment distance between a and b,
// in characters: the insertions, deletions, substitutions and swaps of
// neighbours that turn one into the other.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

func (v *validator) number(n *node, path string) (float64, bool) {
	if n.kind != kindNumber {
		v.add(n.off, path, RuleType, "must be a number", v.text(n))
		return 0, false
	}
	if n.overflow {
		v.add(n.off, path, RuleOverflow, "number does not fit a float64", v.text(n))
		return 0, false
	}
	if n.num == 0 {
		return 0, true // normalizes -0 to 0
	}
	return n.num, true
}

// span is an interval check on a number, with the rule in words.
type span struct {
	lo, hi float64
	loOpen bool // lo itself is excluded
	words  string
}

func (s span) holds(x float64) bool {
	if s.loOpen {
		if !(x > s.lo) {
			return false
		}
	} else if !(x >= s.lo) {
		return false
	}
	return x <= s.hi
}

func between(lo, hi float64) span {
	return span{lo: lo, hi: hi, words: "must be between " + fmtNum(lo) + " and " + fmtNum(hi)}
}

func aboveZeroUpTo(hi float64) span {
	return span{lo: 0, hi: hi, loOpen: true, words: "must be > 0 and ≤ " + fmtNum(hi)}
}

func fmtNum(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

func (v *validator) ranged(n *node, path string, s span) (float64, bool) {
	x, ok := v.number(n, path)
	if !ok {
		return 0, false
	}
	if !s.holds(x) {
		v.add(n.off, path, RuleRange, s.words, v.text(n))
		return x, false
	}
	return x, true
}

func (v *validator) integer(n *node, path string) (int, bool) {
	if n.kind != kindNumber {
		v.add(n.off, path, RuleType, "must be an integer", v.text(n))
		return 0, false
	}
	if n.overflow {
		v.add(n.off, path, RuleOverflow, "number does not fit a float64", v.text(n))
		return 0, false
	}
	raw := v.data[n.off:n.end]
	if bytes.ContainsAny(raw, ".eE") || n.num > 1<<31 || n.num < -(1<<31) {
		v.add(n.off, path, RuleInteger, "must be an integer written without a fraction or exponent", string(raw))
		return 0, false
	}
	return int(n.num), true
}

func (v *validator) str(n *node, path string) (string, bool) {
	if n.kind != kindString {
		v.add(n.off, path, RuleType, "must be a string", v.text(n))
		return "", false
	}
	return n.str, true
}

// vec3 reads a list of exactly three numbers, each checked against s.
func (v *validator) vec3(n *node, path string, s span) (Vec3, bool) {
	var out Vec3
	if n.kind != kindArray || len(n.arr) != 3 {
		if n.kind == kindArray {
			v.add(n.off, path, RuleLength, "must be a list of 3 numbers", v.text(n))
		} else {
			v.add(n.off, path, RuleType, "must be a list of 3 numbers", v.text(n))
		}
		return out, false
	}
	ok := true
	for i := range n.arr {
		x, good := v.ranged(&n.arr[i], joinIndex(path, i), s)
		out[i] = x
		ok = ok && good
	}
	return out, ok
}

// text rules

func (v *validator) textField(n *node, path string, minChars, maxChars int, allowNewlines bool) (string, bool) {
	s, ok := v.str(n, path)
	if !ok {
		return "", false
	}
	count := utf8.RuneCountInString(s)
	if count < minChars || count > maxChars {
		words := "must be " + strconv.Itoa(minChars) + "–" + strconv.Itoa(maxChars) + " characters"
		if minChars == 0 {
			words = "must be at most " + strconv.Itoa(maxChars) + " characters"
		}
		v.add(n.off, path, RuleLength, words, strconv.Itoa(count)+" characters")
		return s, false
	}
	for _, r := range s {
		if unicode.IsControl(r) && !(allowNewlines && (r == '\n' || r == '\t')) {
			v.add(n.off, path, RuleFormat, "must not contain control characters", v.text(n))
			return s, false
		}
	}
	return s, true
}

// IsPackID reports whether s is a valid pack slug: 3–48 bytes of [a-z0-9]
// with single '-' between them.
func IsPackID(s string) bool {
	if len(s) < 3 || len(s) > 48 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
		case c == '-' && i > 0 && i < len(s)-1 && s[i-1] != '-':
		default:
			return false
		}
	}
	return true
}

func isPieceID(s string) bool {
	if len(s) < 1 || len(s) > 48 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// tagFormat returns why s is not a Blam tag path, or "".
func tagFormat(s string) string {
	if len(s) > 240 {
		return "must be at most 240 bytes"
	}
	for _, comp := range strings.Split(s, `\`) {
		if comp == "" {
			return `must be components joined by single '\' (no empty component)`
		}
		if comp == "." || comp == ".." {
			return "must not have a '.' or '..' component"
		}
		for i := 0; i < len(comp); i++ {
			c := comp[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-') {
				return "components may use only [a-z0-9_.-]"
			}
		}
	}
	return ""
}

// classFormat returns why s is not an Unreal class path
// /Game/…/<Asset>.<Asset>_C, or "".
func classFormat(s string) string {
	if len(s) > 200 {
		return "must be at most 200 bytes"
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '/' || c == '.' || c == '-') {
			return "may use only [A-Za-z0-9_/.-]"
		}
	}
	if !strings.HasPrefix(s, "/") {
		return "must start with '/'"
	}
	segs := strings.Split(s[1:], "/")
	for _, seg := range segs[:len(segs)-1] {
		if seg == "" || seg == "." || seg == ".." {
			return "must not have empty, '.' or '..' folders"
		}
	}
	last := segs[len(segs)-1]
	asset, obj, found := strings.Cut(last, ".")
	if !found || asset == "" || strings.Contains(obj, ".") || obj != asset+"_C" {
		return "must end in /<Asset>.<Asset>_C"
	}
	return ""
}

var (
	topKeys     = []string{"schema", "id", "version", "name", "authors", "description", "pieces", "$schema"}
	pieceKeys   = []string{"id", "kind", "tag", "class", "dimensions_m", "lift", "door", "surfaces"}
	liftKeys    = []string{"offset_m", "size_m", "direction", "acceleration_m_s2", "max_speed_m_s", "negates_gravity"}
	doorKeys    = []string{"travel_m", "speed_m_s", "trigger_size_m", "hold_open_s"}
	surfaceKeys = []string{"slot", "profile"}
)

func (v *validator) manifest(root *node) *Manifest {
	f, ok := v.object(root, "", topKeys, 0, 1, 2, 3, 4, 6)
	if !ok {
		return nil
	}
	m := &Manifest{}
	if n := f[0]; n != nil {
		if s, ok := v.integer(n, "schema"); ok {
			m.Schema = s
			if s != SchemaVersion {
				v.add(n.off, "schema", RuleSchema, "must be 1 (the only schema this forgesync reads)", v.text(n))
			}
		}
	}
	idOK := false
	if n := f[1]; n != nil {
		if s, ok := v.str(n, "id"); ok {
			m.ID = s
			idOK = IsPackID(s)
			if !idOK {
				v.add(n.off, "id", RuleFormat, "must be a pack slug: 3–48 bytes of [a-z0-9] with single '-' between them", v.text(n))
			}
		}
	}
	if n := f[2]; n != nil {
		if s, ok := v.str(n, "version"); ok {
			m.Version = s
			if len(s) > maxVersionBytes {
				v.add(n.off, "version", RuleLength, "must be at most "+strconv.Itoa(maxVersionBytes)+" bytes", strconv.Itoa(len(s))+" bytes")
			} else if !semver.Valid(s) {
				v.add(n.off, "version", RuleFormat, "must be a semantic version MAJOR.MINOR.PATCH[-pre][+build]", v.text(n))
			}
		}
	}
	if n := f[3]; n != nil {
		m.Name, _ = v.textField(n, "name", 1, 64, false)
	}
	if n := f[4]; n != nil {
		m.Authors = v.authors(n)
	}
	if n := f[5]; n != nil {
		m.Description, _ = v.textField(n, "description", 0, 1000, true)
	}
	if n := f[6]; n != nil {
		packID := ""
		if idOK {
			packID = m.ID
		}
		m.Pieces = v.pieces(n, packID)
	}
	if n := f[7]; n != nil {
		// Where an editor finds the JSON Schema; not part of the catalog, so
		// the normalized form drops it.
		if s, ok := v.str(n, "$schema"); ok && len(s) > maxSchemaRefBytes {
			v.add(n.off, "$schema", RuleLength, "must be at most "+strconv.Itoa(maxSchemaRefBytes)+" bytes", strconv.Itoa(len(s))+" bytes")
		}
	}
	return m
}

func (v *validator) authors(n *node) []string {
	if n.kind != kindArray {
		v.add(n.off, "authors", RuleType, "must be a list of 1–16 names", v.text(n))
		return nil
	}
	if len(n.arr) < 1 || len(n.arr) > 16 {
		v.add(n.off, "authors", RuleLength, "must list 1–16 authors", v.text(n))
	}
	out := make([]string, 0, len(n.arr))
	for i := range n.arr {
		s, _ := v.textField(&n.arr[i], joinIndex("authors", i), 1, 64, false)
		out = append(out, s)
	}
	return out
}

func (v *validator) pieces(n *node, packID string) []Piece {
	if n.kind != kindArray {
		v.add(n.off, "pieces", RuleType, "must be a list of 1–512 pieces", v.text(n))
		return nil
	}
	if len(n.arr) < 1 || len(n.arr) > maxPieces {
		v.add(n.off, "pieces", RuleLength, "must list 1–512 pieces", v.text(n))
	}
	out := make([]Piece, len(n.arr))
	ids := make(map[string]int, len(n.arr))
	tags := make(map[string]int, len(n.arr))
	classes := make(map[string]int, len(n.arr))
	unique := func(seen map[string]int, key string, i int, n *node, path, what string) {
		if key == "" {
			return
		}
		if j, dup := seen[key]; dup {
			v.add(n.off, path, RuleUnique, what+" is already used by pieces["+strconv.Itoa(j)+"]", v.text(n))
			return
		}
		seen[key] = i
	}
	for i := range n.arr {
		path := joinIndex("pieces", i)
		fields := v.piece(&n.arr[i], path, packID, &out[i])
		if fields[0] != nil && out[i].ID != "" {
			unique(ids, out[i].ID, i, fields[0], path+".id", "piece id")
		}
		if fields[2] != nil && out[i].Tag != "" {
			unique(tags, out[i].Tag, i, fields[2], path+".tag", "tag")
		}
		if fields[3] != nil && out[i].Class != "" {
			unique(classes, out[i].Class, i, fields[3], path+".class", "class")
		}
	}
	return out
}

// piece validates one piece into p and returns its fields, for the
// uniqueness checks that span pieces.
func (v *validator) piece(n *node, path, packID string, p *Piece) [8]*node {
	f, ok := v.object(n, path, pieceKeys, 0, 1, 2, 3, 4)
	if !ok {
		return f
	}
	if n := f[0]; n != nil {
		if s, ok := v.str(n, path+".id"); ok {
			p.ID = s
			if !isPieceID(s) {
				v.add(n.off, path+".id", RuleFormat, "must be 1–48 bytes of [a-z0-9_]", v.text(n))
			}
		}
	}
	kindOK := false
	if n := f[1]; n != nil {
		if s, ok := v.str(n, path+".kind"); ok {
			p.Kind = Kind(s)
			kindOK = p.Kind == KindBlock || p.Kind == KindPanel
			if !kindOK {
				v.add(n.off, path+".kind", RuleFormat, `must be "block" or "panel"`, v.text(n))
			}
		}
	}
	if n := f[2]; n != nil {
		if s, ok := v.str(n, path+".tag"); ok {
			p.Tag = s
			prefix := `mjolnir\forge\` + packID + `\`
			if why := tagFormat(s); why != "" {
				v.add(n.off, path+".tag", RuleFormat, "must be a Blam tag path: "+why, v.text(n))
			} else if packID != "" && (!strings.HasPrefix(s, prefix) || len(s) == len(prefix)) {
				v.add(n.off, path+".tag", RuleNamespace, "must start with "+strconv.Quote(prefix)+" and name the piece after it", v.text(n))
			}
		}
	}
	if n := f[3]; n != nil {
		if s, ok := v.str(n, path+".class"); ok {
			p.Class = s
			prefix := "/Game/MJOLNIR/Forge/" + packID + "/"
			if why := classFormat(s); why != "" {
				v.add(n.off, path+".class", RuleFormat, "must be an Unreal class path: "+why, v.text(n))
			} else if packID != "" && !strings.HasPrefix(s, prefix) {
				v.add(n.off, path+".class", RuleNamespace, "must start with "+strconv.Quote(prefix), v.text(n))
			}
		}
	}
	dimsOK := false
	if n := f[4]; n != nil {
		p.Dimensions, dimsOK = v.vec3(n, path+".dimensions_m", between(0.01, 256))
	}
	if n := f[5]; n != nil && n.kind != kindNull {
		if kindOK && p.Kind != KindBlock {
			v.add(n.off, path+".lift", RuleKind, "a lift is allowed only on blocks (this piece is a "+string(p.Kind)+")", "")
		}
		p.Lift = v.lift(n, path+".lift")
	}
	if n := f[6]; n != nil && n.kind != kindNull {
		if kindOK && p.Kind != KindPanel {
			v.add(n.off, path+".door", RuleKind, "a door is allowed only on panels (this piece is a "+string(p.Kind)+")", "")
		}
		p.Door = v.door(n, path+".door")
		if dimsOK && p.Door != nil {
			for i := range 3 {
				if p.Dimensions[i] > 64 {
					dn := &f[4].arr[i]
					v.add(dn.off, joinIndex(path+".dimensions_m", i), RuleRange, "a panel with a door may be at most 64 m on each axis", v.text(dn))
				}
			}
		}
	}
	if n := f[7]; n != nil && n.kind != kindNull {
		p.Surfaces = v.surfaces(n, path+".surfaces")
	}
	return f
}

func (v *validator) lift(n *node, path string) *Lift {
	f, ok := v.object(n, path, liftKeys, 0, 1, 2, 3, 4, 5)
	if !ok {
		return nil
	}
	l := &Lift{}
	if n := f[0]; n != nil {
		l.OffsetM, _ = v.vec3(n, path+".offset_m", between(-100, 100))
	}
	if n := f[1]; n != nil {
		l.SizeM, _ = v.vec3(n, path+".size_m", between(0.1, 100))
	}
	if n := f[2]; n != nil {
		d, ok := v.vec3(n, path+".direction", span{lo: math.Inf(-1), hi: math.Inf(1), words: "must be a number"})
		l.Direction = d
		if ok {
			v.unitVector(n, path+".direction", d)
		}
	}
	if n := f[3]; n != nil {
		l.AccelerationMS2, _ = v.ranged(n, path+".acceleration_m_s2", between(0.1, 100))
	}
	if n := f[4]; n != nil {
		l.MaxSpeedMS, _ = v.ranged(n, path+".max_speed_m_s", between(0.1, 30))
	}
	if n := f[5]; n != nil {
		if n.kind != kindBool {
			v.add(n.off, path+".negates_gravity", RuleType, "must be true or false", v.text(n))
		}
		l.NegatesGravity = n.b
	}
	return l
}

// unitVector checks that the direction d, read from the list n, has
// length 1. The fault quotes the numbers as written (1e9, not
// 1000000000) and the normalised vector to write instead.
func (v *validator) unitVector(n *node, path string, d Vec3) {
	sq := d[0]*d[0] + d[1]*d[1] + d[2]*d[2]
	if math.Abs(sq-1) <= 0.001 {
		return
	}
	got := "[" + v.text(&n.arr[0]) + ", " + v.text(&n.arr[1]) + ", " + v.text(&n.arr[2]) + "] with x²+y²+z² = " + strconv.FormatFloat(sq, 'g', 6, 64)
	msg := "must be a unit vector (|x²+y²+z² − 1| ≤ 0.001)"
	if length := math.Sqrt(sq); length > 0 && !math.IsInf(length, 0) {
		var unit [3]string
		for i, x := range d {
			unit[i] = strconv.FormatFloat(x/length+0, 'g', 6, 64)
			if unit[i] == "-0" {
				unit[i] = "0"
			}
		}
		msg += ": write [" + strings.Join(unit[:], ", ") + "] for this direction (normalised)"
	} else {
		msg += ": a direction of length 0 points nowhere"
	}
	v.add(n.off, path, RuleUnitVector, msg, got)
}

func (v *validator) door(n *node, path string) *Door {
	f, ok := v.object(n, path, doorKeys, 0, 1, 2, 3)
	if !ok {
		return nil
	}
	d := &Door{}
	if n := f[0]; n != nil {
		d.TravelM, _ = v.ranged(n, path+".travel_m", aboveZeroUpTo(16))
	}
	if n := f[1]; n != nil {
		d.SpeedMS, _ = v.ranged(n, path+".speed_m_s", aboveZeroUpTo(8))
	}
	if n := f[2]; n != nil {
		d.TriggerSizeM, _ = v.vec3(n, path+".trigger_size_m", aboveZeroUpTo(32))
	}
	if n := f[3]; n != nil {
		d.HoldOpenS, _ = v.ranged(n, path+".hold_open_s", between(0, 10))
	}
	return d
}

func (v *validator) surfaces(n *node, path string) []Surface {
	if n.kind != kindArray {
		v.add(n.off, path, RuleType, "must be a list of {slot, profile} objects", v.text(n))
		return nil
	}
	if len(n.arr) > maxSurfaces {
		v.add(n.off, path, RuleLength, "must list at most 16 surfaces", v.text(n))
	}
	if len(n.arr) == 0 {
		return nil // [] means none
	}
	out := make([]Surface, 0, len(n.arr))
	var slots [16]int // 1 + index of the surface holding each slot
	for i := range n.arr {
		p := joinIndex(path, i)
		f, ok := v.object(&n.arr[i], p, surfaceKeys, 0, 1)
		if !ok {
			continue
		}
		var s Surface
		if sn := f[0]; sn != nil {
			if slot, ok := v.integer(sn, p+".slot"); ok {
				s.Slot = slot
				switch {
				case slot < 0 || slot > 15:
					v.add(sn.off, p+".slot", RuleRange, "must be an integer from 0 to 15", v.text(sn))
				case slots[slot] != 0:
					v.add(sn.off, p+".slot", RuleUnique, "slot is already used by "+joinIndex(path, slots[slot]-1), v.text(sn))
				default:
					slots[slot] = i + 1
				}
			}
		}
		if pn := f[1]; pn != nil {
			if name, ok := v.str(pn, p+".profile"); ok {
				s.Profile = Profile(name)
				if s.Profile != ProfileGlassCyan && s.Profile != ProfileTeleporterGreen {
					v.add(pn.off, p+".profile", RuleProfile, `must be "glass_cyan" or "teleporter_green"`, v.text(pn))
				}
			}
		}
		out = append(out, s)
	}
	return out
}
