package config

import (
	"os"
	"reflect"
	"regexp"
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
		cfg.Sets.KeepGenerations != def.Sets.KeepGenerations || cfg.Sets.MaxStageBytes != def.Sets.MaxStageBytes || cfg.Sets.KeepProfiles != def.Sets.KeepProfiles || cfg.Sets.AllowPrivateMirrors || cfg.API.Listen != "" ||
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

// acceptedKeys returns every key the config accepts, by table, as the
// decoder knows them: the toml tags of the file struct.
func acceptedKeys() map[string][]string {
	out := map[string][]string{}
	ft := reflect.TypeFor[file]()
	for i := range ft.NumField() {
		table := ft.Field(i)
		name := table.Tag.Get("toml")
		for j := range table.Type.NumField() {
			out[name] = append(out[name], table.Type.Field(j).Tag.Get("toml"))
		}
	}
	return out
}

// TestReadmeSampleNamesEveryKey: the README's complete sample config names
// every key the config accepts, each in its table, set or commented out
// with its default; a key added to the config without README text fails
// here (issue 37).
func TestReadmeSampleNamesEveryKey(t *testing.T) {
	sample := readmeSample(t)
	sections := map[string]string{}
	for _, part := range regexp.MustCompile(`(?m)^\[`).Split(sample, -1)[1:] {
		name, body, _ := strings.Cut(part, "]")
		sections[name] = body
	}
	keys := acceptedKeys()
	if len(keys) < 8 {
		t.Fatalf("the config's tables = %v; want them all", keys)
	}
	for table, names := range keys {
		body, ok := sections[table]
		if !ok {
			t.Errorf("the README's sample config has no [%s]", table)
			continue
		}
		for _, k := range names {
			if !regexp.MustCompile(`(?m)^(# )?` + regexp.QuoteMeta(k) + ` *=`).MatchString(body) {
				t.Errorf("the README's sample config does not name %s.%s (as %q or %q in [%s])", table, k, k+" = …", "# "+k+" = …", table)
			}
		}
	}
	for table := range sections {
		if _, ok := keys[table]; !ok {
			t.Errorf("the README's sample config has [%s], which the config does not accept", table)
		}
	}
}
