package setsync

import (
	"time"

	"github.com/mjolnir-forge/forgesync/api"
)

// StoredCheck is the last check of a set's source as set.json keeps it
// (see api.SetCheck for what each field says). It is the record's own
// type, so that the wire's shape can change without changing the file;
// its JSON names and order are the file's.
type StoredCheck struct {
	Time        time.Time `json:"time"`
	Source      string    `json:"source"`
	Result      string    `json:"result"`
	Fingerprint string    `json:"fingerprint,omitempty"`
	NotModified bool      `json:"not_modified,omitempty"`
	Error       string    `json:"error,omitempty"`
	// Delta and Fallbacks are the check's delta updates (api.SetCheck).
	Delta     *api.DeltaStats `json:"delta,omitempty"`
	Fallbacks []string        `json:"fallbacks,omitempty"`
}

// StoredApply is the last apply that changed the machine, as set.json
// keeps it.
type StoredApply struct {
	Time        time.Time `json:"time"`
	Fingerprint string    `json:"fingerprint"`
	Generation  int       `json:"generation,omitempty"`
}

// storedCheck is a check as the record keeps it.
func storedCheck(c api.SetCheck) *StoredCheck {
	return &StoredCheck{Time: c.Time, Source: c.Source, Result: c.Result, Fingerprint: c.Fingerprint, NotModified: c.NotModified, Error: c.Error,
		Delta: c.Delta, Fallbacks: c.Fallbacks}
}

// wireCheck is a kept check in its wire shape; nil stays nil.
func wireCheck(c *StoredCheck) *api.SetCheck {
	if c == nil {
		return nil
	}
	return &api.SetCheck{Time: c.Time, Source: c.Source, Result: c.Result, Fingerprint: c.Fingerprint, NotModified: c.NotModified, Error: c.Error,
		Delta: c.Delta, Fallbacks: c.Fallbacks}
}

// wireApply is a kept apply in its wire shape; nil stays nil.
func wireApply(a *StoredApply) *api.SetApply {
	if a == nil {
		return nil
	}
	return &api.SetApply{Time: a.Time, Fingerprint: a.Fingerprint, Generation: a.Generation}
}
