package packset

import (
	"context"
	"fmt"
	"io"
	"strings"
)

// DiffReport is a machine compared with the set of a lock fetched from its
// source, with the lock's signature checked: what `forgesync diff` prints.
type DiffReport struct {
	Source    string       `json:"source"`
	Name      string       `json:"name,omitempty"`
	Signature Verification `json:"signature"`
	Comparison
	// Pinned is how many packs the set pins.
	Pinned int `json:"-"`
}

// DiffLock fetches the lock at arg (a file, a folder, a URL or an oci://
// reference, as [LockSource] reads it) with f (nil: a Fetcher's
// defaults), checks its signature against trusted (minisign
// public keys, as [ParsePublicKeys] reads them; an unsigned or untrusted
// lock is reported, not refused), decodes it, and compares it with the
// packs installed returns. installed is called last, once the lock is
// known to be good.
func DiffLock(ctx context.Context, f *Fetcher, arg string, trusted []string, installed func(context.Context) ([]Installed, error)) (*DiffReport, error) {
	keys, err := ParsePublicKeys(trusted)
	if err != nil {
		return nil, err
	}
	src, err := LockSource(arg)
	if err != nil {
		return nil, err
	}
	if f == nil {
		f = &Fetcher{}
	}
	lf, err := f.FetchLock(ctx, src, Validators{})
	if err != nil {
		return nil, err
	}
	v, err := Verify(lf.Data, lf.Signature, keys)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", src, err)
	}
	l, err := Decode(src.String(), lf.Data, DecodeOptions{Have: HaveAll})
	if err != nil {
		return nil, err
	}
	if lf.Layers != nil {
		if err := CheckLayers(src.String(), l, lf.Layers); err != nil {
			return nil, err
		}
	}
	have, err := installed(ctx)
	if err != nil {
		return nil, err
	}
	return &DiffReport{Source: src.String(), Name: l.Name, Signature: v, Comparison: Compare(have, l.Entries()), Pinned: len(l.Packs)}, nil
}

// WriteDiff writes a report as text: one line per difference, then who
// signed the set, then whether the machine equals it.
func WriteDiff(w io.Writer, rep *DiffReport) error {
	for _, d := range rep.Differences {
		fmt.Fprintln(w, d.String())
	}
	switch v := rep.Signature; v.State {
	case Verified:
		fmt.Fprintf(w, "set %s signed by trusted key %s\n", rep.Set, v.KeyID)
	case Unverified:
		fmt.Fprintf(w, "set %s signed by key %s (not checked: no [sets] trusted_keys)\n", rep.Set, v.KeyID)
	case Invalid:
		fmt.Fprintf(w, "set %s: its signature is not valid: %s\n", rep.Set, v.Reason)
	default:
		fmt.Fprintf(w, "set %s (unsigned)\n", rep.Set)
	}
	if rep.Equal {
		_, err := fmt.Fprintf(w, "the machine equals the set (%d packs)\n", rep.Pinned)
		return err
	}
	n := len(rep.Differences)
	word := "packs"
	if n == 1 {
		word = "pack"
	}
	_, err := fmt.Fprintf(w, "the machine (%s) differs from the set in %d %s\n", rep.Machine, n, word)
	return err
}

// Written is a lock just written by `forgesync lock -o` or `export`: where,
// its fingerprint, how many packs it pins, and the id of the key that
// signed it ("": unsigned).
type Written struct {
	Fingerprint string `json:"fingerprint"`
	Lock        string `json:"lock"`
	Packs       int    `json:"packs"`
	SignedBy    string `json:"signed_by"`
	// Removed are the archives `export --prune` removed from the folder's
	// packs/: the set no longer pins them.
	Removed []string `json:"removed,omitempty"`
}

// WriteWritten writes what was written as text: the lock, and its
// signature file when it was signed.
func WriteWritten(w io.Writer, x Written) error {
	_, err := fmt.Fprintf(w, "wrote %s: %d packs, %s\n", x.Lock, x.Packs, x.Fingerprint)
	if x.SignedBy != "" && err == nil {
		_, err = fmt.Fprintf(w, "signed by key %s (%s)\n", x.SignedBy, x.Lock+".minisig")
	}
	if len(x.Removed) > 0 && err == nil {
		noun := "archives"
		if len(x.Removed) == 1 {
			noun = "archive"
		}
		_, err = fmt.Fprintf(w, "removed %d %s the set no longer pins: %s\n", len(x.Removed), noun, strings.Join(x.Removed, ", "))
	}
	return err
}
