// Package spec owns the numbers of SPEC.md that packages which may not
// import each other must agree on: the extraction limits of §2, which the
// intake enforces and config lets a user lower, and the largest
// forgepack.json (§2, §3), which the intake, the store and the manifest
// decoder bound. A number that one package alone needs stays with it
// (inventory's limits of §3, the lock's of §10.1). It is a leaf.
package spec

// The extraction limits of SPEC §2: 4,096 entries, 4 GiB in all, 2 GiB
// for one entry, a ratio of at most 1:200 for an entry over 1 MiB, names
// of at most 200 bytes and 8 levels.
const (
	MaxEntries    = 4096
	MaxTotalBytes = 4 << 30
	MaxEntryBytes = 2 << 30
	MaxRatio      = 200
	MaxPathBytes  = 200
	MaxDepth      = 8
)

// MaxManifestBytes is the largest forgepack.json (SPEC §2, §3).
const MaxManifestBytes = 1 << 20
