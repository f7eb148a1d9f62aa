// Package strictjson owns the check strict JSON decoding adds to
// encoding/json: DuplicateKey, which finds a key given twice in one object
// (the decoder would keep the last silently). The daemon's request bodies
// and the JSON form of a lock are held to it. It is a leaf.
package strictjson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// jsonFrame is an object or an array being read by DuplicateKey.
type jsonFrame struct {
	object bool
	keys   map[string]string // in an object: folded key → the key as written
	key    bool              // in an object: the next token is a key
	index  int               // in an array: the next element's index
	name   string            // the path segment of this value: ".key" or "[3]"
}

// DuplicateKey returns what is wrong when a key appears twice in one object
// of the JSON document data — the key and where, as a path like
// "pack[1].id" — or "" when none does. Keys that differ only in case count
// as the same: encoding/json fills a struct's field from either, and keeps
// the last. A document that does not decode is left to the decoder: "".
func DuplicateKey(data []byte) string {
	dec := json.NewDecoder(bytes.NewReader(data))
	var stack []jsonFrame
	path := func(last string) string {
		var b strings.Builder
		for _, f := range stack {
			b.WriteString(f.name)
		}
		b.WriteString(last)
		return strings.TrimPrefix(b.String(), ".")
	}
	member := "" // in an object, the segment of the value that comes next
	for {
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		var top *jsonFrame
		if n := len(stack); n > 0 {
			top = &stack[n-1]
		}
		if top != nil && top.object && top.key {
			k, ok := tok.(string)
			if !ok { // the '}' of the object
				stack = stack[:len(stack)-1]
				valueEnded(stack)
				continue
			}
			folded := strings.ToLower(k)
			if first, dup := top.keys[folded]; dup {
				if first == k {
					return fmt.Sprintf("duplicate key %q at %s", k, path("."+k))
				}
				return fmt.Sprintf("duplicate key %q at %s (the same as %q for the decoder)", k, path("."+k), first)
			}
			top.keys[folded], top.key, member = k, false, "."+k
			continue
		}
		if tok == json.Delim(']') {
			stack = stack[:len(stack)-1]
			valueEnded(stack)
			continue
		}
		name := member
		if top != nil && !top.object {
			name = "[" + strconv.Itoa(top.index) + "]"
			top.index++
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, jsonFrame{object: true, keys: map[string]string{}, key: true, name: name})
		case json.Delim('['):
			stack = append(stack, jsonFrame{name: name})
		default:
			valueEnded(stack)
		}
	}
}

// valueEnded marks that a value ended: in an object, a key comes next.
func valueEnded(stack []jsonFrame) {
	if n := len(stack); n > 0 && stack[n-1].object {
		stack[n-1].key = true
	}
}
