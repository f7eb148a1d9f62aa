package lock

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/mjolnir-forge/forgesync/internal/strictjson"
)

// DecodeJSON reads a lock written in JSON (SPEC §10.3's POST /v1/set/diff):
// an object with the keys of the lock file — format, version, name,
// fingerprint, and pack as an array of objects — decoded into the same
// values the TOML file gives (a whole number is an integer, any other a
// float) and held to the same rules as [Decode], with the same messages.
// A document that is not one JSON object, data after it, a key twice in
// one object, null, and a number no float64 holds are refused too. A
// problem names the line where the JSON puts it when the JSON decoder
// says, else line 1: JSON has no table headers to find keys by.
func DecodeJSON(name string, data []byte, opt DecodeOptions) (*Lock, error) {
	d := &decoder{file: name, data: data, opt: opt, lines: &lineIndex{}, json: true}
	if opt.MaxArchiveBytes <= 0 {
		d.opt.MaxArchiveBytes = DefaultMaxArchiveBytes
	}
	var l *Lock
	if root := d.decodeJSON(); root != nil {
		l = d.check(root)
	}
	if len(d.problems) > 0 {
		slices.SortStableFunc(d.problems, func(a, b problem) int { return a.Line - b.Line })
		return nil, &lockError{File: name, Problems: d.problems}
	}
	return l, nil
}

// decodeJSON returns the lock document in d.data with TOML's values, or
// nil after adding the problem.
func (d *decoder) decodeJSON() map[string]any {
	if len(d.data) > MaxLockBytes {
		d.add(0, "", "the file is %d bytes, over the limit of %d", len(d.data), MaxLockBytes)
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(d.data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		line := 1
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line += bytes.Count(d.data[:min(int(se.Offset), len(d.data))], []byte("\n"))
		}
		d.add(line, "", "not a lock in JSON: %v", err)
		return nil
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		d.add(1, "", "not a lock in JSON: data after the object")
		return nil
	}
	if dup := strictjson.DuplicateKey(d.data); dup != "" {
		d.add(1, "", "%s", dup)
		return nil
	}
	root, ok := v.(map[string]any)
	if !ok {
		d.add(1, "", "a lock in JSON is an object, found %s", show(jsonShown(v)))
		return nil
	}
	n := len(d.problems)
	out := d.tomlValues("", root).(map[string]any)
	if len(d.problems) > n {
		return nil
	}
	return out
}

// tomlValues returns v, decoded from JSON with json.Number, with the
// values TOML gives: int64 for a whole number, float64 for another, an
// array of objects as an array of tables. key is v's path, for problems.
func (d *decoder) tomlValues(key string, v any) any {
	at := func(k string) string {
		if key == "" {
			return k
		}
		return key + "." + k
	}
	switch x := v.(type) {
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return i
		}
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			d.add(1, key, "the number %s is out of range", x)
			return nil
		}
		return f
	case map[string]any:
		out := make(map[string]any, len(x))
		for _, k := range sortedKeys(x) {
			out[k] = d.tomlValues(at(k), x[k])
		}
		return out
	case []any:
		out := make([]any, len(x))
		tables := len(x) > 0
		for i, e := range x {
			out[i] = d.tomlValues(fmt.Sprintf("%s[%d]", key, i), e)
			_, isTable := out[i].(map[string]any)
			tables = tables && isTable
		}
		if !tables {
			return out
		}
		ts := make([]map[string]any, len(out))
		for i, e := range out {
			ts[i] = e.(map[string]any)
		}
		return ts
	case nil:
		d.add(1, key, "null is not a value of a lock")
		return nil
	}
	return v
}

// jsonShown is v as show describes a TOML value: a JSON number as the
// integer or float TOML would read.
func jsonShown(v any) any {
	if n, ok := v.(json.Number); ok {
		if i, err := n.Int64(); err == nil {
			return i
		}
		f, _ := n.Float64()
		return f
	}
	return v
}
