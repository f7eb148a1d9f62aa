package daemon

import (
	"fmt"

	"github.com/mjolnir-forge/forgesync/config"
	"github.com/mjolnir-forge/forgesync/installer/intake"
)

// ArchiveLimits returns the extraction limits: the configured ones over
// the intake's defaults. A limit above its default is an error naming
// the file and the table.
func ArchiveLimits(c *config.Config) (intake.Limits, error) {
	lim := intake.DefaultLimits()
	l := c.Limits
	if l.MaxEntries > 0 {
		lim.MaxEntries = l.MaxEntries
	}
	if l.MaxTotalBytes > 0 {
		lim.MaxTotalBytes = l.MaxTotalBytes
	}
	if l.MaxEntryBytes > 0 {
		lim.MaxEntryBytes = l.MaxEntryBytes
	}
	if l.MaxRatio > 0 {
		lim.MaxRatio = int64(l.MaxRatio)
	}
	if err := lim.Validate(); err != nil {
		where := "[limits]"
		if c.File != "" {
			where = c.File + " [limits]"
		}
		return lim, fmt.Errorf("%s: %w", where, err)
	}
	return lim, nil
}
