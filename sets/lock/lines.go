package lock

import (
	"bufio"
	"bytes"
	"strings"
)

// lineIndex finds the line of a key in a lock's text. The TOML decoder
// reports the line of a syntax error but not the position of each key of an
// array of tables, and every fault of a lock must name its line; the lock's
// shape is fixed (top-level keys and [[pack]] tables), so following table
// headers is enough. Where a key cannot be found (an inline table, a dotted
// key), the line of the nearest enclosing table is used.
type lineIndex struct {
	topKeys  map[string]int
	packs    []packLines
	packLine int // line of "pack = [...]" written inline, or of the first [[pack]]
}

type packLines struct {
	header int
	keys   map[string]int
}

func indexLines(data []byte) *lineIndex {
	x := &lineIndex{topKeys: map[string]int{}}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), MaxLockBytes)
	section := "" // "" top level, "pack" inside [[pack]], "other" elsewhere
	multi := ""   // the delimiter of an open multi-line string
	line := 0
	for sc.Scan() {
		line++
		t := strings.TrimSpace(sc.Text())
		if multi != "" {
			if strings.Count(t, multi)%2 == 1 {
				multi = ""
			}
			continue
		}
		switch {
		case strings.HasPrefix(t, "[["):
			name := tableName(t, "[[", "]]")
			section = "other"
			if name == "pack" {
				section = "pack"
				x.packs = append(x.packs, packLines{header: line, keys: map[string]int{}})
				if x.packLine == 0 {
					x.packLine = line
				}
			}
			continue
		case strings.HasPrefix(t, "["):
			section = "other"
			continue
		}
		key, rest, ok := keyOf(t)
		if ok {
			switch section {
			case "":
				if _, seen := x.topKeys[key]; !seen {
					x.topKeys[key] = line
				}
				if key == "pack" && x.packLine == 0 {
					x.packLine = line
				}
			case "pack":
				p := &x.packs[len(x.packs)-1]
				if _, seen := p.keys[key]; !seen {
					p.keys[key] = line
				}
			}
		}
		for _, delim := range []string{`"""`, `'''`} {
			if strings.Count(rest, delim)%2 == 1 {
				multi = delim
				break
			}
		}
	}
	return x
}

// tableName returns the name inside a table header line.
func tableName(t, open, close string) string {
	t = strings.TrimPrefix(t, open)
	if i := strings.Index(t, close); i >= 0 {
		t = t[:i]
	}
	return strings.Trim(strings.TrimSpace(t), `"'`)
}

// keyOf returns the key of a "key = value" line (bare or quoted) and the
// text after the '='.
func keyOf(t string) (key, rest string, ok bool) {
	if t == "" {
		return "", "", false
	}
	switch t[0] {
	case '"', '\'':
		end := strings.IndexByte(t[1:], t[0])
		if end < 0 {
			return "", "", false
		}
		key, t = t[1:1+end], t[2+end:]
	default:
		i := 0
		for i < len(t) && (t[i] >= 'a' && t[i] <= 'z' || t[i] >= 'A' && t[i] <= 'Z' || t[i] >= '0' && t[i] <= '9' || t[i] == '_' || t[i] == '-') {
			i++
		}
		if i == 0 {
			return "", "", false
		}
		key, t = t[:i], t[i:]
	}
	t = strings.TrimLeft(t, " \t")
	if !strings.HasPrefix(t, "=") {
		return "", "", false
	}
	return key, t[1:], true
}

// top returns the line of a top-level key, or 1.
func (x *lineIndex) top(key string) int {
	if l, ok := x.topKeys[key]; ok {
		return l
	}
	return 1
}

// packHeader returns the line where pack i starts.
func (x *lineIndex) packHeader(i int) int {
	if i < len(x.packs) {
		return x.packs[i].header
	}
	return max(x.packLine, 1)
}

// packKey returns the line of key in pack i, or the pack's first line.
func (x *lineIndex) packKey(i int, key string) int {
	if i < len(x.packs) {
		if l, ok := x.packs[i].keys[key]; ok {
			return l
		}
	}
	return x.packHeader(i)
}
