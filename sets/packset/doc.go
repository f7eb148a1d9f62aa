// Package packset owns pack sets (SPEC §10): the lock file forgepacks.lock
// (strict decoding with a line for every error, canonical encoding), the
// fingerprint of a set or of a machine's enabled packs, the differences
// between a machine and a set, minisign signatures of a lock, resolving the
// mirrors a lock names, fetching archives from them (retries with back-off
// and jitter, Range resume, size and SHA-256 checked before a file enters
// the destination), the conditional fetch of a lock, the bounded cache
// of downloaded archives, and delta updates (SPEC §10.2a): the export of
// each archive's chunk index and one shared chunk store, the HTTP chunk
// store, and rebuilding an archive from an earlier one plus chunks before
// it is checked as any download is (the formats are package casync's).
//
// It knows nothing of the pipeline: it reads and writes lock files, bytes
// and a cache folder, and hands its callers values. Which packs a machine
// has, and applying a set as one transaction, are the callers' business.
//
// Caveats: a signature proves who signed a lock, not that the packs it
// names are harmless; without trusted keys a signature is only read, and
// its key id is reported unverified (a minisign signature cannot be checked
// without the public key). A lock fetched over http(s) may not name local
// files, and one served from a public address may not name mirrors on
// loopback, private or link-local addresses (checked when dialled) unless
// the caller allows them. A mirror below a minimum rate, or past its
// attempt's deadline, gives way to the next. URLs are shown with their
// password redacted ([Redact]).
package packset
