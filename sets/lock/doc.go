// Package lock owns a pack set's lock file, forgepacks.lock (SPEC §10.1):
// its strict decoding from TOML or JSON with a line for every fault, its
// canonical encoding, the fingerprint of a set or of a machine's enabled
// packs, its freshness (a serial and an expiry, SPEC §10.2c), its minisign
// signature and the key pairs that make it, the URLs it may name (with
// their passwords redacted wherever they are shown), checking a file
// against the archive a pack pins, and how a machine differs from a set.
//
// It knows nothing of HTTP, registries or the pipeline: it reads and writes
// lock text, key files and lock files, and hands its callers values. Where
// a lock comes from and how its archives arrive is package fetch's; writing
// a published folder is package export's.
//
// Caveats: a signature proves who signed a lock, not that the packs it
// names are harmless; without trusted keys a signature is only read, and
// its key id is reported unverified (a minisign signature cannot be checked
// without the public key).
package lock
