package inventory

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// This file holds the strict JSON reader under the manifest decoder. It
// builds a small tree that remembers where every value and key sits, so the
// validator can name the line and column of each fault, and it rejects what
// encoding/json lets through: duplicate keys (marked, for the validator to
// report with their path), nesting past MaxDepth, invalid UTF-8, lone
// surrogates and numbers outside float64.

type nodeKind uint8

const (
	kindNull nodeKind = iota
	kindBool
	kindNumber
	kindString
	kindObject
	kindArray
)

// node is one JSON value. off is the offset of its first byte; for numbers
// end is one past the last byte, so the raw text is data[off:end].
type node struct {
	kind     nodeKind
	b        bool
	overflow bool // a number that does not fit a float64
	off      int
	end      int
	num      float64
	str      string
	obj      []member
	arr      []node
}

type member struct {
	key string
	off int  // offset of the key's opening quote
	dup bool // an earlier member of the same object has this key
	val node
}

// syntaxError is a fault that stops parsing: the rest of the file cannot be
// read reliably after it.
type syntaxError struct {
	off  int
	rule string
	msg  string
}

type jsonParser struct {
	data  []byte
	pos   int
	depth int
	err   *syntaxError
}

// parseJSON parses data as exactly one JSON value with nothing but
// whitespace after it.
func parseJSON(data []byte) (node, *syntaxError) {
	p := jsonParser{data: data}
	p.skipSpace()
	var root node
	if !p.value(&root) {
		return node{}, p.err
	}
	p.skipSpace()
	if p.pos < len(p.data) {
		if p.hint("") {
			return node{}, p.err
		}
		return node{}, &syntaxError{p.pos, RuleTrailingData, "trailing data after the JSON value"}
	}
	return root, nil
}

// hint records the syntax error of a mistake people carry over from
// JavaScript, YAML or Python into JSON, when one stands at p.pos (where a
// value, a key, a ':' or a separator was expected), and reports whether it
// did. close is the bracket that ends the enclosing object or list, if
// any, for a comma right before it.
func (p *jsonParser) hint(close string) bool {
	if p.pos >= len(p.data) {
		return false
	}
	off, msg := p.pos, ""
	switch c := p.data[p.pos]; {
	case c == '/' && p.pos+1 < len(p.data) && (p.data[p.pos+1] == '/' || p.data[p.pos+1] == '*'):
		msg = "JSON allows no comments (" + string(p.data[p.pos:p.pos+2]) + ")"
	case c == '\'':
		msg = "JSON allows no single quotes: write strings and keys in double quotes"
	case close != "" && string(c) == close:
		comma := p.pos - 1
		for comma >= 0 && (p.data[comma] == ' ' || p.data[comma] == '\t' || p.data[comma] == '\n' || p.data[comma] == '\r') {
			comma--
		}
		if comma < 0 || p.data[comma] != ',' {
			return false
		}
		off, msg = comma, "JSON allows no trailing comma (before '"+close+"')"
	default:
		return false
	}
	p.fail(off, RuleSyntax, msg)
	return true
}

// bareWord is the length of the unquoted identifier at p.pos, 0 if none.
func (p *jsonParser) bareWord() int {
	n := 0
	for p.pos+n < len(p.data) {
		c := p.data[p.pos+n]
		if c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || n > 0 && isDigit(c) {
			n++
			continue
		}
		break
	}
	return n
}

func (p *jsonParser) fail(off int, rule, msg string) bool {
	if p.err == nil {
		p.err = &syntaxError{off, rule, msg}
	}
	return false
}

func (p *jsonParser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *jsonParser) value(n *node) bool {
	if p.pos >= len(p.data) {
		return p.fail(p.pos, RuleSyntax, "unexpected end of file, expected a value")
	}
	n.off = p.pos
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object(n)
	case c == '[':
		return p.array(n)
	case c == '"':
		n.kind = kindString
		s, ok := p.string()
		n.str = s
		return ok
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number(n)
	case c == 't':
		n.kind, n.b = kindBool, true
		return p.literal("true")
	case c == 'f':
		n.kind = kindBool
		return p.literal("false")
	case c == 'n':
		n.kind = kindNull
		return p.literal("null")
	default:
		if p.hint("]") {
			return false
		}
		return p.fail(p.pos, RuleSyntax, "unexpected character "+quoteByte(c)+", expected a value")
	}
}

func quoteByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return strconv.QuoteRune(rune(c))
	}
	return "0x" + strconv.FormatUint(uint64(c), 16)
}

func (p *jsonParser) literal(word string) bool {
	if len(p.data)-p.pos < len(word) || string(p.data[p.pos:p.pos+len(word)]) != word {
		return p.fail(p.pos, RuleSyntax, "invalid literal, expected "+word)
	}
	p.pos += len(word)
	return true
}

func (p *jsonParser) enter() bool {
	p.depth++
	if p.depth > maxDepth {
		return p.fail(p.pos, RuleDepth, "nesting deeper than "+strconv.Itoa(maxDepth)+" levels")
	}
	return true
}

func (p *jsonParser) object(n *node) bool {
	n.kind = kindObject
	if !p.enter() {
		return false
	}
	p.pos++ // {
	var seen map[string]struct{}
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		p.depth--
		return true
	}
	for {
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			if p.hint("}") {
				return false
			}
			if n := p.bareWord(); n > 0 {
				word := string(p.data[p.pos : p.pos+n])
				return p.fail(p.pos, RuleSyntax, "JSON keys take double quotes: write \""+word+"\", not "+word)
			}
			return p.fail(p.pos, RuleSyntax, "expected a quoted key")
		}
		var m member
		m.off = p.pos
		key, ok := p.string()
		if !ok {
			return false
		}
		m.key = key
		// Small objects are scanned; large ones (hostile input) get a set,
		// so that duplicate detection stays linear.
		if seen != nil {
			_, m.dup = seen[key]
			seen[key] = struct{}{}
		} else {
			for i := range n.obj {
				if n.obj[i].key == key {
					m.dup = true
					break
				}
			}
			if len(n.obj) == 16 {
				seen = make(map[string]struct{}, 64)
				for i := range n.obj {
					seen[n.obj[i].key] = struct{}{}
				}
				seen[key] = struct{}{}
			}
		}
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			if p.hint("") {
				return false
			}
			return p.fail(p.pos, RuleSyntax, "expected ':' after key")
		}
		p.pos++
		p.skipSpace()
		if !p.value(&m.val) {
			return false
		}
		n.obj = append(n.obj, m)
		if more, ok := p.separator('}', "an object"); !more {
			return ok
		}
	}
}

// separator reads what follows a member or an element: a comma (more
// follows), or close, which ends the object or list. ok is false after a
// syntax error, which it records.
func (p *jsonParser) separator(close byte, in string) (more, ok bool) {
	p.skipSpace()
	if p.pos >= len(p.data) {
		return false, p.fail(p.pos, RuleSyntax, "unexpected end of file inside "+in)
	}
	switch p.data[p.pos] {
	case ',':
		p.pos++
		return true, true
	case close:
		p.pos++
		p.depth--
		return false, true
	}
	if p.hint("") {
		return false, false
	}
	return false, p.fail(p.pos, RuleSyntax, "expected ',' or '"+string(close)+"' in "+in)
}

func (p *jsonParser) array(n *node) bool {
	n.kind = kindArray
	if !p.enter() {
		return false
	}
	p.pos++ // [
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		p.depth--
		return true
	}
	for {
		p.skipSpace()
		n.arr = append(n.arr, node{})
		if !p.value(&n.arr[len(n.arr)-1]) {
			return false
		}
		if more, ok := p.separator(']', "a list"); !more {
			return ok
		}
	}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (p *jsonParser) number(n *node) bool {
	n.kind = kindNumber
	start := p.pos
	d := p.data
	i := p.pos
	if d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		for i < len(d) && isDigit(d[i]) {
			i++
		}
	default:
		return p.fail(start, RuleSyntax, "invalid number")
	}
	if i < len(d) && d[i] == '.' {
		i++
		if i >= len(d) || !isDigit(d[i]) {
			return p.fail(start, RuleSyntax, "invalid number: digits must follow '.'")
		}
		for i < len(d) && isDigit(d[i]) {
			i++
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || !isDigit(d[i]) {
			return p.fail(start, RuleSyntax, "invalid number: digits must follow the exponent")
		}
		for i < len(d) && isDigit(d[i]) {
			i++
		}
	}
	f, ok := fastFloat(d[start:i])
	if ok {
		n.num, n.end = f, i
		p.pos = i
		return true
	}
	f, err := strconv.ParseFloat(string(d[start:i]), 64)
	// A number too large for a float64 is well formed: the validator
	// reports it with its JSON path, and goes on.
	n.num, n.end, n.overflow = f, i, err != nil
	p.pos = i
	return true
}

// string reads a quoted string at p.pos, decoding escapes and checking UTF-8.
func (p *jsonParser) string() (string, bool) {
	d := p.data
	start := p.pos + 1
	i := start
	for i < len(d) {
		c := d[i]
		if c == '"' {
			p.pos = i + 1
			return intern(d[start:i]), true
		}
		if c == '\\' || c < 0x20 || c >= 0x80 {
			break
		}
		i++
	}
	return p.slowString(start)
}

func (p *jsonParser) slowString(start int) (string, bool) {
	d := p.data
	buf := make([]byte, 0, 32)
	i := start
	for i < len(d) {
		c := d[i]
		switch {
		case c == '"':
			p.pos = i + 1
			return string(buf), true
		case c < 0x20:
			return "", p.fail(i, RuleSyntax, "control character "+quoteByte(c)+" inside a string (escape it)")
		case c == '\\':
			if i+1 >= len(d) {
				return "", p.fail(i, RuleSyntax, "unexpected end of file inside a string")
			}
			esc := d[i+1]
			i += 2
			switch esc {
			case '"', '\\', '/':
				buf = append(buf, esc)
			case 'b':
				buf = append(buf, '\b')
			case 'f':
				buf = append(buf, '\f')
			case 'n':
				buf = append(buf, '\n')
			case 'r':
				buf = append(buf, '\r')
			case 't':
				buf = append(buf, '\t')
			case 'u':
				r, ok := hex4(d, i)
				if !ok {
					return "", p.fail(i-2, RuleSyntax, "invalid \\u escape")
				}
				i += 4
				if utf16.IsSurrogate(r) {
					if r >= 0xDC00 || i+6 > len(d) || d[i] != '\\' || d[i+1] != 'u' {
						return "", p.fail(i-6, RuleSyntax, "lone UTF-16 surrogate in \\u escape")
					}
					r2, ok := hex4(d, i+2)
					if !ok || r2 < 0xDC00 || r2 > 0xDFFF {
						return "", p.fail(i-6, RuleSyntax, "lone UTF-16 surrogate in \\u escape")
					}
					r = utf16.DecodeRune(r, r2)
					i += 6
				}
				buf = utf8.AppendRune(buf, r)
			default:
				return "", p.fail(i-2, RuleSyntax, "invalid escape "+quoteByte(esc))
			}
		case c < 0x80:
			buf = append(buf, c)
			i++
		default:
			r, size := utf8.DecodeRune(d[i:])
			if r == utf8.RuneError && size <= 1 {
				return "", p.fail(i, RuleEncoding, "invalid UTF-8 in a string")
			}
			buf = append(buf, d[i:i+size]...)
			i += size
		}
	}
	return "", p.fail(start-1, RuleSyntax, "unterminated string")
}

func hex4(d []byte, i int) (rune, bool) {
	if i+4 > len(d) {
		return 0, false
	}
	var r rune
	for _, c := range d[i : i+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	return r, true
}

// pow10 holds the powers of ten that float64 represents exactly.
var pow10 = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15}

// fastFloat converts a plain decimal (no exponent, at most 15 significant
// digits) without allocating. Both the digits, read as an integer, and the
// power of ten are exact in a float64, so one division gives the correctly
// rounded result (Clinger's fast path). Anything else reports false and goes
// to strconv.ParseFloat.
func fastFloat(b []byte) (float64, bool) {
	neg := false
	if len(b) > 0 && b[0] == '-' {
		neg, b = true, b[1:]
	}
	var mant uint64
	digits, frac := 0, -1
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			mant = mant*10 + uint64(c-'0')
			digits++
			if frac >= 0 {
				frac++
			}
		case c == '.':
			frac = 0
		default:
			return 0, false
		}
	}
	if digits > 15 {
		return 0, false
	}
	f := float64(mant)
	if frac > 0 {
		f /= pow10[frac]
	}
	if neg {
		f = -f
	}
	return f, true
}

// intern returns the manifest's key names without allocating, and any other
// string as a copy.
func intern(b []byte) string {
	switch string(b) {
	case "schema":
		return "schema"
	case "id":
		return "id"
	case "version":
		return "version"
	case "name":
		return "name"
	case "authors":
		return "authors"
	case "description":
		return "description"
	case "pieces":
		return "pieces"
	case "kind":
		return "kind"
	case "block":
		return "block"
	case "panel":
		return "panel"
	case "tag":
		return "tag"
	case "class":
		return "class"
	case "dimensions_m":
		return "dimensions_m"
	case "lift":
		return "lift"
	case "door":
		return "door"
	case "surfaces":
		return "surfaces"
	case "offset_m":
		return "offset_m"
	case "size_m":
		return "size_m"
	case "direction":
		return "direction"
	case "acceleration_m_s2":
		return "acceleration_m_s2"
	case "max_speed_m_s":
		return "max_speed_m_s"
	case "negates_gravity":
		return "negates_gravity"
	case "travel_m":
		return "travel_m"
	case "speed_m_s":
		return "speed_m_s"
	case "trigger_size_m":
		return "trigger_size_m"
	case "hold_open_s":
		return "hold_open_s"
	case "slot":
		return "slot"
	case "profile":
		return "profile"
	case "glass_cyan":
		return "glass_cyan"
	case "teleporter_green":
		return "teleporter_green"
	}
	return string(b)
}
