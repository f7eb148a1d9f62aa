package inventory

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"unicode/utf8"
)

// FuzzJSONTreeAgainstEncodingJSON holds the strict JSON reader to
// encoding/json: where ours accepts a document, encoding/json accepts it
// and both read the same values (numbers as float64, strings, the same
// structure in the same order); where encoding/json refuses one, ours
// does. Ours may refuse more, and only for what it exists to refuse, each
// witnessed here independently of its own verdict:
//   - a key twice in one object (marked dup, reported by the validator);
//   - nesting deeper than MaxDepth;
//   - invalid UTF-8 in a string;
//   - a lone UTF-16 surrogate in a \u escape;
//   - a number outside float64 (marked overflow, reported by the
//     validator; encoding/json refuses it too when it decodes into any).
//
// Seeds: the manifests of testdata/manifests and the corpus of
// testdata/fuzz/FuzzJSONTreeAgainstEncodingJSON.
func FuzzJSONTreeAgainstEncodingJSON(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/manifests/*.json")
	for _, p := range seeds {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var std any
		stdErr := json.Unmarshal(data, &std)
		root, ourErr := parseJSON(data)
		if ourErr != nil {
			if stdErr == nil && !allowedRefusal(data, std) {
				t.Fatalf("ours refuses %q (%s: %s at %d); encoding/json accepts it, and none of the allowed differences holds",
					data, ourErr.rule, ourErr.msg, ourErr.off)
			}
			return
		}
		if dups, overflow := marked(root); dups || overflow {
			// The validator refuses these; encoding/json keeps the last
			// of duplicate keys and refuses the overflow.
			if overflow && stdErr == nil {
				t.Fatalf("ours marks an overflowing number in %q; encoding/json reads it", data)
			}
			return
		}
		if stdErr != nil {
			t.Fatalf("ours accepts %q; encoding/json refuses it: %v", data, stdErr)
		}
		if path, why := sameValue(root, std, "$"); why != "" {
			t.Fatalf("ours and encoding/json read %q differently at %s: %s", data, path, why)
		}
	})
}

// allowedRefusal reports whether data, which encoding/json read as std,
// holds one of the differences ours may refuse for: nesting past MaxDepth,
// invalid UTF-8, or a lone surrogate escape. (Duplicate keys and
// overflowing numbers do not stop ours from parsing.)
func allowedRefusal(data []byte, std any) bool {
	return depth(std) > maxDepth || !utf8.Valid(data) || hasLoneSurrogate(data)
}

// depth is the nesting of a value decoded by encoding/json: a scalar is
// 0, an object or array one more than its deepest element.
func depth(v any) int {
	d := 0
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			d = max(d, depth(e))
		}
		return d + 1
	case []any:
		for _, e := range x {
			d = max(d, depth(e))
		}
		return d + 1
	}
	return 0
}

// hasLoneSurrogate reports whether a string of the JSON text data holds a
// \u escape of a UTF-16 surrogate that is not a high one followed by a
// low one.
func hasLoneSurrogate(data []byte) bool {
	in := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case !in:
			in = c == '"'
		case c == '"':
			in = false
		case c == '\\' && i+1 < len(data):
			i++
			if data[i] != 'u' {
				continue
			}
			r, ok := hex4(data, i+1)
			if !ok {
				continue
			}
			i += 4
			switch {
			case r >= 0xDC00 && r <= 0xDFFF:
				return true
			case r >= 0xD800 && r < 0xDC00:
				if i+6 >= len(data) || data[i+1] != '\\' || data[i+2] != 'u' {
					return true
				}
				if r2, ok := hex4(data, i+3); !ok || r2 < 0xDC00 || r2 > 0xDFFF {
					return true
				}
				i += 6
			}
		}
	}
	return false
}

// marked reports whether the tree holds a duplicate key or an overflowing
// number, which ours marks for the validator to refuse.
func marked(n node) (dups, overflow bool) {
	switch n.kind {
	case kindNumber:
		return false, n.overflow
	case kindObject:
		for _, m := range n.obj {
			d, o := marked(m.val)
			dups, overflow = dups || d || m.dup, overflow || o
		}
	case kindArray:
		for _, e := range n.arr {
			d, o := marked(e)
			dups, overflow = dups || d, overflow || o
		}
	}
	return dups, overflow
}

// sameValue compares ours with encoding/json's reading, returning where
// and why they differ, or "" when they agree. Numbers must be the same
// float64 bits (-0 included).
func sameValue(n node, v any, path string) (string, string) {
	switch n.kind {
	case kindNull:
		if v != nil {
			return path, "ours null, encoding/json " + describeAny(v)
		}
	case kindBool:
		if b, ok := v.(bool); !ok || b != n.b {
			return path, "ours a boolean, encoding/json " + describeAny(v)
		}
	case kindNumber:
		f, ok := v.(float64)
		if !ok || math.Float64bits(f) != math.Float64bits(n.num) {
			return path, "ours " + describeAny(n.num) + ", encoding/json " + describeAny(v)
		}
	case kindString:
		if s, ok := v.(string); !ok || s != n.str {
			return path, "ours " + describeAny(n.str) + ", encoding/json " + describeAny(v)
		}
	case kindArray:
		a, ok := v.([]any)
		if !ok || len(a) != len(n.arr) {
			return path, "ours a list of " + itoa(len(n.arr)) + ", encoding/json " + describeAny(v)
		}
		for i, e := range n.arr {
			if p, why := sameValue(e, a[i], path+"["+itoa(i)+"]"); why != "" {
				return p, why
			}
		}
	case kindObject:
		m, ok := v.(map[string]any)
		if !ok || len(m) != len(n.obj) {
			return path, "ours an object of " + itoa(len(n.obj)) + " keys, encoding/json " + describeAny(v)
		}
		for _, mem := range n.obj {
			e, ok := m[mem.key]
			if !ok {
				return path, "key " + describeAny(mem.key) + " only in ours"
			}
			if p, why := sameValue(mem.val, e, path+"."+mem.key); why != "" {
				return p, why
			}
		}
	default:
		return path, "ours a node of kind " + itoa(int(n.kind))
	}
	return "", ""
}

func describeAny(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	if len(b) > 80 {
		b = append(b[:80], "…"...)
	}
	return string(b)
}

func itoa(i int) string { return strconv.Itoa(i) }
