// Package export owns publishing a pack set (SPEC §10.2, §10.2a, §10.2b):
// the lock of the archives a machine keeps, each with the URL a template
// gives it; a folder any static web server serves as it is (packs/, a chunk
// index beside each archive, one shared chunk store, the lock written last
// and its signature), where what is in place is checked rather than trusted
// by its name and written again when damaged; pruning what the set no
// longer pins; and pushing the set to an OCI registry.
//
// It knows nothing of how a set is fetched or applied: it reads kept
// archives and writes a folder or a registry.
package export
