package render

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mjolnir-forge/forgesync/inventory"
)

// ErrMalformed is matched (with errors.Is) by every error of
// [ParseInstalled]: the bytes are not an installed.json this program reads.
var ErrMalformed = errors.New("render: malformed installed.json")

// ParseError is a fault in installed.json outside the packs' manifests: where
// (JSON path, line, column) and what. Faults inside a pack's manifest are
// reported as an *inventory.ManifestError instead, wrapped in a ParseError
// for that pack.
type ParseError struct {
	// Line and Column are 1-based; Column counts characters.
	Line, Column int
	// Path is the JSON path, e.g. packs[2].enabled; empty for the document.
	Path string
	// Msg says what is wrong, with the value found.
	Msg string
	// Err is the underlying error, if any (e.g. an *inventory.ManifestError).
	Err error
}

// Error returns "installed.json:LINE:COL: PATH: MSG", followed by the
// underlying error on the next lines when there is one.
func (e *ParseError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s:%d:%d: ", InstalledJSONName, e.Line, e.Column)
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	if e.Err != nil {
		b.WriteString(":\n")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Is reports whether target is ErrMalformed.
func (e *ParseError) Is(target error) bool { return target == ErrMalformed }

// Unwrap returns the underlying error.
func (e *ParseError) Unwrap() error { return e.Err }

// ParseInstalled reads installed.json strictly, the inverse of
// [InstalledJSON]: unknown and duplicate keys, missing keys, wrong types,
// trailing data, packs out of id order, conflicting tags or classes, and too
// many enabled doors are all rejected with their line and column. Each
// pack's manifest part is validated again against every rule of SPEC §3 by
// inventory.Decode. Rendering what it returns gives back data exactly when
// data was rendered by this package.
func ParseInstalled(data []byte) ([]inventory.InstalledPack, error) {
	p := &parser{data: data}
	packs, err := p.document()
	if err != nil {
		return nil, err
	}
	if _, err := newSet(packs); err != nil {
		return nil, &ParseError{Line: 1, Column: 1, Path: "packs", Msg: "the packs cannot be installed together", Err: err}
	}
	return packs, nil
}

// parser reads the envelope of installed.json (the top object, the packs
// list, the two members a pack has beyond its manifest) with a small
// scanner, and hands each pack object to inventory.Decode, which checks its
// syntax and every rule strictly. The scanner only finds where values end;
// any value whose bytes it does not compare itself goes through Decode or
// json.Unmarshal.
type parser struct {
	data []byte
}

// fail returns a ParseError at byte offset off.
func (p *parser) fail(off int, path, format string, args ...any) error {
	line, col := position(p.data, off)
	return &ParseError{Line: line, Column: col, Path: path, Msg: fmt.Sprintf(format, args...)}
}

// position returns the 1-based line and column (in characters) of off.
func position(data []byte, off int) (line, col int) {
	off = min(max(off, 0), len(data))
	start := bytes.LastIndexByte(data[:off], '\n') + 1
	return bytes.Count(data[:start], []byte{'\n'}) + 1, utf8.RuneCount(data[start:off]) + 1
}

// shorten returns the start of b for an error message.
func shorten(b []byte) string {
	const max = 40
	if len(b) > max {
		return strconv.Quote(string(b[:max])) + "…"
	}
	return strconv.Quote(string(b))
}

// skipSpace returns the offset of the first byte at or after off that is not
// JSON white space.
func skipSpace(data []byte, off int) int {
	for off < len(data) {
		switch data[off] {
		case ' ', '\t', '\n', '\r':
			off++
		default:
			return off
		}
	}
	return off
}

// skipString returns the end of the JSON string starting at d[i] == '"'.
func skipString(d []byte, i int) (int, bool) {
	for j := i + 1; j < len(d); j++ {
		switch d[j] {
		case '\\':
			j++
		case '"':
			return j + 1, true
		}
	}
	return len(d), false
}

// skipValue returns the end of the JSON value starting at d[i]: a string,
// a bracketed object or list (matched, strings skipped), or a bare literal
// or number. It does not check what it skips.
func skipValue(d []byte, i int) (int, bool) {
	if i >= len(d) {
		return i, false
	}
	switch d[i] {
	case '"':
		return skipString(d, i)
	case '{', '[':
		depth := 0
		for ; i < len(d); i++ {
			switch d[i] {
			case '"':
				end, ok := skipString(d, i)
				if !ok {
					return end, false
				}
				i = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, true
				}
			}
		}
		return i, false
	case '}', ']', ',', ':':
		return i, false
	}
	j := i
	for ; j < len(d); j++ {
		switch d[j] {
		case ' ', '\t', '\r', '\n', ',', ']', '}', ':':
			return j, true
		}
	}
	return j, true
}

// object calls member for each member of the object starting at d[off],
// with the key, the key's offset and the value's extent, and returns the
// object's end. The offsets are relative to d; base maps them into p.data
// for errors.
func (p *parser) object(d []byte, off, base int, path string, member func(key string, keyOff, valStart, valEnd int) error) (int, error) {
	if off >= len(d) {
		return off, p.fail(base+off, path, "unexpected end of file")
	}
	if d[off] != '{' {
		return off, p.fail(base+off, path, "must be an object, got %s", shorten(d[off:]))
	}
	i := skipSpace(d, off+1)
	if i < len(d) && d[i] == '}' {
		return i + 1, nil
	}
	for {
		if i >= len(d) {
			return i, p.fail(base+i, path, "unexpected end of file")
		}
		if d[i] != '"' {
			return i, p.fail(base+i, path, "invalid JSON: want a key in double quotes, got %s", shorten(d[i:]))
		}
		keyEnd, ok := skipString(d, i)
		if !ok {
			return i, p.fail(base+i, path, "unexpected end of file")
		}
		var key string
		if raw := d[i+1 : keyEnd-1]; bytes.IndexByte(raw, '\\') < 0 {
			// Without escapes the key is its bytes; what else is wrong
			// with it (a control character, bad UTF-8) inventory.Decode
			// reports for a pack, and no envelope key matches it.
			key = string(raw)
		} else if json.Unmarshal(d[i:keyEnd], &key) != nil {
			return i, p.fail(base+i, path, "invalid JSON: bad key %s", shorten(d[i:keyEnd]))
		}
		j := skipSpace(d, keyEnd)
		if j >= len(d) || d[j] != ':' {
			return j, p.fail(base+j, join(path, key), "invalid JSON: want ':' after the key")
		}
		vs := skipSpace(d, j+1)
		ve, ok := skipValue(d, vs)
		if !ok {
			if ve >= len(d) {
				return ve, p.fail(base+ve, join(path, key), "unexpected end of file")
			}
			return ve, p.fail(base+ve, join(path, key), "invalid JSON: want a value, got %s", shorten(d[ve:]))
		}
		if err := member(key, i, vs, ve); err != nil {
			return ve, err
		}
		i = skipSpace(d, ve)
		if i < len(d) && d[i] == ',' {
			i = skipSpace(d, i+1)
			continue
		}
		if i < len(d) && d[i] == '}' {
			return i + 1, nil
		}
		if i >= len(d) {
			return i, p.fail(base+i, path, "unexpected end of file")
		}
		return i, p.fail(base+i, path, "invalid JSON: want ',' or '}', got %s", shorten(d[i:]))
	}
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func (p *parser) document() ([]inventory.InstalledPack, error) {
	if bytes.HasPrefix(p.data, []byte{0xEF, 0xBB, 0xBF}) {
		return nil, p.fail(0, "", "starts with a UTF-8 byte order mark")
	}
	var packs []inventory.InstalledPack
	seen := map[string]bool{}
	end, err := p.object(p.data, skipSpace(p.data, 0), 0, "", func(key string, keyOff, vs, ve int) error {
		if seen[key] {
			return p.fail(keyOff, key, "duplicate key %q", key)
		}
		seen[key] = true
		raw := p.data[vs:ve]
		switch key {
		case "format":
			if string(raw) != strconv.Quote(Format) {
				return p.fail(vs, key, "must be %q, got %s", Format, shorten(raw))
			}
		case "version":
			if string(raw) != strconv.Itoa(FormatVersion) {
				return p.fail(vs, key, "must be %d (the only installed.json version this forgesync reads), got %s", FormatVersion, shorten(raw))
			}
		case "packs":
			var err error
			packs, err = p.packs(vs, ve)
			return err
		default:
			return p.fail(keyOff, key, "unknown key %q (allowed: format, version, packs)", key)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, k := range []string{"format", "version", "packs"} {
		if !seen[k] {
			return nil, p.fail(0, k, "is required")
		}
	}
	if off := skipSpace(p.data, end); off < len(p.data) {
		return nil, p.fail(off, "", "trailing data after the object: %s", shorten(p.data[off:]))
	}
	return packs, nil
}

// packs reads the list p.data[start:end].
func (p *parser) packs(start, end int) ([]inventory.InstalledPack, error) {
	d := p.data[:end]
	if d[start] != '[' {
		return nil, p.fail(start, "packs", "must be a list, got %s", shorten(d[start:]))
	}
	packs := []inventory.InstalledPack{}
	i := skipSpace(d, start+1)
	if i < len(d) && d[i] == ']' {
		return packs, nil
	}
	for n := 0; ; n++ {
		path := "packs[" + strconv.Itoa(n) + "]"
		ve, ok := skipValue(d, i)
		if !ok {
			return nil, p.fail(ve, path, "invalid JSON: want a pack object, got %s", shorten(d[ve:]))
		}
		pk, err := p.pack(i, ve, path)
		if err != nil {
			return nil, err
		}
		if n > 0 {
			if prev := packs[n-1].Manifest.ID; pk.Manifest.ID <= prev {
				return nil, p.fail(i, path+".id", "packs must be sorted by id without repeats; %q follows %q", pk.Manifest.ID, prev)
			}
		}
		packs = append(packs, pk)
		i = skipSpace(d, ve)
		if i < len(d) && d[i] == ',' {
			i = skipSpace(d, i+1)
			continue
		}
		if i == len(d)-1 && d[i] == ']' {
			return packs, nil
		}
		return nil, p.fail(i, "packs", "invalid JSON: want ',' or ']', got %s", shorten(d[i:]))
	}
}

// member is one key-value pair of a pack object, as offsets into it.
type member struct {
	keyOff, valueStart, valueEnd int
}

// pack reads the pack object p.data[start:end]. The manifest part goes to
// inventory.Decode as it stands, so that every rule of SPEC §3 (syntax,
// duplicate keys, types, ranges, namespaces) is checked again with
// positions: the enabled member is overwritten in place with "schema":1,
// the archive_sha256 member is blanked, and line breaks are kept, so that
// the validator's lines and columns map back onto installed.json.
func (p *parser) pack(start, end int, path string) (inventory.InstalledPack, error) {
	var zero, pk inventory.InstalledPack
	raw := p.data[start:end]
	members := map[string]member{}
	if _, err := p.object(raw, 0, start, path, func(key string, keyOff, vs, ve int) error {
		if _, dup := members[key]; dup {
			return p.fail(start+keyOff, join(path, key), "duplicate key %q", key)
		}
		if key == "schema" {
			return p.fail(start+keyOff, join(path, key), "unknown key %q (installed.json packs carry no schema)", key)
		}
		members[key] = member{keyOff, vs, ve}
		return nil
	}); err != nil {
		return zero, err
	}
	doc := bytes.Clone(raw)
	en, ok := members["enabled"]
	if !ok {
		return zero, p.fail(start, path+".enabled", "is required")
	}
	switch v := raw[en.valueStart:en.valueEnd]; string(v) {
	case "true":
		pk.Enabled = true
	case "false":
	default:
		return zero, p.fail(start+en.valueStart, path+".enabled", "must be true or false, got %s", shorten(v))
	}
	// "schema" fits in the key, ':' stays where it is, 1 takes the
	// place of the value's first letter.
	colon := bytes.LastIndexByte(doc[:en.valueStart], ':')
	blank(doc[en.keyOff:en.valueEnd])
	copy(doc[en.keyOff:], `"schema"`)
	doc[colon] = ':'
	doc[en.valueStart] = '1'
	sh, ok := members["archive_sha256"]
	if !ok {
		return zero, p.fail(start, path+".archive_sha256", "is required")
	}
	if v := raw[sh.valueStart:sh.valueEnd]; json.Unmarshal(v, &pk.ArchiveSHA256) != nil || !isSHA256(pk.ArchiveSHA256) {
		return zero, p.fail(start+sh.valueStart, path+".archive_sha256", "must be 64 lower-case hex digits, got %s", shorten(v))
	}
	blank(doc[sh.keyOff:sh.valueEnd])
	if c := skipSpace(doc, sh.valueEnd); c < len(doc) && doc[c] == ',' {
		doc[c] = ' ' // the comma that followed it
	} else if c := bytes.TrimRight(doc[:sh.keyOff], " \t\r\n"); len(c) > 0 && c[len(c)-1] == ',' {
		doc[len(c)-1] = ' ' // it was the last member: the comma before it
	}
	id := idHint(raw, members)
	exact := true
	if len(doc) > inventory.MaxManifestBytes {
		// A large pack indented this deep can outgrow the manifest limit
		// it met as a forgepack.json; without the white space it fits,
		// at the cost of positions inside it.
		var c bytes.Buffer
		if err := json.Compact(&c, doc); err == nil {
			doc, exact = c.Bytes(), false
		}
	}
	m, err := inventory.Decode(InstalledJSONName, doc)
	if err != nil {
		return zero, p.manifestError(err, start, path, id, exact)
	}
	pk.Manifest = m
	return pk, nil
}

// manifestError maps the validator's positions and paths, which are relative
// to the pack object, onto installed.json. When exact is false the pack was
// compacted and every fault is placed at the pack's start.
func (p *parser) manifestError(err error, off int, path, id string, exact bool) error {
	line, col := position(p.data, off)
	var me *inventory.ManifestError
	if !errors.As(err, &me) {
		return &ParseError{Line: line, Column: col, Path: path, Msg: "invalid pack", Err: err}
	}
	out := &inventory.ManifestError{File: InstalledJSONName}
	for _, fe := range me.Errors {
		f := *fe
		switch {
		case !exact:
			f.Line, f.Column = line, col
		case f.Line == 1:
			f.Column += col - 1
			f.Line = line
		default:
			f.Line += line - 1
		}
		if f.Path == "" {
			f.Path = path
		} else {
			f.Path = path + "." + f.Path
		}
		out.Errors = append(out.Errors, &f)
	}
	return &ParseError{Line: line, Column: col, Path: path, Msg: "pack" + id + " fails manifest validation", Err: out}
}

// idHint returns the pack's id, quoted after a space, for messages; empty
// when it has none.
func idHint(raw []byte, members map[string]member) string {
	m, ok := members["id"]
	if !ok {
		return ""
	}
	var id string
	if json.Unmarshal(raw[m.valueStart:m.valueEnd], &id) != nil || id == "" {
		return ""
	}
	return " " + strconv.Quote(id)
}

// blank overwrites b with spaces, keeping line breaks.
func blank(b []byte) {
	for i, c := range b {
		if c != '\n' {
			b[i] = ' '
		}
	}
}

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
