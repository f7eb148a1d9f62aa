package lock

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"aead.dev/minisign"

	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
)

// Encode returns the canonical text of l: format, version, the name when
// set, the fingerprint, the serial and expiry when set (a TOML offset
// date-time in UTC), the chunk stores when set, then one [[pack]] table
// per pack sorted by id, each with id, version, sha256, size, urls and its
// index when set. The same set always gives the
// same bytes, and Decode reads them back. It refuses a lock that Decode
// would refuse (checked with the default archive limit and HaveAll, so
// packs without URLs are allowed).
func Encode(l *Lock) ([]byte, error) {
	packs := slices.Clone(l.Packs)
	slices.SortFunc(packs, func(a, b Pack) int { return cmp.Compare(a.ID, b.ID) })
	var b strings.Builder
	b.WriteString("format = " + quote(LockFormat) + "\n")
	b.WriteString("version = " + strconv.Itoa(lockVersion) + "\n")
	if l.Name != "" {
		b.WriteString("name = " + quote(l.Name) + "\n")
	}
	b.WriteString("fingerprint = " + quote(l.Fingerprint()) + "\n")
	if l.Serial > 0 {
		b.WriteString("serial = " + strconv.FormatInt(l.Serial, 10) + "\n")
	}
	if !l.Expires.IsZero() {
		b.WriteString("expires = " + l.Expires.UTC().Format(time.RFC3339Nano) + "\n")
	}
	if len(l.Chunks) > 0 {
		b.WriteString("chunks = " + quoteList(l.Chunks) + "\n")
	}
	for _, p := range packs {
		b.WriteString("\n[[pack]]\n")
		b.WriteString("id = " + quote(p.ID) + "\n")
		b.WriteString("version = " + quote(p.Version) + "\n")
		b.WriteString("sha256 = " + quote(p.SHA256) + "\n")
		b.WriteString("size = " + strconv.FormatInt(p.Size, 10) + "\n")
		b.WriteString("urls = " + quoteList(p.URLs) + "\n")
		if p.Index != nil {
			b.WriteString("index = {url = " + quote(p.Index.URL) + ", sha256 = " + quote(p.Index.SHA256) + "}\n")
		}
	}
	out := []byte(b.String())
	if _, err := Decode(LockName, out, DecodeOptions{Have: HaveAll}); err != nil {
		return nil, fmt.Errorf("encode lock: %w", err)
	}
	return out, nil
}

// quoteList writes ss as a TOML array of basic strings on one line.
func quoteList(ss []string) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, s := range ss {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(quote(s))
	}
	b.WriteByte(']')
	return b.String()
}

// quote writes s as a TOML basic string.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if r < 0x20 || r == 0x7f {
				fmt.Fprintf(&b, `\u%04X`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// WriteLock writes l canonically to path, atomically, and its signature by
// key to path+".minisig" when key is not nil. Without a key a signature
// left beside path by an earlier run is removed: it would not match. It
// returns the bytes written.
func WriteLock(path string, l *Lock, key *minisign.PrivateKey) ([]byte, error) {
	data, err := Encode(l)
	if err != nil {
		return nil, err
	}
	sigPath := path + ".minisig"
	if key == nil {
		if err := os.Remove(sigPath); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("remove stale signature: %w", err)
		}
	}
	if err := atomicfile.WriteFile(path, data, 0o644); err != nil {
		return nil, err
	}
	if key != nil {
		sig := Sign(*key, data, LockName+" "+l.Fingerprint())
		if err := atomicfile.WriteFile(sigPath, sig, 0o644); err != nil {
			return nil, err
		}
	}
	return data, nil
}
