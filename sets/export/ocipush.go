package export

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"sort"
	"time"

	"aead.dev/minisign"

	"github.com/mjolnir-forge/forgesync/sets/lock"
	"github.com/mjolnir-forge/forgesync/sets/oci"
)

// PushedSet is what `forgesync export oci://…` did: the lock it pushed and
// what the registry now holds.
type PushedSet struct {
	Lock   *lock.Lock `json:"-"`
	Pushed *oci.Pushed
	// SignedBy is the key id of the signature pushed beside the lock, or
	// "".
	SignedBy string
}

// ExportOCI pushes the set of packs to an OCI registry (SPEC §10.2b): each
// kept archive as a blob titled packs/<sha256><ext> (skipped when the
// registry has it), the lock (its URLs as template gives them, so that a
// folder that `oras pull` writes is the folder Export writes) and its
// signature by key when key is not nil, one manifest, then the tag. The
// lock's serial follows the one at the tag, and with lifetime > 0 it
// expires that long after now (see [lock.Lock.Stamp]).
func ExportOCI(ctx context.Context, reg *oci.Registry, ref oci.Reference, name string, packs []Kept, template string, key *minisign.PrivateKey, now time.Time, lifetime time.Duration) (*PushedSet, error) {
	l, err := lockFor(name, packs, template)
	if err != nil {
		return nil, err
	}
	var prev *lock.Lock
	// The set at the tag, if any: a tag not there yet, or not a set, has
	// no serial to follow (and the push says what else is wrong).
	if set, err := reg.Pull(ctx, ref, "", lock.MaxLockBytes, lock.MaxSignatureBytes); err == nil {
		if l, err := lock.Decode(lock.LockName, set.Lock, lock.DecodeOptions{Have: lock.HaveAll}); err == nil {
			prev = l
		}
	}
	l.Stamp(prev, now, lifetime)
	data, err := lock.Encode(l)
	if err != nil {
		return nil, err
	}
	files := []oci.File{memFile(oci.LockTitle, oci.MediaTypeLock, data)}
	out := &PushedSet{Lock: l}
	if key != nil {
		sig := lock.Sign(*key, data, lock.LockName+" "+l.Fingerprint())
		files = append(files, memFile(oci.SignatureTitle, oci.MediaTypeSignature, sig))
		out.SignedBy = lock.KeyID(key.ID())
	}
	var archives []oci.File
	seen := map[string]bool{}
	for i, k := range packs {
		if seen[k.SHA256] {
			continue
		}
		seen[k.SHA256] = true
		path := k.Path
		archives = append(archives, oci.File{Title: oci.Title(k.SHA256, k.Ext), MediaType: oci.MediaTypeArchive, SHA256: k.SHA256, Size: l.Packs[i].Size,
			Open: func() (io.ReadCloser, error) { return os.Open(path) }})
	}
	// Archives in a stable order: the same set gives the same layers.
	sort.Slice(archives, func(a, b int) bool { return archives[a].Title < archives[b].Title })
	files = append(files, archives...)
	if out.Pushed, err = reg.Push(ctx, ref, files, oci.Annotations{Title: name, Version: l.Fingerprint(), Created: now}); err != nil {
		return nil, err
	}
	return out, nil
}

// memFile is a small file of a set held in memory.
func memFile(title, mediaType string, data []byte) oci.File {
	return oci.File{Title: title, MediaType: mediaType, SHA256: sha256Hex(data), Size: int64(len(data)),
		Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }}
}

func sha256Hex(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
