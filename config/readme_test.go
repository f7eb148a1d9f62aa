package config

import (
	"os"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/internal/spec"
)

// readmeSample returns the complete sample config of the README's
// "Getting started": its first toml block.
func readmeSample(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	i := strings.Index(text, "\n## Getting started\n")
	if i < 0 {
		t.Fatal(`README.md has no "## Getting started" section`)
	}
	text = text[i:]
	if j := strings.Index(text[1:], "\n## "); j >= 0 {
		text = text[:j+1]
	}
	start := strings.Index(text, "```toml\n")
	if start < 0 {
		t.Fatal(`"Getting started" has no toml block`)
	}
	text = text[start+len("```toml\n"):]
	end := strings.Index(text, "```")
	if end < 0 {
		t.Fatal("the toml block does not end")
	}
	return text[:end]
}

func TestReadmeSampleConfigParses(t *testing.T) {
	sample := readmeSample(t)
	cfg, err := parse("/games/forgesync.toml", []byte(sample))
	if err != nil {
		t.Fatalf("the README's sample config: %v", err)
	}
	// Every default it states is the default.
	def := Default()
	if cfg.Watch != def.Watch || cfg.Deploy.Lua != def.Deploy.Lua || cfg.Deploy.Native != def.Deploy.Native ||
		cfg.Log.Level != def.Log.Level || cfg.Log.Format != def.Log.Format ||
		cfg.Sets.Interval != def.Sets.Interval || cfg.Sets.CacheMax != def.Sets.CacheMax ||
		cfg.Sets.KeepGenerations != def.Sets.KeepGenerations || cfg.Sets.AllowPrivateMirrors || cfg.API.Listen != "" ||
		cfg.Performance != def.Performance {
		t.Errorf("the sample says other values than the defaults: %+v", cfg)
	}
	if cfg.Limits.MaxEntries != spec.MaxEntries || cfg.Limits.MaxTotalBytes != spec.MaxTotalBytes ||
		cfg.Limits.MaxEntryBytes != spec.MaxEntryBytes || cfg.Limits.MaxRatio != spec.MaxRatio {
		t.Errorf("the sample's limits %+v are not the defaults of internal/spec", cfg.Limits)
	}
	for _, table := range []string{"[paths]", "[watch]", "[limits]", "[deploy]", "[log]", "[api]", "[sets]", "[performance]"} {
		if !strings.Contains(sample, "\n"+table) && !strings.HasPrefix(sample, table) {
			t.Errorf("the sample has no %s", table)
		}
	}
}
