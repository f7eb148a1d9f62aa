// Package fetch owns bringing a pack set to a machine (SPEC §10.2): where a
// lock lives (a path, a file: or http(s) URL, an oci:// reference) and
// resolving the URLs it names, reading the lock and its signature (a
// conditional request over HTTP, or a pull from an OCI registry), downloading
// archives from their mirrors (retries with back-off and jitter, Range
// resume, a minimum rate and deadlines, size and SHA-256 checked before a
// file lands), the dial guard that keeps a public lock's mirrors off private
// addresses, delta updates (SPEC §10.2a: an archive rebuilt from an earlier
// one plus the missing chunks from the lock's chunk store, checked as any
// download is; the formats are package casync's), the bounded cache of
// downloaded archives, and the diff of a machine against a set read from its
// source.
//
// It knows nothing of the pipeline: it hands its callers lock values and
// verified archives in a folder. Which packs a machine has, and applying a
// set as one transaction, are the callers' business.
//
// Caveats: a lock fetched over http(s) may not name local files, and one
// served from a public address may not name mirrors on loopback, private
// or link-local addresses (checked when dialled) unless the caller allows
// them. A mirror below a minimum rate, or past its attempt's deadline,
// gives way to the next. URLs are shown with their password redacted
// (lock.Redact).
package fetch
