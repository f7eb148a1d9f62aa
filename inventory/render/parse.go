package render

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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

// Error returns "installed.json:LINE:COL: PATH: MSG[: ERR]".
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

type parser struct {
	data []byte
	dec  *json.Decoder
}

// fail returns a ParseError at byte offset off.
func (p *parser) fail(off int, path, format string, args ...any) error {
	line, col := position(p.data, off)
	return &ParseError{Line: line, Column: col, Path: path, Msg: fmt.Sprintf(format, args...)}
}

// syntax turns an error of the json package into a positioned ParseError.
func (p *parser) syntax(err error, path string) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return p.fail(int(se.Offset), path, "invalid JSON: %v", se)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return p.fail(len(p.data), path, "unexpected end of file")
	}
	return p.fail(int(p.dec.InputOffset()), path, "invalid JSON: %v", err)
}

// next returns the offset of the next token at or after off, skipping white
// space and the separators ',' and ':' (which the json package consumes
// without returning them).
func next(data []byte, off int) int {
	for off < len(data) {
		switch data[off] {
		case ' ', '\t', '\n', '\r', ',', ':':
			off++
		default:
			return off
		}
	}
	return off
}

// position returns the 1-based line and column (in characters) of off.
func position(data []byte, off int) (line, col int) {
	off = min(max(off, 0), len(data))
	start := bytes.LastIndexByte(data[:off], '\n') + 1
	return bytes.Count(data[:start], []byte{'\n'}) + 1, utf8.RuneCount(data[start:off]) + 1
}

func (p *parser) delim(want json.Delim, path, what string) error {
	off := next(p.data, int(p.dec.InputOffset()))
	tok, err := p.dec.Token()
	if err != nil {
		return p.syntax(err, path)
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return p.fail(off, path, "must be %s, got %s", what, shorten(p.data[off:]))
	}
	return nil
}

// shorten returns the start of b for an error message.
func shorten(b []byte) string {
	const max = 40
	if len(b) > max {
		return strconv.Quote(string(b[:max])) + "…"
	}
	return strconv.Quote(string(b))
}

func (p *parser) document() ([]inventory.InstalledPack, error) {
	if bytes.HasPrefix(p.data, []byte{0xEF, 0xBB, 0xBF}) {
		return nil, p.fail(0, "", "starts with a UTF-8 byte order mark")
	}
	p.dec = json.NewDecoder(bytes.NewReader(p.data))
	if err := p.delim('{', "", "an object"); err != nil {
		return nil, err
	}
	var packs []inventory.InstalledPack
	seen := map[string]bool{}
	for p.dec.More() {
		keyOff := next(p.data, int(p.dec.InputOffset()))
		tok, err := p.dec.Token()
		if err != nil {
			return nil, p.syntax(err, "")
		}
		key, _ := tok.(string)
		if seen[key] {
			return nil, p.fail(keyOff, key, "duplicate key %q", key)
		}
		seen[key] = true
		valOff := next(p.data, int(p.dec.InputOffset()))
		switch key {
		case "format":
			var raw json.RawMessage
			if err := p.dec.Decode(&raw); err != nil {
				return nil, p.syntax(err, key)
			}
			if string(raw) != strconv.Quote(Format) {
				return nil, p.fail(valOff, key, "must be %q, got %s", Format, raw)
			}
		case "version":
			var raw json.RawMessage
			if err := p.dec.Decode(&raw); err != nil {
				return nil, p.syntax(err, key)
			}
			if string(raw) != strconv.Itoa(FormatVersion) {
				return nil, p.fail(valOff, key, "must be %d (the only installed.json version this forgesync reads), got %s", FormatVersion, raw)
			}
		case "packs":
			if packs, err = p.packs(); err != nil {
				return nil, err
			}
		default:
			return nil, p.fail(keyOff, key, "unknown key %q (allowed: format, version, packs)", key)
		}
	}
	if err := p.delim('}', "", "the end of the object"); err != nil {
		return nil, err
	}
	for _, k := range []string{"format", "version", "packs"} {
		if !seen[k] {
			return nil, p.fail(0, k, "is required")
		}
	}
	off := next(p.data, int(p.dec.InputOffset()))
	if _, err := p.dec.Token(); err != io.EOF {
		return nil, p.fail(off, "", "trailing data after the object: %s", shorten(p.data[off:]))
	}
	return packs, nil
}

func (p *parser) packs() ([]inventory.InstalledPack, error) {
	if err := p.delim('[', "packs", "a list"); err != nil {
		return nil, err
	}
	packs := []inventory.InstalledPack{}
	for i := 0; p.dec.More(); i++ {
		path := "packs[" + strconv.Itoa(i) + "]"
		off := next(p.data, int(p.dec.InputOffset()))
		var raw json.RawMessage
		if err := p.dec.Decode(&raw); err != nil {
			return nil, p.syntax(err, path)
		}
		pk, err := p.pack(raw, off, path)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			if prev := packs[i-1].Manifest.ID; pk.Manifest.ID <= prev {
				return nil, p.fail(off, path+".id", "packs must be sorted by id without repeats; %q follows %q", pk.Manifest.ID, prev)
			}
		}
		packs = append(packs, pk)
	}
	if err := p.delim(']', "packs", "the end of the list"); err != nil {
		return nil, err
	}
	return packs, nil
}

// member is one key-value pair of a pack object, as offsets into it.
type member struct {
	key              string
	keyOff, valueEnd int
	value            json.RawMessage
}

// pack reads one pack object, which starts at byte off of the document. The
// manifest part goes to inventory.Decode as it stands, so that every rule of
// SPEC §3 (duplicate keys, types, ranges, namespaces) is checked again with
// positions: the enabled member is overwritten in place with "schema":1, the
// archive_sha256 member is blanked, and line breaks are kept, so that the
// validator's lines and columns map back onto installed.json.
func (p *parser) pack(raw []byte, off int, path string) (inventory.InstalledPack, error) {
	var zero inventory.InstalledPack
	if len(raw) == 0 || raw[0] != '{' {
		return zero, p.fail(off, path, "must be an object, got %s", shorten(raw))
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		return zero, p.syntax(err, path)
	}
	var members []member
	byKey := map[string]int{}
	for dec.More() {
		keyOff := next(raw, int(dec.InputOffset()))
		tok, err := dec.Token()
		if err != nil {
			return zero, p.fail(off+keyOff, path, "invalid JSON: %v", err)
		}
		key, _ := tok.(string)
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return zero, p.fail(off+keyOff, path+"."+key, "invalid JSON: %v", err)
		}
		if _, dup := byKey[key]; dup {
			return zero, p.fail(off+keyOff, path+"."+key, "duplicate key %q", key)
		}
		if key == "schema" {
			return zero, p.fail(off+keyOff, path+"."+key, "unknown key %q (installed.json packs carry no schema)", key)
		}
		byKey[key] = len(members)
		members = append(members, member{key, keyOff, int(dec.InputOffset()), value})
	}
	var pk inventory.InstalledPack
	doc := bytes.Clone(raw)
	ei, ok := byKey["enabled"]
	if !ok {
		return zero, p.fail(off, path+".enabled", "is required")
	}
	en := members[ei]
	switch string(en.value) {
	case "true":
		pk.Enabled = true
	case "false":
	default:
		return zero, p.fail(off+en.keyOff, path+".enabled", "must be true or false, got %s", shorten(en.value))
	}
	// "schema" fits in the key, ':' stays where it is, 1 takes the
	// place of the value's first letter.
	valueStart := en.valueEnd - len(en.value)
	colon := bytes.LastIndexByte(doc[:valueStart], ':')
	blank(doc[en.keyOff:en.valueEnd])
	copy(doc[en.keyOff:], `"schema"`)
	doc[colon] = ':'
	doc[valueStart] = '1'
	si, ok := byKey["archive_sha256"]
	if !ok {
		return zero, p.fail(off, path+".archive_sha256", "is required")
	}
	sh := members[si]
	if err := json.Unmarshal(sh.value, &pk.ArchiveSHA256); err != nil || !isSHA256(pk.ArchiveSHA256) {
		return zero, p.fail(off+sh.keyOff, path+".archive_sha256", "must be 64 lower-case hex digits, got %s", shorten(sh.value))
	}
	blank(doc[sh.keyOff:sh.valueEnd])
	if c := skipSpace(doc, sh.valueEnd); c < len(doc) && doc[c] == ',' {
		doc[c] = ' ' // the comma that followed it
	} else if c := bytes.TrimRight(doc[:sh.keyOff], " \t\r\n"); len(c) > 0 && c[len(c)-1] == ',' {
		doc[len(c)-1] = ' ' // it was the last member: the comma before it
	}
	if len(doc) > inventory.MaxManifestBytes {
		// A large pack indented this deep can outgrow the manifest limit
		// it met as a forgepack.json; without the white space it fits,
		// at the cost of positions inside it.
		var c bytes.Buffer
		if err := json.Compact(&c, doc); err == nil {
			doc = c.Bytes()
			m, err := inventory.Decode(InstalledJSONName, doc)
			if err != nil {
				return zero, p.manifestError(err, off, path, idHint(members, byKey), false)
			}
			pk.Manifest = m
			return pk, nil
		}
	}
	m, err := inventory.Decode(InstalledJSONName, doc)
	if err != nil {
		return zero, p.manifestError(err, off, path, idHint(members, byKey), true)
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
func idHint(members []member, byKey map[string]int) string {
	i, ok := byKey["id"]
	if !ok {
		return ""
	}
	var id string
	if json.Unmarshal(members[i].value, &id) != nil || id == "" {
		return ""
	}
	return " " + strconv.Quote(id)
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
