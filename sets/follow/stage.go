package follow

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"aead.dev/minisign"

	"github.com/mjolnir-forge/forgesync/installer/store"
	"github.com/mjolnir-forge/forgesync/internal/errkind"
	"github.com/mjolnir-forge/forgesync/pipeline"
	"github.com/mjolnir-forge/forgesync/sets/fetch"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// Errors of a stage (SPEC §12).
var (
	// errStageTooLarge is wrapped when the archives a stage would fetch
	// are more bytes than [sets] max_stage_bytes; nothing is downloaded.
	errStageTooLarge = errkind.New(errkind.Refused, "stage too large")
	// errStageTrust is wrapped when a set's signer is not trusted for a
	// stage and the request did not name it; nothing is downloaded.
	errStageTrust = errkind.New(errkind.Refused, "stage refused")
)

// StageRequest is one stage (`forgesync stage`, POST /v1/set/stage): a
// lock's location, or its text with its signature, as for a [Request];
// the name of the profile it becomes (empty: the set's name, else its
// fingerprint's first digits); and Key, a minisign public key the player
// trusts for this set only: a set signed by a key outside [sets]
// trusted_keys is staged only when Key names it.
type StageRequest struct {
	Source    string
	From      fetch.Source
	Lock      []byte
	Signature []byte
	Name      string
	Key       string
}

func (r StageRequest) remote() bool { return r.Source != "" || r.From != (fetch.Source{}) }

// Staged is what a stage did: the check (source, fingerprint, delta
// figures), the profile's name, the set's pins, the signer's key id, each
// archive fetched, Bytes the bytes it fetched over the network and
// SetBytes the size of all the set's archives.
type Staged struct {
	Check      Check
	Name       string
	Pins       []lock.Entry
	SignedBy   string
	Downloaded []Download
	Bytes      int64
	SetBytes   int64
}

// Stage fetches and verifies everything the set of req needs without
// changing the installed set (SPEC §12): the lock and its signature
// checked as by SyncSet (and the signer trusted for the stage, see
// [StageRequest]), its freshness, then every archive the machine does not
// keep, fetched into the cache (or found there) and checked against its
// size and SHA-256, rebuilt from chunks where the machine keeps an earlier
// version. A set whose archives still to fetch (their whole sizes, before
// any chunk index is read) are more than Options.MaxStageBytes (when
// positive) is refused before any download, with both figures. The set
// then becomes a profile (source staged) through the writer, which checks
// each archive as a set apply does and keeps it under archives/: a switch
// to it needs no network. It runs as a sync does, one at a time, and never
// touches set.json: staging is not following.
func (s *Syncer) Stage(ctx context.Context, req StageRequest) (*Staged, error) {
	if !s.mu.TryLock() {
		return nil, fmt.Errorf("%w (try again when it ends): %w", errSyncRunning, errkind.Busy)
	}
	s.since.Store(s.opts.Now().UnixNano())
	st := &Staged{Check: Check{Time: s.opts.Now().UTC()}, Downloaded: []Download{}}
	err := s.stage(ctx, req, s.opts.MaxStageBytes, st)
	s.since.Store(0)
	s.mu.Unlock()
	if err != nil {
		st.Check.Result, st.Check.Error = CheckFailed, err.Error()
		return st, err
	}
	// Heard once another stage may start, as a sync's check is.
	if o, ok := s.obs.(interface{ Staged(Staged) }); ok {
		o.Staged(*st)
	}
	return st, nil
}

func (s *Syncer) stage(ctx context.Context, req StageRequest, maxBytes int64, st *Staged) error {
	check := &st.Check
	rec := s.view.Load().rec
	src, data, sig, _, layers, err := s.readLock(ctx, Request{Source: req.Source, From: req.From, Lock: req.Lock, Signature: req.Signature}, Record{}, check)
	if err != nil {
		return err
	}
	if st.SignedBy, err = s.stageTrust(data, sig, req.Key); err != nil {
		return fmt.Errorf("%s: %w", check.Source, err)
	}
	l, kept, err := s.decodeLock(check, src, data, layers, rec, req.remote())
	if err != nil {
		return err
	}
	st.Name, st.Pins = stageName(req.Name, l), l.Entries()
	lacking := s.lacking(l, kept)
	for _, p := range l.Packs {
		st.SetBytes += p.Size
	}
	var need int64
	for _, p := range lacking {
		if !s.cache.Has(p.SHA256, p.Size) {
			need += p.Size
		}
	}
	if maxBytes > 0 && need > maxBytes {
		return fmt.Errorf("%w: %s: the set %s needs %s of archives this machine does not have, over [sets] max_stage_bytes of %s; nothing was downloaded: raise max_stage_bytes to stage it, or stage a smaller set",
			errStageTooLarge, check.Source, check.Fingerprint, sizeText(need), sizeText(maxBytes))
	}
	byHash, verified := map[string]lock.Pack{}, map[string]bool{}
	for _, p := range l.Packs {
		byHash[p.SHA256] = p
	}
	if len(lacking) > 0 {
		results, err := s.fetch(ctx, src, l, lacking)
		for _, r := range results {
			verified[r.Pack.SHA256] = true
			if r.From != "" {
				st.Downloaded = append(st.Downloaded, Download{Pack: r.Pack.ID, URL: r.From, Bytes: r.Pack.Size, Delta: r.Delta, Fallback: r.Fallback})
				st.Bytes += fetchedBytes(r)
			}
			addDelta(check, r)
		}
		if err != nil {
			return fmt.Errorf("%w: %w", errDownload, err)
		}
	}
	// No eviction may take them before the profile keeps them.
	unpin := s.cache.Pin(slices.Collect(maps.Keys(verified))...)
	defer unpin()
	return s.record(ctx, st, s.archiveSource(byHash, verified))
}

// profileRecorder records a staged set as a profile, taking the archives
// the store does not keep from source: the pipeline's writer.
type profileRecorder interface {
	RecordProfile(ctx context.Context, spec pipeline.ProfileSpec, source pipeline.ArchiveSource) (*store.Profile, error)
}

// record makes the staged set st a profile (source staged) through the
// writer, which checks and keeps its archives.
func (s *Syncer) record(ctx context.Context, st *Staged, source pipeline.ArchiveSource) error {
	w, ok := s.w.(profileRecorder)
	if !ok {
		return fmt.Errorf("stage %s: this writer keeps no profiles: %w", st.Name, errkind.Internal)
	}
	packs := make([]store.GenerationPack, len(st.Pins))
	for i, e := range st.Pins {
		packs[i] = store.GenerationPack{ID: e.ID, Version: e.Version, SHA256: e.SHA256, Enabled: true}
	}
	pr, err := w.RecordProfile(ctx, pipeline.ProfileSpec{Name: st.Name, Source: pipeline.SourceStaged, Packs: packs}, source)
	if err != nil {
		return err
	}
	st.Name = pr.Name
	st.Check.Result = CheckEqual
	s.opts.Log.Info("pack set staged", "source", st.Check.Source, "profile", st.Name, "fingerprint", st.Check.Fingerprint,
		"fetched_bytes", st.Bytes, "downloaded", len(st.Downloaded))
	return nil
}

// lacking returns the packs of l whose archives the machine does not keep
// (usable, see keptUsable): what a stage fetches, or finds in the cache
// and checks again.
func (s *Syncer) lacking(l *lock.Lock, kept keptSet) []lock.Pack {
	var out []lock.Pack
	for _, p := range l.Packs {
		if kept[store.KeptKey(p.ID, p.Version, p.SHA256)] && s.keptUsable(p) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// fetchedBytes is what a fetch brought over the wire for one archive: a
// whole archive's size, or for one rebuilt from chunks the chunks' bytes
// on the wire.
func fetchedBytes(r fetch.Result) int64 {
	if r.Delta != nil {
		return r.Delta.WireBytes
	}
	return r.Pack.Size
}

// stageName is the name of the profile a stage makes: the one asked for
// (checked by the writer when it records the profile), else the set's name
// made a profile name (each run of characters other than letters, digits,
// '.', '_' and '-' becomes one '-', at most 64), else "set-" and the
// fingerprint's first 12 digits.
func stageName(asked string, l *lock.Lock) string {
	if n := strings.TrimSpace(asked); n != "" {
		return n
	}
	var b strings.Builder
	dash := false
	for _, c := range l.Name {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("._-", c)
		switch {
		case ok:
			b.WriteRune(c)
			dash = false
		case !dash && b.Len() > 0:
			b.WriteByte('-')
			dash = true
		}
	}
	n := strings.Trim(b.String(), "-._")
	if len(n) > 64 {
		n = strings.TrimRight(n[:64], "-._")
	}
	if n != "" {
		return n
	}
	return "set-" + strings.TrimPrefix(l.Fingerprint(), "sha256:")[:12]
}

// stageTrust decides whether a set may be staged (SPEC §12) and returns
// its signer's key id: with key named, the lock must carry a valid
// signature by that key; without, by one of [sets] trusted_keys. A set
// signed by another key is refused, saying which key and what to do; an
// unsigned set is staged only where sync --set would apply it (no
// trusted_keys), as is a malformed signature never.
func (s *Syncer) stageTrust(data, sig []byte, key string) (string, error) {
	if strings.TrimSpace(key) != "" {
		k, err := lock.ParsePublicKey(key)
		if err != nil {
			return "", fmt.Errorf("%w: the key named for this stage: %w", errStageTrust, err)
		}
		v, err := lock.Verify(data, sig, []minisign.PublicKey{k})
		if err != nil {
			return "", fmt.Errorf("%w: the stage names key %s: %w", errStageTrust, lock.KeyID(k.ID()), err)
		}
		return v.SignedBy(), nil
	}
	v, err := lock.Verify(data, sig, s.opts.TrustedKeys)
	switch {
	case errors.Is(err, lock.ErrUntrustedKey) || err == nil && v.State == lock.Unverified:
		return "", fmt.Errorf("%w: the set is signed by key %s, which is not in [sets] trusted_keys: stage it only if you trust that key, naming its public key (forgesync stage --key RW…, or \"key\" in POST /v1/set/stage), or add it to trusted_keys",
			errStageTrust, v.KeyID)
	case err != nil:
		return "", fmt.Errorf("%w: %w", errStageTrust, err)
	case v.State == lock.Invalid:
		return "", fmt.Errorf("%w: the set's signature cannot be read (%s): ask its host for the set's %s again", errStageTrust, v.Reason, lock.SignatureName)
	}
	return v.SignedBy(), nil
}

// sizeText is n bytes in words, and exactly: "4.0 GiB (4294967296
// bytes)", "512 bytes".
func sizeText(n int64) string {
	const k = 1 << 10
	switch {
	case n >= k*k*k:
		return fmt.Sprintf("%.1f GiB (%d bytes)", float64(n)/(k*k*k), n)
	case n >= k*k:
		return fmt.Sprintf("%.1f MiB (%d bytes)", float64(n)/(k*k), n)
	case n >= k:
		return fmt.Sprintf("%.1f KiB (%d bytes)", float64(n)/k, n)
	}
	return fmt.Sprintf("%d bytes", n)
}
