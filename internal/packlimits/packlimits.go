// Package packlimits owns the default extraction limits of SPEC §2 as
// plain numbers: the intake enforces them and config lets a user lower
// them, neither knowing the other. It knows nothing of archives or files.
package packlimits

// The limits of SPEC §2: 4,096 entries, 4 GiB in all, 2 GiB for one entry,
// a ratio of at most 1:200 for an entry over 1 MiB, names of at most 200
// bytes and 8 levels.
const (
	MaxEntries    = 4096
	MaxTotalBytes = 4 << 30
	MaxEntryBytes = 2 << 30
	MaxRatio      = 200
	MaxPathBytes  = 200
	MaxDepth      = 8

	// MaxManifestBytes is the largest forgepack.json (SPEC §2, §3).
	MaxManifestBytes = 1 << 20
)
