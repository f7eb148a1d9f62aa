package daemon

import (
	"errors"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/config"
	"github.com/mjolnir-forge/forgesync/installer/intake"
)

func TestArchiveLimits(t *testing.T) {
	c := config.Default()
	c.Limits.MaxEntries = 5
	lim, err := ArchiveLimits(c)
	if err != nil || lim.MaxEntries != 5 || lim.MaxTotalBytes != intake.DefaultLimits().MaxTotalBytes {
		t.Fatalf("ArchiveLimits() = %+v, %v; want 5 entries and the other defaults", lim, err)
	}
	c.File = "/etc/forgesync.toml"
	c.Limits.MaxRatio = 1 << 30
	if _, err := ArchiveLimits(c); !errors.Is(err, intake.ErrLimitRaised) || !strings.HasPrefix(err.Error(), "/etc/forgesync.toml [limits]: limits.max_ratio") {
		t.Fatalf("ArchiveLimits() with a raised ratio = %v; want ErrLimitRaised naming the file and table", err)
	}
}
