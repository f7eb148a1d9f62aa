package oci

import (
	"errors"
	"fmt"
	"strings"

	"oras.land/oras-go/v2/registry"
)

// scheme is the scheme of a set in an OCI registry: oci://HOST/REPO:TAG or
// oci://HOST/REPO@sha256:….
const scheme = "oci"

// ErrReference is wrapped by every error about a reference that cannot name
// a set.
var ErrReference = errors.New("not an OCI reference")

// Reference names a set in a registry: by tag, or pinned by its manifest's
// digest.
type Reference struct {
	// Host is the registry, with its port when it has one.
	Host string
	// Repository is the repository's path in the registry.
	Repository string
	// Tag is the tag, or "" when the reference is by digest.
	Tag string
	// Digest is the manifest's digest (sha256:…), or "" when the reference
	// is by tag.
	Digest string
}

// IsReference reports whether s is meant as an OCI reference: it starts
// with "oci://" (in any case).
func IsReference(s string) bool {
	return len(s) >= len(scheme)+3 && strings.EqualFold(s[:len(scheme)+3], scheme+"://")
}

// ParseReference reads oci://HOST/REPO:TAG or oci://HOST/REPO@sha256:… with
// oras-go's reference grammar. A reference with both a tag and a digest is
// pinned by the digest. Errors say which part is wrong.
func ParseReference(s string) (Reference, error) {
	if !IsReference(s) {
		return Reference{}, fmt.Errorf("%q: %w: it must start with oci://", s, ErrReference)
	}
	rest := s[len(scheme)+3:]
	if rest == "" || strings.ContainsAny(rest, " \t\r\n") {
		return Reference{}, fmt.Errorf("%q: %w: want oci://HOST/REPOSITORY:TAG or oci://HOST/REPOSITORY@sha256:DIGEST", s, ErrReference)
	}
	if host, _, _ := strings.Cut(rest, "/"); strings.Contains(host, "@") {
		return Reference{}, fmt.Errorf("oci://…@%s: %w: credentials do not belong in a reference; use docker login or FORGESYNC_REGISTRY_USERNAME and FORGESYNC_REGISTRY_PASSWORD", hostAfterAt(host), ErrReference)
	}
	if !strings.Contains(rest, "/") {
		return Reference{}, fmt.Errorf("%q: %w: no repository after the host; want oci://HOST/REPOSITORY:TAG", s, ErrReference)
	}
	r, err := registry.ParseReference(rest)
	if err != nil {
		return Reference{}, fmt.Errorf("%q: %w: %w", s, ErrReference, err)
	}
	out := Reference{Host: r.Registry, Repository: r.Repository}
	switch {
	case r.Reference == "":
		return Reference{}, fmt.Errorf("%q: %w: name a tag (:TAG) or a digest (@sha256:…)", s, ErrReference)
	case r.ValidateReferenceAsDigest() == nil:
		d, _ := r.Digest()
		if d.Algorithm() != "sha256" {
			return Reference{}, fmt.Errorf("%q: %w: the digest's algorithm is %s; a set is pinned by sha256", s, ErrReference, d.Algorithm())
		}
		out.Digest = r.Reference
	default:
		out.Tag = r.Reference
	}
	return out, nil
}

// hostAfterAt returns what follows the last '@' of a host part that held
// user information: the host alone.
func hostAfterAt(s string) string { return s[strings.LastIndex(s, "@")+1:] }

// String returns the reference as ParseReference reads it.
func (r Reference) String() string {
	s := scheme + "://" + r.Host + "/" + r.Repository
	if r.Digest != "" {
		return s + "@" + r.Digest
	}
	return s + ":" + r.Tag
}

// Pinned returns the reference by digest d in the same repository.
func (r Reference) Pinned(d string) Reference {
	return Reference{Host: r.Host, Repository: r.Repository, Digest: d}
}

// Blob returns the reference of the blob with this SHA-256 (hex) in the
// same repository, as shown in progress and errors.
func (r Reference) Blob(sha256 string) string {
	return scheme + "://" + r.Host + "/" + r.Repository + "@sha256:" + sha256
}

// reference returns r as oras-go's reference: the tag or the digest.
func (r Reference) reference() string {
	if r.Digest != "" {
		return r.Digest
	}
	return r.Tag
}
