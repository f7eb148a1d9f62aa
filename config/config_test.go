package config

import (
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// parse is [ParseEnv] for this process's account and role.
func parse(path string, data []byte) (*Config, error) {
	return ParseEnv(path, data, Process(false))
}

func TestParseFull(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "forgesync.toml")
	text := `
[paths]
mods = "game/Mods"
paks = "/abs/paks"
state = "state"

[watch]
settle = "2s"
rescan = "5m"

[limits]
max_entries = 100
max_total_bytes = "1GiB"
max_entry_bytes = 1048576
max_ratio = 50

[deploy]
lua = false

[log]
level = "debug"
format = "json"
`
	c, err := parse(path, []byte(text))
	if err != nil {
		t.Fatalf("Parse = %v", err)
	}
	if want := filepath.Join(dir, "game", "Mods"); c.Paths.Mods != want {
		t.Errorf("Mods = %q; want %q (relative to the file)", c.Paths.Mods, want)
	}
	if want := filepath.Join(dir, "game", "Mods", "MJOLNIRForgePacks", "drop"); c.Paths.Drop != want {
		t.Errorf("Drop = %q; want default under mods %q", c.Paths.Drop, want)
	}
	if want := filepath.Join(dir, "state", "forgesync.sock"); c.Paths.Socket != want {
		t.Errorf("Socket = %q; want %q", c.Paths.Socket, want)
	}
	if c.Paths.Paks != filepath.Clean("/abs/paks") {
		t.Errorf("Paks = %q", c.Paths.Paks)
	}
	if c.Watch.Settle != 2*time.Second || c.Watch.Rescan != 5*time.Minute {
		t.Errorf("Watch = %+v", c.Watch)
	}
	if c.Limits != (Limits{100, 1 << 30, 1 << 20, 50}) {
		t.Errorf("Limits = %+v", c.Limits)
	}
	if c.Deploy.Lua || !c.Deploy.Native {
		t.Errorf("Deploy = %+v; want lua off, native on", c.Deploy)
	}
	if c.Log.Level != slog.LevelDebug || c.Log.Format != "json" {
		t.Errorf("Log = %+v", c.Log)
	}
	if err := c.RequireGame(); err != nil {
		t.Errorf("RequireGame = %v", err)
	}
}

func TestParseErrorsNameKeyAndLine(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"unknown key", "[watch]\nsettle = \"1s\"\nsetle = \"2s\"\n", "f.toml:3: watch.setle: unknown key"},
		{"unknown table", "[paths]\nmods = \"x\"\n\n[extra]\nkey = 1\n", "f.toml:5: extra.key: unknown key"},
		{"bad duration", "[watch]\nsettle = \"soon\"\n", `f.toml:2: watch.settle: want a duration such as "750ms", got "soon"`},
		{"bad size", "[limits]\nmax_total_bytes = \"4 parsecs\"\n", `f.toml:2`},
		{"bad level", "\n[log]\nlevel = \"loud\"\n", `f.toml:3: log.level: want debug, info, warn or error, got "loud"`},
		{"bad format", "[log]\nformat = \"xml\"\n", `f.toml:2: log.format: want text or json`},
		{"bad priority", "[performance]\npriority = \"low\"\n", `f.toml:2: performance.priority: want "background" or "normal", got "low"`},
		{"syntax", "[paths\n", "to end table name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse("f.toml", []byte(tt.text))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("parse(%q) = %v; want error containing %q", tt.text, err, tt.want)
			}
			if !errors.Is(err, errInvalid) {
				t.Errorf("error is not ErrInvalid: %v", err)
			}
		})
	}
}

func TestPerformancePriority(t *testing.T) {
	if p := Default().Performance.Priority; p != priorityBackground {
		t.Errorf("default priority = %q; want %q", p, priorityBackground)
	}
	for _, v := range []string{priorityBackground, PriorityNormal} {
		c, err := parse("f.toml", []byte("[performance]\npriority = \""+v+"\"\n"))
		if err != nil || c.Performance.Priority != v {
			t.Errorf("priority = %q: got %+v, %v", v, c, err)
		}
	}
}

// TestParseUpdate: [update] feed is an http or https URL, refused
// otherwise with the key, its line and the value (a password hidden);
// check is off unless set.
func TestParseUpdate(t *testing.T) {
	if u := Default().Update; u.Feed != "" || u.Check {
		t.Errorf("default [update] = %+v; want no feed (the built-in one) and no check", u)
	}
	c, err := parse("f.toml", []byte("[update]\nfeed = \"https://mirror.example.org/forgesync/\"\ncheck = true\n"))
	if err != nil || c.Update.Feed != "https://mirror.example.org/forgesync/" || !c.Update.Check {
		t.Errorf("parse([update]) = %+v, %v; want the feed kept and check on", c, err)
	}
	for _, text := range []string{"[update]\n\nfeed = \"ftp://u:hunter2@x/rel/\"\n", "[update]\n\nfeed = \"releases/\"\n"} {
		_, err := parse("f.toml", []byte(text))
		if err == nil || !strings.Contains(err.Error(), "f.toml:3: update.feed: want the http or https URL") || !errors.Is(err, errInvalid) || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("parse(%q) = %v; want update.feed at line 3 refused, no password", text, err)
		}
	}
}

func TestRequireGame(t *testing.T) {
	c, err := parse("/x/f.toml", []byte("[paths]\nmods = \"m\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	err = c.RequireGame()
	if err == nil || !strings.Contains(err.Error(), "paths.paks") || strings.Contains(err.Error(), "paths.mods") {
		t.Fatalf("RequireGame = %v; want only paths.paks missing", err)
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "none.toml"))
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Load(missing) = %v; want not-exist", err)
	}
	c, err := Load("")
	if err != nil || c.Watch.Settle != defaultSettle || !c.Deploy.Lua {
		t.Fatalf("Load(\"\") = %+v, %v; want defaults", c, err)
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"4GiB": 4 << 30, "2 GiB": 2 << 30, "100MB": 100e6, "512": 512, "1.5KiB": 1536} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "GiB", "4 GB2", "-1", "1e3"} {
		if _, err := parseSize(in); err == nil {
			t.Errorf("ParseSize(%q) = ok; want error", in)
		}
	}
}

func TestParseSets(t *testing.T) {
	dir := t.TempDir()
	c, err := parse(filepath.Join(dir, "f.toml"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Sets{Interval: 5 * time.Minute, CacheMax: 2 << 30, KeepGenerations: 10, KeepProfiles: 5}); c.Sets.Source != "" ||
		c.Sets.Interval != want.Interval || c.Sets.CacheMax != want.CacheMax || c.Sets.KeepGenerations != want.KeepGenerations || c.Sets.KeepProfiles != want.KeepProfiles {
		t.Errorf("default Sets = %+v; want %+v", c.Sets, want)
	}
	key := "RWQAAQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyAhIiMkJSYn"
	text := "[sets]\nsource = \"sets/forgepacks.lock\"\ninterval = \"90s\"\ntrusted_keys = [\"" + key + "\"]\ncache_max = \"1GiB\"\nkeep_generations = 3\nkeep_profiles = 2\n"
	c, err = parse(filepath.Join(dir, "f.toml"), []byte(text))
	if err != nil {
		t.Fatalf("Parse = %v", err)
	}
	want := Sets{Source: filepath.Join(dir, "sets", "forgepacks.lock"), Interval: 90 * time.Second,
		TrustedKeys: []string{key}, CacheMax: 1 << 30, KeepGenerations: 3, KeepProfiles: 2}
	if c.Sets.Source != want.Source || c.Sets.Interval != want.Interval || len(c.Sets.TrustedKeys) != 1 ||
		c.Sets.CacheMax != want.CacheMax || c.Sets.KeepGenerations != want.KeepGenerations || c.Sets.KeepProfiles != want.KeepProfiles {
		t.Errorf("Sets = %+v; want %+v", c.Sets, want)
	}
	if c.Sets.AllowPrivateMirrors {
		t.Errorf("Sets.AllowPrivateMirrors = true by default; want false")
	}
	if c.Sets.MaxStageBytes != 4<<30 {
		t.Errorf("Sets.MaxStageBytes = %d by default; want 4 GiB", c.Sets.MaxStageBytes)
	}
	if c, err := parse(filepath.Join(dir, "f.toml"), []byte("[sets]\nmax_stage_bytes = \"500MiB\"\n")); err != nil || c.Sets.MaxStageBytes != 500<<20 {
		t.Errorf("parse(max_stage_bytes = 500MiB) = %+v, %v; want 500 MiB", c, err)
	}
	c, err = parse(filepath.Join(dir, "f.toml"), []byte("[sets]\nallow_private_mirrors = true\n"))
	if err != nil || !c.Sets.AllowPrivateMirrors {
		t.Errorf("parse(allow_private_mirrors = true) = %+v, %v; want it set", c, err)
	}
	c, err = parse(filepath.Join(dir, "f.toml"), []byte("[sets]\nsource = \"https://cdn.example.org/forgepacks.lock\"\n"))
	if err != nil || c.Sets.Source != "https://cdn.example.org/forgepacks.lock" {
		t.Errorf("parse(https source) = %+v, %v; want the URL kept as written", c, err)
	}

	c, err = parse(filepath.Join(dir, "f.toml"), []byte("[sets]\nsource = \"oci://ghcr.io/league/packs:live\"\ninsecure_registries = [\"registry.lan:5000\"]\ndocker_config = \"docker.json\"\n"))
	if err != nil || c.Sets.Source != "oci://ghcr.io/league/packs:live" || len(c.Sets.InsecureRegistries) != 1 || c.Sets.DockerConfig != filepath.Join(dir, "docker.json") {
		t.Errorf("parse(oci source) = %+v, %v; want the reference kept as written, one insecure registry, the Docker config beside the file", c.Sets, err)
	}

	tests := []struct{ name, text, want string }{
		{"scheme", "[sets]\nsource = \"ftp://x/lock\"\n", `f.toml:2: sets.source: want a lock file path, an http, https or file URL, or an oci:// reference`},
		{"scheme with a password", "[sets]\nsource = \"ftp://host:hunter2@x/lock\"\n", `got "ftp://host:xxxxx@x/lock"`},
		{"interval", "[sets]\n\ninterval = \"often\"\n", `f.toml:3: sets.interval: want a duration`},
		{"interval too short", "[sets]\ninterval = \"10ms\"\n", `f.toml:2: sets.interval`},
		{"key", "[sets]\ntrusted_keys = [\"RWQnotakey\"]\n", `f.toml:2: sets.trusted_keys: key 1: want a minisign public key`},
		{"cache", "[sets]\ncache_max = \"lots\"\n", `f.toml:2`},
		{"stage bound", "[sets]\nmax_stage_bytes = \"0\"\n", `f.toml:2: sets.max_stage_bytes: want a size of at least 1 byte such as "4GiB", got "0"`},
		{"keep zero", "[sets]\nkeep_generations = 0\n", `f.toml:2: sets.keep_generations: want a number from 1 to 1000, got 0`},
		{"keep profiles too many", "[sets]\nkeep_profiles = 101\n", `f.toml:2: sets.keep_profiles: want a number from 1 to 100, got 101`},
		{"unknown", "[sets]\nkeep = 3\n", `f.toml:2: sets.keep: unknown key`},
		{"insecure registry with a scheme", "[sets]\ninsecure_registries = [\"http://registry.lan:5000\"]\n", `f.toml:2: sets.insecure_registries: entry 1: want a registry's host or host:port`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse("f.toml", []byte(tt.text))
			if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, errInvalid) {
				t.Fatalf("parse(%q) = %v; want ErrInvalid containing %q", tt.text, err, tt.want)
			}
			if strings.Contains(err.Error(), "hunter2") {
				t.Fatalf("parse(%q) = %v; the password is printed", tt.text, err)
			}
		})
	}
}

// TestParseMessages holds the exact text of a file with many faults: every
// one reported, in line order, each with its line and key, a wrong TOML
// type in our words, a raised limit quoted as written, and no suffix
// repeated on every line.
func TestParseMessages(t *testing.T) {
	text := `[watch]
settle = 5
setle = "1s"

[limits]
max_entries = "many"
max_total_bytes = "8GiB"
max_entry_bytes = 3221225472
max_ratio = 1000

[log]
level = "loud"

[extras]
x = 1
`
	want := `f.toml:2: watch.settle: want a string in quotes, got 5 (a number)
f.toml:3: watch.setle: unknown key: the keys of [watch] are settle and rescan
f.toml:6: limits.max_entries: want a whole number, got "many" (a string)
f.toml:7: limits.max_total_bytes: "8GiB" is above the default "4GiB"; limits may only be lowered
f.toml:8: limits.max_entry_bytes: 3221225472 is above the default "2GiB"; limits may only be lowered
f.toml:9: limits.max_ratio: 1000 is above the default 200; limits may only be lowered
f.toml:12: log.level: want debug, info, warn or error, got "loud"
f.toml:15: extras.x: unknown key: there is no table [extras] (the tables are [paths], [watch], [limits], [deploy], [log], [api], [sets], [lan], [performance] and [update])`
	_, err := parse("f.toml", []byte(text))
	if err == nil || err.Error() != want || !errors.Is(err, errInvalid) {
		t.Fatalf("Parse =\n%v\nwant\n%s", err, want)
	}
	for _, tt := range []struct{ name, text, want string }{
		{"top-level key", "mods = \"x\"\n", "f.toml:1: mods: unknown key: every key belongs in a table ([paths], [watch], [limits], [deploy], [log], [api], [sets], [lan], [performance] and [update])"},
		{"table as value", "paths = 3\n", "f.toml:1: paths: want the table [paths], got 3 (a number)"},
		{"array of tables", "[[paths]]\nmods = \"x\"\n", "f.toml:1: paths: want the table [paths], got a list of tables"},
		{"bool", "[deploy]\nlua = \"yes\"\n", `f.toml:2: deploy.lua: want true or false, got "yes" (a string)`},
		{"list", "[sets]\ntrusted_keys = \"RW\"\n", `f.toml:2: sets.trusted_keys: want a list of strings in quotes, got "RW" (a string)`},
		{"zero limit", "[limits]\nmax_entries = 0\n", "f.toml:2: limits.max_entries: must be positive, got 0"},
		{"bad size", "[limits]\nmax_total_bytes = \"4 parsecs\"\n", `f.toml:2: limits.max_total_bytes: size "4 parsecs": unknown unit "parsecs" (use B, KB, MB, GB, KiB, MiB, GiB)`},
		{"syntax", "[paths\n", "f.toml:2: expected '.' or ']' to end table name, but got '\\n' instead"},
	} {
		_, err := parse("f.toml", []byte(tt.text))
		if err == nil || err.Error() != tt.want || !errors.Is(err, errInvalid) {
			t.Errorf("%s: parse(%q) =\n%v\nwant\n%s", tt.name, tt.text, err, tt.want)
		}
	}
	c, err := parse("f.toml", []byte("[limits]\nmax_total_bytes = \"1GiB\"\nmax_entries = 10\n"))
	if err != nil || c.Limits != (Limits{MaxEntries: 10, MaxTotalBytes: 1 << 30}) {
		t.Errorf("parse(lowered limits) = %+v, %v", c, err)
	}
	err = (&Config{File: "/x/f.toml"}).RequireGame()
	if want := "/x/f.toml: paths.mods (the game's UE4SS Mods folder) and paths.paks (where pack content is installed) required; set them in the config file, or try `forgesync demo`"; err == nil || err.Error() != want || !errors.Is(err, errInvalid) {
		t.Errorf("RequireGame =\n%v\nwant\n%s", err, want)
	}
}
