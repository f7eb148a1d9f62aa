package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"syscall"

	"github.com/mjolnir-forge/forgesync/sets/lock"
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
	limit := 2 * attemptDeadline(oci.MaxManifestBytes+lock.MaxLockBytes+lock.MaxSignatureBytes, f.MinRate)
	ctx, cancel := context.WithTimeoutCause(ctx, limit, fmt.Errorf("%w: the manifest, lock and signature of %s took over %v", errTooSlow, ref, limit))
	defer cancel()
	// oras-go's retry transport retries what a registry answers (5xx,
	// 429) and a refused connection; a transfer cut mid-body is retried
	// here, with the archive fetcher's back-off and tries.
	var set *oci.Set
	tries, err := f.retry(ctx, cutTransfer, func() (err error) {
		set, err = f.registry().Pull(ctx, ref, prev.Digest, lock.MaxLockBytes, lock.MaxSignatureBytes)
		return err
	})
	if err != nil && tries > 1 {
		err = fmt.Errorf("%w (%d tries)", err, tries)
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
func CheckLayers(source string, l *lock.Lock, layers map[string]int64) error {
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

// cutTransfer reports whether err is a transfer that ended before its
// bytes did (the connection cut or reset mid-body): worth another try,
// unlike an answer the registry gave or bytes of another digest.
func cutTransfer(err error) bool {
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}
