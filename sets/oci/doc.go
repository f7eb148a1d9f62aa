// Package oci owns the mapping of a pack set onto an OCI artifact (SPEC
// §10.2b): oci:// references, pushing a set (each archive a blob whose
// digest is the SHA-256 its lock pins, the lock and its signature, one image
// manifest with its own artifactType, then the tag), resolving a tag to the
// manifest that pins a set, and reading the lock, its signature and blobs
// back. The registry protocol, authentication (anonymous tokens, the Docker
// config and its credential helpers, FORGESYNC_REGISTRY_* variables) and
// retries are oras-go's: this package knows no HTTP of its own beyond
// configuring oras-go's clients.
//
// Caveats: it checks what the registry says against what it asked for
// (manifest digests, blob sizes and digests), but what a set's lock pins is
// the caller's to check against the manifest's layers (fetch.CheckLayers).
// Credentials never enter an error or a string it returns. Plain HTTP is
// used only for loopback hosts and hosts the caller lists as insecure.
package oci
