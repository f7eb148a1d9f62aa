package packset

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"sync"
	"syscall"
	"time"

	"aead.dev/minisign"
	"github.com/cenkalti/backoff/v5"

	"github.com/mjolnir-forge/forgesync/sets/oci"
)

// defaultRegistry is the registry client of a Fetcher without one: the
// Docker config of the user forgesync runs as, loopback hosts over plain
// HTTP, and no connection to a non-public address for a registry that is
// not on loopback (GuardClient).
var defaultRegistry = sync.OnceValue(func() *oci.Registry { return oci.New(oci.Options{Guard: GuardClient}) })

func (f *Fetcher) registry() *oci.Registry {
	if f.Registry != nil {
		return f.Registry
	}
	return defaultRegistry()
}

// fetchOCILock reads the lock of a set in an OCI registry: the tag
// resolved (one request when its digest is prev's: NotModified), the
// manifest checked, the lock and its signature read, each bounded as a
// lock over http(s) is.
func (f *Fetcher) fetchOCILock(ctx context.Context, src Source, prev Validators) (*LockFile, error) {
	ref, err := oci.ParseReference(src.OCI)
	if err != nil {
		return nil, err
	}
	// The manifest, the lock and its signature are small: a registry that
	// sends them slower than the minimum rate (with retries) is given up.
	limit := 2 * AttemptDeadline(oci.MaxManifestBytes+MaxLockBytes+maxSignatureBytes, f.MinRate)
	ctx, cancel := context.WithTimeoutCause(ctx, limit, fmt.Errorf("%w: the manifest, lock and signature of %s took over %v", ErrTooSlow, ref, limit))
	defer cancel()
	// oras-go's retry transport retries what a registry answers (5xx,
	// 429) and a refused connection; a transfer cut mid-body is retried
	// here, with the archive fetcher's back-off and tries.
	bo := backoff.NewExponentialBackOff()
	bo.InitialInterval = pos(f.InitialDelay, DefaultInitialDelay)
	bo.MaxInterval = pos(f.MaxDelay, DefaultMaxDelay)
	bo.RandomizationFactor = 0.5
	bo.Multiplier = 2
	var set *oci.Set
	for tries := 1; ; tries++ {
		set, err = f.registry().Pull(ctx, ref, prev.Digest, MaxLockBytes, maxSignatureBytes)
		if err == nil || ctx.Err() != nil || !cutTransfer(err) || tries >= pos(f.Tries, DefaultTries) {
			if err != nil && tries > 1 {
				err = fmt.Errorf("%w (%d tries)", err, tries)
			}
			break
		}
		if serr := f.sleep(ctx, bo.NextBackOff()); serr != nil {
			err = serr
			break
		}
	}
	if err != nil && ctx.Err() != nil {
		err = fmt.Errorf("%w (%w)", context.Cause(ctx), err)
	}
	if err != nil {
		return nil, fmt.Errorf("fetch lock: %w", err)
	}
	out := &LockFile{Source: src, NotModified: set.NotModified, Validators: Validators{Digest: set.Digest}}
	if !set.NotModified {
		out.Data, out.Signature, out.Layers = set.Lock, set.Signature, set.Layers
	}
	return out, nil
}

// CheckLayers checks a set read from an OCI registry against its
// manifest's layers: every pack's archive must be a blob of the manifest
// whose digest is the pack's SHA-256 and whose size is the pack's size, so
// that the manifest and the lock describe the same archives.
func CheckLayers(source string, l *Lock, layers map[string]int64) error {
	for _, p := range l.Packs {
		size, ok := layers[p.SHA256]
		if !ok {
			return fmt.Errorf("%s: %s %s: the lock pins sha256 %s, and the manifest has no layer of that digest: the manifest and its lock disagree", source, p.ID, p.Version, p.SHA256)
		}
		if size != p.Size {
			return fmt.Errorf("%s: %s %s: the manifest's layer sha256:%s has %d bytes, the lock pins %d: the manifest and its lock disagree", source, p.ID, p.Version, p.SHA256, size, p.Size)
		}
	}
	return nil
}

// PushedSet is what `forgesync export oci://…` did: the lock it pushed and
// what the registry now holds.
type PushedSet struct {
	Lock   *Lock `json:"-"`
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
// expires that long after now (see [Lock.Stamp]).
func ExportOCI(ctx context.Context, reg *oci.Registry, ref oci.Reference, name string, packs []Kept, template string, key *minisign.PrivateKey, now time.Time, lifetime time.Duration) (*PushedSet, error) {
	l, err := LockFor(name, packs, template)
	if err != nil {
		return nil, err
	}
	var prev *Lock
	// The set at the tag, if any: a tag not there yet, or not a set, has
	// no serial to follow (and the push says what else is wrong).
	if set, err := reg.Pull(ctx, ref, "", MaxLockBytes, maxSignatureBytes); err == nil {
		prev = previous(set.Lock)
	}
	l.Stamp(prev, now, lifetime)
	data, err := Encode(l)
	if err != nil {
		return nil, err
	}
	files := []oci.File{memFile(oci.LockTitle, oci.MediaTypeLock, data)}
	out := &PushedSet{Lock: l}
	if key != nil {
		sig := Sign(*key, data, LockName+" "+l.Fingerprint())
		files = append(files, memFile(oci.SignatureTitle, oci.MediaTypeSignature, sig))
		out.SignedBy = KeyID(key.ID())
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

// cutTransfer reports whether err is a transfer that ended before its
// bytes did (the connection cut or reset mid-body): worth another try,
// unlike an answer the registry gave or bytes of another digest.
func cutTransfer(err error) bool {
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}
