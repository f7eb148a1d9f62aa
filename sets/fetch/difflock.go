package fetch

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
	"github.com/mjolnir-forge/forgesync/sets/casync"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// DiffReport is a machine compared with the set of a lock fetched from its
// source, with the lock's signature checked: what `forgesync diff` prints.
type DiffReport struct {
	Source    string            `json:"source"`
	Name      string            `json:"name,omitempty"`
	Signature lock.Verification `json:"signature"`
	lock.Comparison
	// Pinned is how many packs the set pins.
	Pinned int `json:"-"`
	// Transfers are the expected delta updates, filled in by
	// [DiffReport.EstimateTransfers]; empty when none was estimated.
	Transfers []Transfer `json:"transfers,omitempty"`
	// Serial and Expires are the lock's (SPEC §10.2c): 0 and nil when it
	// has none.
	Serial  int64      `json:"serial,omitempty"`
	Expires *time.Time `json:"expires,omitempty"`
	// Warnings say what a user should know of the set: that it expires
	// soon or has expired, filled in by [DiffReport.CheckExpiry].
	Warnings []string `json:"warnings,omitempty"`

	lock *lock.Lock
	src  Source
}

// Transfer is the expected cost of bringing one pack to the set's pin by a
// delta update (SPEC §10.2a): of the archive's Size bytes in Chunks chunks,
// the Fetch bytes in FetchChunks chunks that the machine's earlier archive
// does not hold (uncompressed; the store's zstd files may be smaller).
type Transfer struct {
	ID          string `json:"id"`
	Size        int64  `json:"size"`
	Fetch       int64  `json:"fetch"`
	Chunks      int    `json:"chunks"`
	FetchChunks int    `json:"fetch_chunks"`
}

// EstimateTransfers fills in rep.Transfers for each pack of the set that
// the machine must download, whose lock names a chunk index, and whose
// installed version's archive has its index kept where seedIndex says
// (empty: none): it fetches the pack's index (bounded, checked against the
// lock) and compares the two, and never fetches a chunk or reads an
// archive, so a diff stays cheap. A pack it cannot estimate is left out;
// the first error is returned with what was estimated.
func (rep *DiffReport) EstimateTransfers(ctx context.Context, f *Fetcher, seedIndex func(sha string) string) error {
	// A set in a registry has no chunk store: its archives are blobs.
	if rep.lock == nil || seedIndex == nil || rep.src.OCI != "" {
		return nil
	}
	byID := map[string]lock.Pack{}
	for _, p := range rep.lock.Packs {
		byID[p.ID] = p
	}
	var first error
	for _, d := range rep.Differences {
		p, ok := byID[d.ID]
		if !ok || p.Index == nil || d.Have == nil || d.Have.SHA256 == p.SHA256 {
			continue
		}
		path := seedIndex(d.Have.SHA256)
		if path == "" {
			continue
		}
		_, maxBytes := casync.LimitsFor(lock.DefaultMaxArchiveBytes)
		raw, err := atomicfile.ReadFile(path, int64(maxBytes))
		if err != nil {
			continue // no kept index: chunking the archive is not a diff's work
		}
		old, err := casync.ReadIndex(bytes.NewReader(raw), casync.Limits{})
		if err != nil {
			continue
		}
		_, ix, err := f.fetchIndex(ctx, f.mirrorClient(rep.src), rep.src, p, nil, nil)
		if err != nil {
			first = cmp.Or(first, fmt.Errorf("%s: %w", p.ID, err))
			continue
		}
		if old.Min != ix.Min || old.Avg != ix.Avg || old.Max != ix.Max {
			continue // cut with other sizes: the update cuts the archive again, no estimate
		}
		have := make(map[casync.ChunkID]bool, len(old.Chunks))
		for _, c := range old.Chunks {
			have[c.ID] = true
		}
		t := Transfer{ID: p.ID, Size: p.Size, Chunks: len(ix.Chunks)}
		for _, c := range ix.Chunks {
			if !have[c.ID] {
				have[c.ID] = true // a chunk twice is fetched once
				t.Fetch += int64(c.Size)
				t.FetchChunks++
			}
		}
		rep.Transfers = append(rep.Transfers, t)
	}
	return first
}

// mib says a byte count in MiB with one decimal.
func mib(n int64) string { return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB" }

// DiffLock fetches the lock at arg (a file, a folder, a URL or an oci://
// reference, as [LockSource] reads it) with f (nil: a Fetcher's
// defaults), checks its signature against trusted (minisign
// public keys, as [lock.ParsePublicKeys] reads them; an unsigned or untrusted
// lock is reported, not refused), decodes it, and compares it with the
// packs installed returns. installed is called last, once the lock is
// known to be good.
func DiffLock(ctx context.Context, f *Fetcher, arg string, trusted []string, installed func(context.Context) ([]lock.Installed, error)) (*DiffReport, error) {
	keys, err := lock.ParsePublicKeys(trusted)
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
	shown := src.Redacted() // the source as it is shown: without its password
	v, err := lock.Verify(lf.Data, lf.Signature, keys)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", shown, err)
	}
	l, err := lock.Decode(shown, lf.Data, lock.DecodeOptions{Have: lock.HaveAll})
	if err != nil {
		return nil, err
	}
	if lf.Layers != nil {
		if err := CheckLayers(shown, l, lf.Layers); err != nil {
			return nil, err
		}
	}
	have, err := installed(ctx)
	if err != nil {
		return nil, err
	}
	rep := &DiffReport{Source: shown, Name: l.Name, Signature: v, Comparison: lock.Compare(have, l.Entries()), Pinned: len(l.Packs),
		Serial: l.Serial, lock: l, src: lf.Source}
	if !l.Expires.IsZero() {
		rep.Expires = &l.Expires
	}
	return rep, nil
}

// CheckExpiry adds to rep.Warnings that its set expires within
// ExpiryWarning of now, or has expired (SPEC §10.2c): a diff reports it,
// as it reports a signature, and refuses nothing.
func (rep *DiffReport) CheckExpiry(now time.Time) {
	if rep.Expires == nil {
		return
	}
	if note := lock.ExpiryNote(*rep.Expires, now); note != "" {
		rep.Warnings = append(rep.Warnings, note)
	}
}

// WriteDiff writes a report as text: one line per difference, then who
// signed the set, then whether the machine equals it.
func WriteDiff(w io.Writer, rep *DiffReport) error {
	for _, d := range rep.Differences {
		fmt.Fprintln(w, d.String())
	}
	for _, t := range rep.Transfers {
		fmt.Fprintf(w, "%s: ~%s of %s to fetch via chunks (%d of %d chunks; the rest from the installed archive)\n",
			t.ID, mib(t.Fetch), mib(t.Size), t.FetchChunks, t.Chunks)
	}
	for _, note := range rep.Warnings {
		fmt.Fprintf(w, "warning: %s\n", note)
	}
	switch v := rep.Signature; v.State {
	case lock.Verified:
		fmt.Fprintf(w, "set %s signed by trusted key %s\n", rep.Set, v.KeyID)
	case lock.Unverified:
		fmt.Fprintf(w, "set %s signed by key %s (not checked: no [sets] trusted_keys)\n", rep.Set, v.KeyID)
	case lock.Invalid:
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

// Bytes returns the bytes of the archives the set pins, and of those
// among them have says the machine lacks: what applying it downloads at
// most.
func (rep *DiffReport) Bytes(have func(sha string) bool) (total, lacking int64) {
	for _, p := range rep.lock.Packs {
		total += p.Size
		if !have(p.SHA256) {
			lacking += p.Size
		}
	}
	return total, lacking
}
