package lock

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/BurntSushi/toml"

	"github.com/mjolnir-forge/forgesync/internal/semver"
	"github.com/mjolnir-forge/forgesync/inventory"
)

// Decode reads a lock file strictly (SPEC §10.1): unknown or duplicate
// keys, a wrong format or version, duplicate ids, ids and versions that
// SPEC §3 refuses, bad hex, sizes out of range, more than MaxPacks packs,
// URLs that are not http, https, file or relative, a pack that must be
// downloaded without a URL, and a fingerprint line that does not match the
// packs are each a Problem with its line. name is used in errors only.
// Every problem is reported, not only the first.
func Decode(name string, data []byte, opt DecodeOptions) (*Lock, error) {
	d := &decoder{file: name, data: data, opt: opt}
	if opt.MaxArchiveBytes <= 0 {
		d.opt.MaxArchiveBytes = DefaultMaxArchiveBytes
	}
	l := d.decode()
	if len(d.problems) > 0 {
		slices.SortStableFunc(d.problems, func(a, b problem) int { return a.Line - b.Line })
		return nil, &lockError{File: name, Problems: d.problems}
	}
	return l, nil
}

type decoder struct {
	file     string
	data     []byte
	opt      DecodeOptions
	lines    *lineIndex
	problems []problem
	// json is set for a lock in JSON, whose packs have no lines of their
	// own: a pack is then named by its index.
	json bool
}

// where names pack p, the lock's table i, for a message: its line, or in
// JSON its index.
func (d *decoder) where(p Pack, i int) string {
	if d.json {
		return fmt.Sprintf("pack[%d]", i)
	}
	return fmt.Sprintf("line %d", p.Line)
}

func (d *decoder) add(line int, key, format string, args ...any) {
	d.problems = append(d.problems, problem{Line: line, Key: key, Message: fmt.Sprintf(format, args...)})
}

var (
	topKeys  = []string{"format", "version", "name", "fingerprint", "serial", "expires", "chunks", "pack"}
	packKeys = []string{"id", "version", "sha256", "size", "urls", "index"}
)

func (d *decoder) decode() *Lock {
	if len(d.data) > MaxLockBytes {
		d.add(0, "", "the file is %d bytes, over the limit of %d", len(d.data), MaxLockBytes)
		return nil
	}
	if bytes.HasPrefix(d.data, []byte{0xEF, 0xBB, 0xBF}) {
		d.add(1, "", "starts with a byte order mark; save it as UTF-8 without one")
		return nil
	}
	var root map[string]any
	if _, err := toml.NewDecoder(bytes.NewReader(d.data)).Decode(&root); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			d.add(pe.Position.Line, "", "%s", pe.Message)
		} else {
			d.add(0, "", "%v", err)
		}
		return nil
	}
	d.lines = indexLines(d.data)
	return d.check(root)
}

// check holds a decoded lock document, TOML or JSON, to the lock's rules.
func (d *decoder) check(root map[string]any) *Lock {
	top := func(k string) int { return d.lines.top(k) }

	for _, k := range sortedKeys(root) {
		if !slices.Contains(topKeys, k) {
			d.add(top(k), k, "unknown key (a lock has format, version, name, fingerprint, serial, expires, chunks and [[pack]] tables)")
		}
	}
	l := &Lock{Name: d.header(root)}
	l.Serial, l.Expires = d.freshness(root)
	l.Chunks = d.chunks(root)
	tables, ok := packTables(root["pack"])
	if !ok {
		d.add(top("pack"), "pack", "must be [[pack]] tables, found %s", show(root["pack"]))
	}
	if len(tables) > maxPacks {
		d.add(top("pack"), "pack", "%d packs, over the limit of %d", len(tables), maxPacks)
		return nil
	}
	d.packs(l, tables)
	if v, ok := root["fingerprint"]; ok {
		line := top("fingerprint")
		s, ok := v.(string)
		switch {
		case !ok:
			d.add(line, "fingerprint", "must be a string, found %s", show(v))
		case !isFingerprint(s):
			d.add(line, "fingerprint", "must be \"sha256:\" and 64 lowercase hex digits, found %q", s)
		case len(d.problems) == 0 && s != l.Fingerprint():
			d.add(line, "fingerprint", "%s does not match the packs, whose fingerprint is %s (the packs were edited, or the line was copied from another set)", s, l.Fingerprint())
		}
	}
	return l
}

// header checks format and version and returns the set's name.
func (d *decoder) header(root map[string]any) string {
	top := func(k string) int { return d.lines.top(k) }
	if v, ok := root["format"]; !ok {
		d.add(1, "format", "missing: the first line of a lock is format = %q", LockFormat)
	} else if s, ok := v.(string); !ok || s != LockFormat {
		d.add(top("format"), "format", "must be %q, found %s", LockFormat, show(v))
	}
	if v, ok := root["version"]; !ok {
		d.add(1, "version", "missing: a lock says version = %d", lockVersion)
	} else if n, ok := v.(int64); !ok || n != lockVersion {
		d.add(top("version"), "version", "must be %d (the only lock version this forgesync reads), found %s", lockVersion, show(v))
	}
	if v, ok := root["name"]; ok {
		s, ok := v.(string)
		switch {
		case !ok:
			d.add(top("name"), "name", "must be a string, found %s", show(v))
		case utf8.RuneCountInString(s) > maxNameChars:
			d.add(top("name"), "name", "must be at most %d characters", maxNameChars)
		case hasControl(s):
			d.add(top("name"), "name", "must not contain control characters")
		default:
			return s
		}
	}
	return ""
}

// packs decodes the [[pack]] tables into l, refusing an id or an archive
// pinned twice.
func (d *decoder) packs(l *Lock, tables []map[string]any) {
	ids := map[string]int{}
	hashes := map[string]int{}
	var tableOf []int // the table index of each pack of l
	for i, t := range tables {
		p, ok := d.pack(i, t)
		if !ok {
			continue
		}
		key := fmt.Sprintf("pack[%d].id", i)
		if first, dup := ids[p.ID]; dup {
			d.add(d.lines.packKey(i, "id"), key, "%q is pinned twice (first at %s)", p.ID, d.where(l.Packs[first], tableOf[first]))
			continue
		}
		if first, dup := hashes[p.SHA256]; dup {
			d.add(d.lines.packKey(i, "sha256"), fmt.Sprintf("pack[%d].sha256", i),
				"the same archive is pinned as %q at %s; one archive is one pack", l.Packs[first].ID, d.where(l.Packs[first], tableOf[first]))
			continue
		}
		ids[p.ID] = len(l.Packs)
		hashes[p.SHA256] = len(l.Packs)
		l.Packs = append(l.Packs, p)
		tableOf = append(tableOf, i)
	}
}

// packTables returns the [[pack]] tables, whether written as tables or as an
// inline array; ok is false for anything else.
func packTables(v any) ([]map[string]any, bool) {
	switch t := v.(type) {
	case nil:
		return nil, true
	case []map[string]any:
		return t, true
	case []any:
		out := make([]map[string]any, 0, len(t))
		for _, e := range t {
			m, ok := e.(map[string]any)
			if !ok {
				return nil, false
			}
			out = append(out, m)
		}
		return out, true
	}
	return nil, false
}

// pack decodes [[pack]] table i, t, adding each of its problems, and
// reports whether it had none.
func (d *decoder) pack(i int, t map[string]any) (Pack, bool) {
	p := Pack{Line: d.lines.packHeader(i)}
	n := len(d.problems)
	key := func(k string) string { return fmt.Sprintf("pack[%d].%s", i, k) }
	line := func(k string) int { return d.lines.packKey(i, k) }
	for _, k := range sortedKeys(t) {
		if !slices.Contains(packKeys, k) {
			d.add(line(k), key(k), "unknown key (a pack has id, version, sha256, size, urls and index)")
		}
	}
	str := func(k string) (string, bool) {
		v, ok := t[k]
		if !ok {
			d.add(p.Line, key(k), "missing")
			return "", false
		}
		s, ok := v.(string)
		if !ok {
			d.add(line(k), key(k), "must be a string, found %s", show(v))
		}
		return s, ok
	}
	if s, ok := str("id"); ok {
		if !inventory.IsPackID(s) {
			d.add(line("id"), key("id"), "%q is not a pack id: 3–48 bytes of [a-z0-9] with single '-' between them", s)
		}
		p.ID = s
	}
	if s, ok := str("version"); ok {
		if len(s) > maxVersionBytes || !semver.Valid(s) {
			d.add(line("version"), key("version"), "%q is not a semantic version MAJOR.MINOR.PATCH[-pre][+build] of at most %d bytes", s, maxVersionBytes)
		}
		p.Version = s
	}
	if s, ok := str("sha256"); ok {
		if !IsSHA256(s) {
			d.add(line("sha256"), key("sha256"), "must be 64 lowercase hex digits (the SHA-256 of the archive), found %q", s)
		}
		p.SHA256 = s
	}
	p.Size = d.packSize(i, p.Line, t)
	if v, ok := t["urls"]; ok {
		p.URLs = d.packURLs(i, v)
	}
	if v, ok := t["index"]; ok {
		p.Index = d.index(i, v)
	}
	if len(d.problems) > n {
		return p, false
	}
	return p, d.downloadable(i, p)
}

// packSize returns the size of pack i, whose table starts at line header
// and holds t; 0 after adding its problem.
func (d *decoder) packSize(i, header int, t map[string]any) int64 {
	key := fmt.Sprintf("pack[%d].size", i)
	v, ok := t["size"]
	if !ok {
		d.add(header, key, "missing")
		return 0
	}
	n, ok := v.(int64)
	switch {
	case !ok:
		d.add(d.lines.packKey(i, "size"), key, "must be an integer number of bytes, found %s", show(v))
	case n <= 0 || n > d.opt.MaxArchiveBytes:
		d.add(d.lines.packKey(i, "size"), key, "%d is out of range: an archive has 1 to %d bytes", n, d.opt.MaxArchiveBytes)
	default:
		return n
	}
	return 0
}

// packURLs returns the mirrors of pack i, v its urls: a list of at most
// maxURLsPerPack URLs, each one this lock may name. A URL that is not is
// left out, after adding its problem.
func (d *decoder) packURLs(i int, v any) []string {
	line, key := d.lines.packKey(i, "urls"), fmt.Sprintf("pack[%d].urls", i)
	list, ok := v.([]any)
	switch {
	case !ok:
		d.add(line, key, "must be a list of strings, found %s", show(v))
		return nil
	case len(list) > maxURLsPerPack:
		d.add(line, key, "%d URLs, over the limit of %d", len(list), maxURLsPerPack)
		return nil
	}
	var urls []string
	for j, e := range list {
		s, ok := e.(string)
		if !ok {
			d.add(line, fmt.Sprintf("%s[%d]", key, j), "must be a string, found %s", show(e))
			continue
		}
		if why := d.checkURL(s); why != "" {
			d.add(line, fmt.Sprintf("%s[%d]", key, j), "%q %s", Redact(s), why)
			continue
		}
		urls = append(urls, s)
	}
	return urls
}

// downloadable reports whether the machine can have the archive of p,
// pack i: it holds it already (DecodeOptions.Have), or p lists a URL to
// download it from (an absolute one, for a lock given as text, which has
// no location for a relative one to resolve against). When it cannot, it
// adds the problem.
func (d *decoder) downloadable(i int, p Pack) bool {
	if d.opt.Have != nil && d.opt.Have(p.SHA256) {
		return true
	}
	line, key := d.lines.packKey(i, "urls"), fmt.Sprintf("pack[%d].urls", i)
	switch {
	case len(p.URLs) == 0:
		d.add(line, key, "%s %s must be downloaded, and the pack lists no URL", p.ID, p.Version)
		return false
	case d.opt.Given && !slices.ContainsFunc(p.URLs, isAbsoluteURL):
		d.add(line, key, "%s %s must be downloaded, and a lock given as text has no location for its relative URLs (%s) to resolve against: list an http(s) URL, or apply the lock by its URL",
			p.ID, p.Version, strings.Join(p.URLs, ", "))
		return false
	}
	return true
}

// checkURL returns why s cannot be a URL of this lock, or "": CheckURL's
// rules, and for a lock given as text no file: URL.
func (d *decoder) checkURL(s string) string {
	if why := CheckURL(s); why != "" {
		return why
	}
	if d.opt.Given && isFileURL(s) {
		return "names a local file, and a lock given as text may name none: the daemon would read it with its own account for a caller it cannot vouch for; list http(s) URLs, or give the lock's own path over the local socket"
	}
	return ""
}

// freshness checks the lock's serial, a whole number from 1, and
// expires, an RFC 3339 time with its offset (a TOML offset date-time, or
// the same as a string, as JSON has no times); each is optional.
func (d *decoder) freshness(root map[string]any) (serial int64, expires time.Time) {
	if v, ok := root["serial"]; ok {
		if n, ok := v.(int64); !ok || n < 1 {
			d.add(d.lines.top("serial"), "serial", "must be a whole number from 1 (it grows with each export of the set), found %s", show(v))
		} else {
			serial = n
		}
	}
	v, ok := root["expires"]
	if !ok {
		return serial, time.Time{}
	}
	const want = "must be an RFC 3339 time with its offset, such as 2030-01-31T00:00:00Z"
	t, isTime := v.(time.Time)
	if s, isString := v.(string); isString {
		var err error
		if t, err = time.Parse(time.RFC3339, s); err != nil {
			d.add(d.lines.top("expires"), "expires", "%s, found %q", want, s)
			return serial, time.Time{}
		}
	} else if !isTime || strings.HasSuffix(t.Location().String(), "-local") {
		// A TOML local date or time has no offset: when it ends depends
		// on where the machine is.
		d.add(d.lines.top("expires"), "expires", "%s, found %s", want, show(v))
		return serial, time.Time{}
	}
	return serial, t.UTC()
}

// chunks checks the lock's chunk store mirrors, a list of URLs.
func (d *decoder) chunks(root map[string]any) []string {
	v, ok := root["chunks"]
	if !ok {
		return nil
	}
	line := d.lines.top("chunks")
	list, ok := v.([]any)
	if !ok {
		d.add(line, "chunks", "must be a list of chunk store URLs, found %s", show(v))
		return nil
	}
	if len(list) > maxChunkStores {
		d.add(line, "chunks", "%d chunk stores, over the limit of %d", len(list), maxChunkStores)
		return nil
	}
	var out []string
	for j, e := range list {
		key := fmt.Sprintf("chunks[%d]", j)
		s, ok := e.(string)
		if !ok {
			d.add(line, key, "must be a string, found %s", show(e))
			continue
		}
		if why := d.checkURL(s); why != "" {
			d.add(line, key, "%q %s", Redact(s), why)
			continue
		}
		out = append(out, s)
	}
	return out
}

// index checks a pack's index = {url = "…", sha256 = "…"}.
func (d *decoder) index(i int, v any) *IndexRef {
	line := d.lines.packKey(i, "index")
	key := func(k string) string { return fmt.Sprintf("pack[%d].index%s", i, k) }
	t, ok := v.(map[string]any)
	if !ok {
		d.add(line, key(""), "must be a table {url = \"…\", sha256 = \"…\"}, found %s", show(v))
		return nil
	}
	for _, k := range sortedKeys(t) {
		if k != "url" && k != "sha256" {
			d.add(line, key("."+k), "unknown key (an index has url and sha256)")
		}
	}
	ref := &IndexRef{}
	if u, ok := t["url"]; !ok {
		d.add(line, key(".url"), "missing")
	} else if s, ok := u.(string); !ok {
		d.add(line, key(".url"), "must be a string, found %s", show(u))
	} else if why := d.checkURL(s); why != "" {
		d.add(line, key(".url"), "%q %s", Redact(s), why)
	} else {
		ref.URL = s
	}
	if h, ok := t["sha256"]; !ok {
		d.add(line, key(".sha256"), "missing")
	} else if s, ok := h.(string); !ok || !IsSHA256(s) {
		d.add(line, key(".sha256"), "must be 64 lowercase hex digits (the SHA-256 of the index file), found %s", show(h))
	} else {
		ref.SHA256 = s
	}
	return ref
}

func isFingerprint(s string) bool {
	rest, ok := strings.CutPrefix(s, "sha256:")
	return ok && IsSHA256(rest)
}

func hasControl(s string) bool {
	for _, r := range s {
		if unicode.IsControl(r) {
			return true
		}
	}
	return false
}

// show renders a decoded TOML value for an error message.
func show(v any) string {
	switch t := v.(type) {
	case nil:
		return "nothing"
	case string:
		return strconv.Quote(t)
	case int64:
		return strconv.FormatInt(t, 10)
	case float64:
		return strconv.FormatFloat(t, 'g', -1, 64) + " (a float)"
	case bool:
		return strconv.FormatBool(t) + " (a boolean)"
	case []any, []map[string]any:
		return "a list"
	case map[string]any:
		return "a table"
	case time.Time:
		return t.Format(time.RFC3339Nano) + " (a TOML date or time without an offset)"
	}
	return fmt.Sprintf("%v (%T)", v, v)
}

func sortedKeys(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
