package intake

import (
	"errors"
	"fmt"

	"github.com/mjolnir-forge/forgesync/internal/spec"
)

// Limits bounds what one pack archive or pack folder may hold (SPEC §2).
// The defaults come from [DefaultLimits]; configuration may only lower them,
// which [Limits.Validate] checks.
//
// The compressed size of an entry for MaxRatio is the size a zip's
// directory gives (the zip reader never reads past it); for compressed
// streams (tar.gz, tar.xz, tar.zst, 7z, rar) it is the number of archive
// bytes the decoder consumed while the entry streamed, plus a little slack
// for read-ahead. In such a stream a large file that repeats earlier
// content compresses to almost nothing and so counts as a bomb.
type Limits struct {
	MaxEntries    int   // entries of any kind, directories included
	MaxTotalBytes int64 // uncompressed bytes of all entries together
	MaxEntryBytes int64 // uncompressed bytes of one entry
	MaxRatio      int64 // largest uncompressed:compressed ratio of an entry over RatioFloor (see below)
	MaxPathBytes  int   // bytes of an entry name
	MaxDepth      int   // path components of an entry name
}

const (
	// ratioFloor is the size above which an entry's compression ratio is
	// checked: small files of zeros are harmless, large ones are bombs.
	ratioFloor = 1 << 20

	// maxManifestBytes is the largest forgepack.json (SPEC §2, §3).
	maxManifestBytes = spec.MaxManifestBytes
	// maxDocBytes is the largest README, LICENSE, CHANGELOG or preview image.
	maxDocBytes = 4 << 20
)

// DefaultLimits returns the limits of SPEC §2: 4,096 entries, 4 GiB in all,
// 2 GiB for one entry, a ratio of at most 1:200 for an entry over 1 MiB,
// names of at most 200 bytes and 8 levels.
func DefaultLimits() Limits {
	return Limits{
		MaxEntries:    spec.MaxEntries,
		MaxTotalBytes: spec.MaxTotalBytes,
		MaxEntryBytes: spec.MaxEntryBytes,
		MaxRatio:      spec.MaxRatio,
		MaxPathBytes:  spec.MaxPathBytes,
		MaxDepth:      spec.MaxDepth,
	}
}

// Validate reports every limit that is not positive or lies above its
// default; each is wrapped with [ErrLimitRaised] and names the config key.
func (l Limits) Validate() error {
	d := DefaultLimits()
	var errs []error
	check := func(key string, v, max int64) {
		switch {
		case v <= 0:
			errs = append(errs, fmt.Errorf("limits.%s = %d: must be positive: %w", key, v, ErrLimitRaised))
		case v > max:
			errs = append(errs, fmt.Errorf("limits.%s = %d: above the default %d (limits may only be lowered): %w", key, v, max, ErrLimitRaised))
		}
	}
	check("max_entries", int64(l.MaxEntries), int64(d.MaxEntries))
	check("max_total_bytes", l.MaxTotalBytes, d.MaxTotalBytes)
	check("max_entry_bytes", l.MaxEntryBytes, d.MaxEntryBytes)
	check("max_ratio", l.MaxRatio, d.MaxRatio)
	check("max_path_bytes", int64(l.MaxPathBytes), int64(d.MaxPathBytes))
	check("max_depth", int64(l.MaxDepth), int64(d.MaxDepth))
	return errors.Join(errs...)
}
