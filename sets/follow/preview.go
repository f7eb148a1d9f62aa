package follow

import (
	"context"
	"fmt"
	"slices"

	"github.com/mjolnir-forge/forgesync/sets/fetch"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// Preview is a set a player is asked to join (SPEC §14): how it differs
// from the machine, what applying it downloads, and who signed it.
type Preview struct {
	*fetch.DiffReport
	// LinkKey is the key id of the key the link names; "" when none.
	LinkKey string
	// Trusted reports whether the lock's verified signer is one of
	// [sets] trusted_keys.
	Trusted bool
	// TotalBytes and DownloadBytes are the set's archives, and those the
	// machine lacks.
	TotalBytes, DownloadBytes int64
}

// Preview fetches the lock at source and its signature, nothing else, and
// compares it with installed; it applies nothing. The signature is checked
// against the trusted keys and linkKey (the key a link names; "" when
// none), so a lock signed by the link's key is verified even when that key
// is not trusted, which the Preview then says; a lock that no named key
// signed is refused when a key is named.
func (s *Syncer) Preview(ctx context.Context, source, linkKey string, installed []lock.Installed) (*Preview, error) {
	keys := make([]string, 0, len(s.opts.TrustedKeys)+1)
	trusted := make([]string, 0, len(s.opts.TrustedKeys))
	for _, k := range s.opts.TrustedKeys {
		text, err := k.MarshalText()
		if err != nil {
			return nil, fmt.Errorf("follow: trusted key %016X: %w", k.ID(), err)
		}
		keys = append(keys, string(text))
		trusted = append(trusted, lock.KeyID(k.ID()))
	}
	p := &Preview{}
	if linkKey != "" {
		k, err := lock.ParsePublicKey(linkKey)
		if err != nil {
			return nil, fmt.Errorf("follow: the link's key: %w", err)
		}
		keys, p.LinkKey = append(keys, linkKey), lock.KeyID(k.ID())
	}
	f := s.opts.Fetcher
	rep, err := fetch.DiffLock(ctx, &f, source, keys, func(context.Context) ([]lock.Installed, error) { return installed, nil })
	if err != nil {
		return nil, err
	}
	kept, err := s.keptKeys()
	if err != nil {
		return nil, err
	}
	p.DiffReport = rep
	p.Trusted = rep.Signature.SignedBy() != "" && slices.Contains(trusted, rep.Signature.SignedBy())
	p.TotalBytes, p.DownloadBytes = rep.Bytes(func(sha string) bool { return kept.hasSHA(sha) || s.cache.Has(sha, 0) })
	return p, nil
}
