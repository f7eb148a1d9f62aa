// Package lan owns the LAN peer cache (SPEC §13): serving, read-only, the
// archives a machine keeps or caches by their SHA-256 and the chunks it
// fetched in casync's store layout, to other machines on the LAN; the
// upload's rate bound and connection bound; and the peers a machine asks
// first: those its configuration names and those found by mDNS/DNS-SD
// (_forgesync._tcp), kept in memory until the daemon stops, and dropped,
// by name in the log, when one errs, stalls or serves wrong bytes.
//
// A peer needs no trust: every archive is named by its SHA-256 in a signed
// lock and every chunk by its digest, and the fetcher (package fetch) stores
// nothing a peer sends before its digest matches. The server answers only
// GET (and HEAD) of /lan/v1/archives/<sha256> and
// /lan/v1/chunks/<xxxx>/<id>.cacnk; a name is parsed as 64 lowercase hex
// digits and the file's path is built from the parsed digest, never from
// the request. Anything else is 404, and opens nothing.
package lan
