package config

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

// problem is one fault in a configuration file: its line (0 when it has
// none), the dotted key, and what is wrong in plain words.
type problem struct {
	Line    int
	Key     string
	Message string
}

// fileError is returned for a configuration file with faults; every fault
// found is listed, in line order. It matches [errInvalid].
type fileError struct {
	File     string
	Problems []problem
}

func (e *fileError) Error() string {
	var b strings.Builder
	for i, p := range e.Problems {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.File)
		if p.Line > 0 {
			b.WriteString(":" + strconv.Itoa(p.Line))
		}
		b.WriteString(": ")
		if p.Key != "" {
			b.WriteString(p.Key + ": ")
		}
		b.WriteString(p.Message)
	}
	return b.String()
}

// Is reports whether target is ErrInvalid.
func (e *fileError) Is(target error) bool { return target == errInvalid }

// size is a byte count as written: an integer, or a string with a unit
// ("4GiB", "512 MiB", "100MB"). It is parsed by the validation, so that
// an error can quote it as the user wrote it.
type size struct {
	raw   string // as written: the string, or the integer's digits
	quote bool   // written as a string
}

// decodeFile fills f from the TOML document data. A syntax error stops it
// (the error); every other fault (an unknown key, a value of the wrong
// type) goes to bad, and the rest of the file is still read, so one run
// reports all of them.
func decodeFile(data []byte, f *file, bad func(key, format string, args ...any)) error {
	var doc map[string]any
	if _, err := toml.NewDecoder(strings.NewReader(string(data))).Decode(&doc); err != nil {
		return err
	}
	fv := reflect.ValueOf(f).Elem()
	tables := map[string]reflect.Value{}
	var tableNames []string
	for i := range fv.NumField() {
		name := fv.Type().Field(i).Tag.Get("toml")
		tables[name] = fv.Field(i)
		tableNames = append(tableNames, "["+name+"]")
	}
	for _, name := range sortedKeys(doc) {
		tv, known := tables[name]
		m, isTable := doc[name].(map[string]any)
		switch {
		case !known && isTable:
			for _, k := range sortedKeys(m) {
				bad(name+"."+k, "unknown key: there is no table [%s] (the tables are %s)", name, list(tableNames))
			}
			continue
		case !known:
			bad(name, "unknown key: every key belongs in a table (%s)", list(tableNames))
			continue
		case !isTable:
			bad(name, "want the table [%s], got %s", name, describe(doc[name]))
			continue
		}
		fields := map[string]reflect.Value{}
		var keys []string
		for i := range tv.NumField() {
			k := tv.Type().Field(i).Tag.Get("toml")
			fields[k] = tv.Field(i)
			keys = append(keys, k)
		}
		for _, k := range sortedKeys(m) {
			fld, ok := fields[k]
			if !ok {
				bad(name+"."+k, "unknown key: the keys of [%s] are %s", name, list(keys))
				continue
			}
			if msg := setValue(fld, m[k]); msg != "" {
				bad(name+"."+k, "%s", msg)
			}
		}
	}
	return nil
}

var sizeType = reflect.TypeFor[size]()

// setValue stores v in the field fld, or says why its type is wrong.
func setValue(fld reflect.Value, v any) string {
	if fld.Kind() == reflect.Pointer {
		p := reflect.New(fld.Type().Elem())
		if msg := setValue(p.Elem(), v); msg != "" {
			return msg
		}
		fld.Set(p)
		return ""
	}
	switch {
	case fld.Type() == sizeType:
		switch v := v.(type) {
		case int64:
			fld.Set(reflect.ValueOf(size{raw: strconv.FormatInt(v, 10)}))
			return ""
		case string:
			fld.Set(reflect.ValueOf(size{raw: v, quote: true}))
			return ""
		}
		return "want a size such as \"4GiB\" or a number of bytes, got " + describe(v)
	case fld.Kind() == reflect.String:
		if s, ok := v.(string); ok {
			fld.SetString(s)
			return ""
		}
		return "want a string in quotes, got " + describe(v)
	case fld.Kind() == reflect.Int:
		if n, ok := v.(int64); ok {
			fld.SetInt(n)
			return ""
		}
		return "want a whole number, got " + describe(v)
	case fld.Kind() == reflect.Bool:
		if b, ok := v.(bool); ok {
			fld.SetBool(b)
			return ""
		}
		return "want true or false, got " + describe(v)
	case fld.Kind() == reflect.Slice:
		list, ok := v.([]any)
		out := make([]string, 0, len(list))
		for _, e := range list {
			s, isString := e.(string)
			ok = ok && isString
			out = append(out, s)
		}
		if ok {
			fld.Set(reflect.ValueOf(out))
			return ""
		}
		return "want a list of strings in quotes, got " + describe(v)
	}
	panic(fmt.Sprintf("config: no decoder for %s", fld.Type()))
}

// describe names a TOML value the way a user reads it.
func describe(v any) string {
	switch v := v.(type) {
	case string:
		return strconv.Quote(v) + " (a string)"
	case int64:
		return strconv.FormatInt(v, 10) + " (a number)"
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64) + " (a number with a fraction)"
	case bool:
		return strconv.FormatBool(v) + " (a boolean)"
	case []any:
		return "a list"
	case []map[string]any:
		return "a list of tables"
	case map[string]any:
		return "a table"
	case time.Time:
		return "a date or time"
	}
	return fmt.Sprintf("%v", v)
}

// list joins words as a sentence does: "a, b and c".
func list(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, cmp.Compare)
	return keys
}
