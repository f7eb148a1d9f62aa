// Package text owns the two rules every text forgesync prints for people
// follows: outside text (names and messages from archives, manifests and
// servers) goes through Escape, so that it cannot drive a terminal or
// forge a line; and a count is said with its noun in the right number
// (Count: "1 archive", "3 archives", "0 files"). It is a leaf every layer
// may use.
package text

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Escape returns s with every character that could drive a terminal, start
// a line or reorder what a reader sees written as an escape: the C0
// controls (\n, \r and \t by name, the others as \xNN), DEL, the C1
// controls, Unicode's format characters (bidi overrides and isolates like
// U+202E, zero-width characters, the BOM) and line and paragraph
// separators as \uNNNN, and bytes that are not UTF-8 as \xNN. Backslashes
// stay as they are (Windows paths read as written), so the escape is for
// reading, not for parsing back. Text without such characters is returned
// as it is. JSON output needs none of this: its encoder escapes.
func Escape(s string) string {
	i := 0
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if mustEscape(r, n) {
			break
		}
		i += n
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case !mustEscape(r, n):
			b.WriteString(s[i : i+n])
		case r == utf8.RuneError:
			b.WriteString(`\x` + hex2(s[i]))
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x80:
			b.WriteString(`\x` + hex2(byte(r)))
		default:
			h := strconv.FormatInt(int64(r), 16)
			b.WriteString(`\u` + strings.Repeat("0", max(0, 4-len(h))) + h)
		}
		i += n
	}
	return b.String()
}

// mustEscape reports whether the rune r, n bytes long, is one Escape
// writes as an escape.
func mustEscape(r rune, n int) bool {
	switch {
	case r == utf8.RuneError && n <= 1:
		return true
	case r < 0x20, r >= 0x7f && r <= 0x9f:
		return true
	case r < 0x7f:
		return false
	}
	return unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp)
}

func hex2(c byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[c>>4], digits[c&15]})
}
