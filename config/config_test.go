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
	c, err := Parse(path, []byte(text))
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
		{"syntax", "[paths\n", "to end table name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("f.toml", []byte(tt.text))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Parse(%q) = %v; want error containing %q", tt.text, err, tt.want)
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("error is not ErrInvalid: %v", err)
			}
		})
	}
}

func TestRequireGame(t *testing.T) {
	c, err := Parse("/x/f.toml", []byte("[paths]\nmods = \"m\"\n"))
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
	if err != nil || c.Watch.Settle != DefaultSettle || !c.Deploy.Lua {
		t.Fatalf("Load(\"\") = %+v, %v; want defaults", c, err)
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"4GiB": 4 << 30, "2 GiB": 2 << 30, "100MB": 100e6, "512": 512, "1.5KiB": 1536} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "GiB", "4 GB2", "-1", "1e3"} {
		if _, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) = ok; want error", in)
		}
	}
}
