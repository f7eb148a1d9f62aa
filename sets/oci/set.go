package oci

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"time"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"golang.org/x/sync/errgroup"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/registry/remote"
)

// The media types of a set in a registry.
const (
	// ArtifactType is the artifactType of a set's manifest.
	ArtifactType = "application/vnd.mjolnir.forgeset.v1"
	// MediaTypeLock is the media type of the lock's layer.
	MediaTypeLock = "application/vnd.mjolnir.forgeset.lock.v1+toml"
	// MediaTypeSignature is the media type of the lock signature's layer.
	MediaTypeSignature = "application/vnd.mjolnir.forgeset.lock.minisig.v1"
	// MediaTypeArchive is the media type of a pack archive's layer; its
	// title says its extension.
	MediaTypeArchive = "application/vnd.mjolnir.forgepack.archive.v1"
)

// The titles (org.opencontainers.image.title) of the lock and its
// signature: the file names they have beside each other in a folder, so
// that `oras pull` of a set writes the folder `forgesync export DIR` writes.
const (
	LockTitle      = "forgepacks.lock"
	SignatureTitle = "forgepacks.lock.minisig"
)

// MaxManifestBytes bounds a set's manifest: 1,024 packs' layers fit many
// times over.
const MaxManifestBytes = 4 << 20

// pushConcurrency is how many blobs are checked and pushed at once.
const pushConcurrency = 4

// errNotASet is wrapped when a manifest is not a set's: another
// artifactType, an index, a lock missing or too large.
var errNotASet = errors.New("not a pack set")

// File is one blob of a set to push.
type File struct {
	// Title is the file's name in the set (forgepacks.lock,
	// packs/<sha256>.zip): the org.opencontainers.image.title annotation.
	Title     string
	MediaType string
	// SHA256 (hex) and Size are the blob's: its digest is sha256:SHA256.
	SHA256 string
	Size   int64
	// Open returns the blob's bytes.
	Open func() (io.ReadCloser, error)
}

// Annotations are the manifest's standard annotations.
type Annotations struct {
	Title   string    // org.opencontainers.image.title: the set's name
	Version string    // org.opencontainers.image.version: its fingerprint
	Created time.Time // org.opencontainers.image.created
}

// Pushed says what Push did.
type Pushed struct {
	// Reference pins the set: the repository by the manifest's digest.
	Reference Reference
	// Tagged is the reference pushed to.
	Tagged Reference
	// Uploaded and UploadedBytes count the blobs sent; Skipped those the
	// registry had already.
	Uploaded      int
	UploadedBytes int64
	Skipped       int
}

// Push pushes files to ref's repository, each unless the registry has it
// (asked first, so an unchanged set uploads no blob byte), then one image
// manifest (image-spec v1.1: artifactType ArtifactType, the empty config,
// the files as layers in order) and then, for a reference by tag, the tag.
// A reference by digest is refused: a push names the tag it moves.
func (r *Registry) Push(ctx context.Context, ref Reference, files []File, ann Annotations) (*Pushed, error) {
	if ref.Tag == "" {
		return nil, fmt.Errorf("push %s: %w: name the tag to push to (oci://HOST/REPOSITORY:TAG); a digest names what a push makes", ref, ErrReference)
	}
	repo := r.repository(ref)
	layers := make([]ocispec.Descriptor, len(files))
	var uploaded, skipped atomic.Int64
	var bytesUp atomic.Int64
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(pushConcurrency)
	for i, f := range files {
		desc := ocispec.Descriptor{MediaType: f.MediaType, Digest: digest.NewDigestFromEncoded(digest.SHA256, f.SHA256), Size: f.Size,
			Annotations: map[string]string{ocispec.AnnotationTitle: f.Title}}
		if err := desc.Digest.Validate(); err != nil {
			return nil, fmt.Errorf("push %s: %s: %w", ref, f.Title, err)
		}
		layers[i] = desc
		g.Go(func() error {
			ok, err := repo.Blobs().Exists(gctx, desc)
			if err != nil {
				return explain(fmt.Sprintf("push %s: ask for %s", ref, f.Title), err)
			}
			if ok {
				skipped.Add(1)
				return nil
			}
			rc, err := f.Open()
			if err != nil {
				return fmt.Errorf("push %s: %w", ref, err)
			}
			defer rc.Close()
			if err := repo.Blobs().Push(gctx, desc, rc); err != nil {
				return explain(fmt.Sprintf("push %s: upload %s", ref, f.Title), err)
			}
			uploaded.Add(1)
			bytesUp.Add(f.Size)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	if old, ok := sameSet(ctx, repo, ref, layers, ann); ok {
		// The tag names this set already: its manifest (and its created
		// time) stays, so that the digest that pins a set never changes
		// for a push that changes nothing.
		return &Pushed{Reference: ref.Pinned(old), Tagged: ref, Uploaded: int(uploaded.Load()),
			UploadedBytes: bytesUp.Load(), Skipped: int(skipped.Load())}, nil
	}
	annotations := map[string]string{ocispec.AnnotationCreated: ann.Created.UTC().Format(time.RFC3339)}
	if ann.Title != "" {
		annotations[ocispec.AnnotationTitle] = ann.Title
	}
	if ann.Version != "" {
		annotations[ocispec.AnnotationVersion] = ann.Version
	}
	desc, err := oras.PackManifest(ctx, repo, oras.PackManifestVersion1_1, ArtifactType,
		oras.PackManifestOptions{Layers: layers, ManifestAnnotations: annotations})
	if err != nil {
		return nil, explain(fmt.Sprintf("push %s: the manifest", ref), err)
	}
	if err := repo.Tag(ctx, desc, ref.Tag); err != nil {
		return nil, explain(fmt.Sprintf("push %s: tag %s", ref, desc.Digest), err)
	}
	return &Pushed{Reference: ref.Pinned(desc.Digest.String()), Tagged: ref, Uploaded: int(uploaded.Load()),
		UploadedBytes: bytesUp.Load(), Skipped: int(skipped.Load())}, nil
}

// sameSet returns the digest of the manifest ref's tag names when it is a
// set of exactly these layers (digests, sizes, media types and titles) and
// annotations but for its created time; any failure to tell is "no".
func sameSet(ctx context.Context, repo *remote.Repository, ref Reference, layers []ocispec.Descriptor, ann Annotations) (string, bool) {
	desc, rc, err := repo.FetchReference(ctx, ref.Tag)
	if err != nil {
		return "", false
	}
	defer rc.Close()
	if desc.MediaType != ocispec.MediaTypeImageManifest || desc.Size > MaxManifestBytes {
		return "", false
	}
	data, err := content.ReadAll(rc, desc)
	if err != nil {
		return "", false
	}
	var m ocispec.Manifest
	if json.Unmarshal(data, &m) != nil || m.ArtifactType != ArtifactType || len(m.Layers) != len(layers) ||
		m.Annotations[ocispec.AnnotationTitle] != ann.Title || m.Annotations[ocispec.AnnotationVersion] != ann.Version {
		return "", false
	}
	for i, l := range m.Layers {
		w := layers[i]
		if l.Digest != w.Digest || l.Size != w.Size || l.MediaType != w.MediaType || l.Annotations[ocispec.AnnotationTitle] != w.Annotations[ocispec.AnnotationTitle] {
			return "", false
		}
	}
	return desc.Digest.String(), true
}

// Set is a set's manifest as Pull read it.
type Set struct {
	// Reference pins the set read: the repository by the manifest's digest.
	Reference Reference
	// Digest is the manifest's digest.
	Digest string
	// NotModified is set when the manifest's digest is the one given as
	// prev: nothing else was read, and Lock, Signature and Layers are
	// empty.
	NotModified bool
	// Lock is the lock's bytes; Signature the .minisig's, nil when the
	// set has none.
	Lock, Signature []byte
	// Layers are the sizes of the set's sha256 blobs, by hex digest.
	Layers map[string]int64
}

// Pull reads the set at ref. When the manifest's digest is prev (the one
// read last time), it says so and reads nothing more: one HEAD request for
// a tag (none for a reference by the same digest). Otherwise it reads the
// manifest (checked against its digest and bounded), refuses one of
// another artifactType, naming it, and reads the lock (at most maxLock
// bytes) and its signature (at most maxSig bytes), each checked against
// its digest.
func (r *Registry) Pull(ctx context.Context, ref Reference, prev string, maxLock, maxSig int64) (*Set, error) {
	if ref.Digest != "" && ref.Digest == prev {
		return &Set{Reference: ref, Digest: prev, NotModified: true}, nil
	}
	repo := r.repository(ref)
	var desc ocispec.Descriptor
	var rc io.ReadCloser
	var err error
	if prev != "" {
		desc, err = repo.Resolve(ctx, ref.reference())
		if err != nil {
			return nil, explain("resolve "+ref.String(), err)
		}
		if desc.Digest.String() == prev {
			return &Set{Reference: ref.Pinned(prev), Digest: prev, NotModified: true}, nil
		}
		// The manifest by the digest just resolved: a tag moved meanwhile
		// does not mix two sets.
		rc, err = repo.Manifests().Fetch(ctx, desc)
	} else {
		desc, rc, err = repo.Manifests().FetchReference(ctx, ref.reference())
	}
	if err != nil {
		return nil, explain("fetch the manifest of "+ref.String(), err)
	}
	defer rc.Close()
	pinned := ref.Pinned(desc.Digest.String())
	if desc.MediaType != ocispec.MediaTypeImageManifest {
		return nil, fmt.Errorf("%s: %w: the registry serves a %s, not an OCI image manifest (%s)", pinned, errNotASet, desc.MediaType, ocispec.MediaTypeImageManifest)
	}
	if desc.Size > MaxManifestBytes {
		return nil, fmt.Errorf("%s: %w: its manifest has %d bytes, over the limit of %d", pinned, errNotASet, desc.Size, MaxManifestBytes)
	}
	data, err := content.ReadAll(rc, desc) // checks the size and the digest
	if err != nil {
		return nil, fmt.Errorf("%s: read the manifest: %w", pinned, err)
	}
	var m ocispec.Manifest
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(&m); err != nil {
		return nil, fmt.Errorf("%s: %w: its manifest does not decode: %w", pinned, errNotASet, err)
	}
	at := m.ArtifactType
	if at == "" {
		at = m.Config.MediaType // an artifact of image-spec v1.0
	}
	if at != ArtifactType {
		return nil, fmt.Errorf("%s: %w: the manifest's artifactType is %q, not %q (push a set with forgesync export, or oras push --artifact-type %s)",
			pinned, errNotASet, at, ArtifactType, ArtifactType)
	}
	set := &Set{Reference: pinned, Digest: desc.Digest.String(), Layers: map[string]int64{}}
	var lockDesc, sigDesc *ocispec.Descriptor
	for i, l := range m.Layers {
		if l.Digest.Algorithm() == digest.SHA256 && l.Digest.Validate() == nil {
			set.Layers[l.Digest.Encoded()] = l.Size
		}
		switch l.Annotations[ocispec.AnnotationTitle] {
		case LockTitle:
			lockDesc = &m.Layers[i]
		case SignatureTitle:
			sigDesc = &m.Layers[i]
		}
	}
	if lockDesc == nil {
		return nil, fmt.Errorf("%s: %w: no layer is titled %s", pinned, errNotASet, LockTitle)
	}
	if set.Lock, err = fetchSmall(ctx, repo, *lockDesc, maxLock); err != nil {
		return nil, fmt.Errorf("%s: the lock: %w", pinned, err)
	}
	if sigDesc != nil {
		if set.Signature, err = fetchSmall(ctx, repo, *sigDesc, maxSig); err != nil {
			return nil, fmt.Errorf("%s: the lock's signature: %w", pinned, err)
		}
	}
	return set, nil
}

// fetchSmall reads a blob of at most limit bytes, checked against its
// descriptor's size and digest.
func fetchSmall(ctx context.Context, f content.Fetcher, desc ocispec.Descriptor, limit int64) ([]byte, error) {
	if desc.Size > limit || desc.Size < 0 {
		return nil, fmt.Errorf("%w: its layer has %d bytes, over the limit of %d", errNotASet, desc.Size, limit)
	}
	data, err := content.FetchAll(ctx, f, desc)
	if err != nil {
		return nil, explain("fetch "+desc.Digest.String(), err)
	}
	return data, nil
}

// OpenBlob returns the bytes of the blob with this SHA-256 (hex) and size
// in ref's repository from offset on, and the offset they start at: 0 when
// the registry cannot serve a range (the caller starts again). The caller
// checks the bytes; oras-go checks the size the registry announces and its
// Docker-Content-Digest header against the digest asked for.
func (r *Registry) OpenBlob(ctx context.Context, ref Reference, sha256 string, size, offset int64) (io.ReadCloser, int64, error) {
	desc := ocispec.Descriptor{MediaType: "application/octet-stream", Digest: digest.NewDigestFromEncoded(digest.SHA256, sha256), Size: size}
	if err := desc.Digest.Validate(); err != nil {
		return nil, 0, fmt.Errorf("%s: %w", ref.Blob(sha256), err)
	}
	rc, err := r.repository(ref).Blobs().Fetch(ctx, desc)
	if err != nil {
		return nil, 0, explain("fetch "+ref.Blob(sha256), err)
	}
	if offset > 0 {
		if s, ok := rc.(io.Seeker); ok {
			if _, err := s.Seek(offset, io.SeekStart); err == nil {
				return rc, offset, nil
			}
		}
	}
	return rc, 0, nil
}

// Title returns the title of an archive's layer: its path in an exported
// folder, packs/<sha256><ext>.
func Title(sha256, ext string) string { return "packs/" + sha256 + strings.ToLower(ext) }
