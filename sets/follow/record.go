package follow

import (
	"time"

	"github.com/mjolnir-forge/forgesync/sets/fetch"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// StoredCheck is the last check of a set's source as set.json keeps it
// (see [Check] for what each field says). It is the record's own type, so
// that neither the check nor the wire can change the file; its JSON names
// and order are the file's.
type StoredCheck struct {
	Time        time.Time   `json:"time"`
	Source      string      `json:"source"`
	Result      CheckResult `json:"result"`
	Fingerprint string      `json:"fingerprint,omitempty"`
	NotModified bool        `json:"not_modified,omitempty"`
	Error       string      `json:"error,omitempty"`
	// Delta and Fallbacks are the check's delta updates.
	Delta     *StoredDelta `json:"delta,omitempty"`
	Fallbacks []string     `json:"fallbacks,omitempty"`
	// PeerBytes and MirrorBytes say where the check's downloads came
	// from (SPEC §13).
	PeerBytes   int64 `json:"peer_bytes,omitempty"`
	MirrorBytes int64 `json:"mirror_bytes,omitempty"`
}

// StoredDelta is the sum of a check's delta updates as set.json keeps it
// (see fetch.DeltaStats for what each field says).
type StoredDelta struct {
	SeedBytes     int64 `json:"seed_bytes"`
	FetchedBytes  int64 `json:"fetched_bytes"`
	SeedChunks    int   `json:"seed_chunks"`
	FetchedChunks int   `json:"fetched_chunks"`
	Requests      int64 `json:"requests"`
	WireBytes     int64 `json:"wire_bytes"`
	PeerBytes     int64 `json:"peer_bytes,omitempty"`
}

// StoredApply is the last apply that changed the machine, as set.json
// keeps it and status shows it.
type StoredApply struct {
	Time        time.Time `json:"time"`
	Fingerprint string    `json:"fingerprint"`
	Generation  int       `json:"generation,omitempty"`
}

// storedCheck is a check as the record keeps it.
func storedCheck(c Check) *StoredCheck {
	out := &StoredCheck{Time: c.Time, Source: c.Source, Result: c.Result, Fingerprint: c.Fingerprint, NotModified: c.NotModified,
		Error: c.Error, Fallbacks: c.Fallbacks, PeerBytes: c.PeerBytes, MirrorBytes: c.MirrorBytes}
	if d := c.Delta; d != nil {
		out.Delta = &StoredDelta{SeedBytes: d.SeedBytes, FetchedBytes: d.FetchedBytes, SeedChunks: d.SeedChunks, FetchedChunks: d.FetchedChunks,
			Requests: d.Requests, WireBytes: d.WireBytes, PeerBytes: d.PeerBytes}
	}
	return out
}

// check is a kept check as the syncer reports it; nil stays nil.
func (c *StoredCheck) check() *Check {
	if c == nil {
		return nil
	}
	out := &Check{Time: c.Time, Source: c.Source, Result: c.Result, Fingerprint: c.Fingerprint, NotModified: c.NotModified,
		Error: c.Error, Fallbacks: c.Fallbacks, PeerBytes: c.PeerBytes, MirrorBytes: c.MirrorBytes}
	if d := c.Delta; d != nil {
		out.Delta = &fetch.DeltaStats{SeedBytes: d.SeedBytes, FetchedBytes: d.FetchedBytes, SeedChunks: d.SeedChunks, FetchedChunks: d.FetchedChunks,
			Requests: d.Requests, WireBytes: d.WireBytes, PeerBytes: d.PeerBytes}
	}
	return out
}

// storedLock returns what the record keeps of a lock read from its source:
// its text, signature and validators as they came, or, when a URL it names
// holds a password, the text with each password replaced
// (lock.RedactLock), no signature (it signed the other text) and no
// validators, so that the next check reads the lock whole rather than be
// answered 304 and take this copy for it. A lock that cannot be redacted
// is not kept. held reports whether the lock held a password.
func storedLock(name string, data, sig []byte, val fetch.Validators) (text, signature string, v fetch.Validators, held bool) {
	red, held, err := lock.RedactLock(name, data)
	switch {
	case err != nil:
		return "", "", fetch.Validators{}, true
	case held:
		return string(red), "", fetch.Validators{}, true
	}
	return string(data), string(sig), val, false
}

// scrub removes from a record that an older version wrote the passwords
// of the URLs it holds: in its source, its lock (see storedLock), and the
// errors and fallbacks of its last check. It reports whether it removed
// any.
func (rec *Record) scrub() bool {
	held := false
	redact := func(s *string, r func(string) string) {
		if v := r(*s); v != *s {
			*s, held = v, true
		}
	}
	redact(&rec.Source, lock.Redact)
	if rec.Lock != "" {
		var lockHeld bool
		rec.Lock, rec.Signature, rec.Validators, lockHeld = storedLock(rec.Source, []byte(rec.Lock), []byte(rec.Signature), rec.Validators)
		held = held || lockHeld
	}
	if c := rec.LastCheck; c != nil {
		redact(&c.Source, lock.RedactText)
		redact(&c.Error, lock.RedactText)
		for i := range c.Fallbacks {
			redact(&c.Fallbacks[i], lock.RedactText)
		}
	}
	return held
}
