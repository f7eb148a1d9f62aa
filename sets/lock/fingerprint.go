package lock

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"slices"
)

// Entry is what identifies a pack in a set: its id, version and the SHA-256
// of its archive. Names, sizes and URLs are not part of it, so mirrors never
// change a set's identity.
type Entry struct {
	ID      string `json:"id"`
	Version string `json:"version"`
	SHA256  string `json:"sha256"`
}

// Fingerprint returns "sha256:" and the hex SHA-256 of the canonical text of
// entries: one line per entry, sorted by id in byte order, of id, a space,
// version, a space, sha256 and LF (SPEC §10.1). A machine's fingerprint is
// the same function over its enabled packs. The order of entries does not
// matter; entries is not modified.
func Fingerprint(entries []Entry) string {
	sorted := slices.Clone(entries)
	slices.SortFunc(sorted, func(a, b Entry) int {
		return cmp.Or(cmp.Compare(a.ID, b.ID), cmp.Compare(a.Version, b.Version), cmp.Compare(a.SHA256, b.SHA256))
	})
	h := sha256.New()
	buf := make([]byte, 0, 160)
	for _, e := range sorted {
		buf = append(buf[:0], e.ID...)
		buf = append(buf, ' ')
		buf = append(buf, e.Version...)
		buf = append(buf, ' ')
		buf = append(buf, e.SHA256...)
		buf = append(buf, '\n')
		h.Write(buf)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// MachineFingerprint returns the fingerprint of a machine's enabled packs.
func MachineFingerprint(installed []Installed) string {
	var es []Entry
	for _, p := range installed {
		if p.Enabled {
			es = append(es, p.Entry())
		}
	}
	return Fingerprint(es)
}
