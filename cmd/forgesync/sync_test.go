package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/cmd/forgesync/cli"
)

// gameEnv writes a config file laying out a game install under a temp dir.
func gameEnv(t *testing.T) (config, drop, inv string) {
	t.Helper()
	root := t.TempDir()
	config = filepath.Join(root, "forgesync.toml")
	text := "[paths]\nmods = \"game/Mods\"\npaks = \"game/Paks\"\nstate = \"state\"\n"
	if err := os.WriteFile(config, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return config, filepath.Join(root, "game", "Mods", "MJOLNIRForgePacks", "drop"), filepath.Join(root, "game", "Mods", "MJOLNIRForgePacks")
}

func TestSyncEndToEnd(t *testing.T) {
	config, drop, inv := gameEnv(t)
	os.MkdirAll(drop, 0o755)
	// The two companion packs of ../shared, packed by the packer.
	for _, id := range []string{"foundry-wide", "lockout-gates"} {
		if code, out, errs := runCLI(t, "pack", "../../inventory/render/testdata/companions/"+id, "-o", filepath.Join(drop, id+".zip")); code != cli.ExitOK {
			t.Fatalf("pack %s = %d\n%s%s", id, code, out, errs)
		}
	}
	code, out, errs := runCLI(t, "sync", "--config", config)
	if code != cli.ExitOK || !strings.Contains(out, "foundry-wide.zip: installed foundry-wide 1.4.0") {
		t.Fatalf("sync = %d\n%s%s", code, out, errs)
	}
	// The published companions equal, byte for byte, those an independent
	// implementation rendered from the spec.
	for _, f := range []string{"lifts.txt", "doors.txt", "installed.txt"} {
		got, _ := os.ReadFile(filepath.Join(inv, f))
		want, _ := os.ReadFile(filepath.Join("../../inventory/render/testdata/companions", f))
		if string(got) != string(want) || len(want) == 0 {
			t.Errorf("%s =\n%s\nwant\n%s", f, got, want)
		}
	}

	// Nothing new: nothing rewritten.
	code, out, _ = runCLI(t, "sync", "--config", config, "--json")
	var sum struct {
		Outcomes  []any    `json:"outcomes"`
		Published []string `json:"published"`
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil || code != cli.ExitOK || len(sum.Outcomes) != 0 || len(sum.Published) != 0 {
		t.Fatalf("idle sync --json = %d %v\n%s", code, err, out)
	}

	// A rejected archive makes the exit status 1 and lands beside its reasons.
	os.WriteFile(filepath.Join(drop, "script.zip"), []byte("not a zip at all"), 0o644)
	code, out, _ = runCLI(t, "sync", "--config", config)
	if code != cli.ExitInvalid || !strings.Contains(out, "script.zip: rejected") {
		t.Fatalf("sync with a bad archive = %d\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(drop, "rejected", "script.zip.txt")); err != nil {
		t.Fatalf("no reasons beside the rejected archive: %v", err)
	}

	// Disable the door pack: doors.txt keeps only its header.
	if code, out, errs := runCLI(t, "disable", "lockout-gates", "--config", config); code != cli.ExitOK {
		t.Fatalf("disable = %d\n%s%s", code, out, errs)
	}
	if got, _ := os.ReadFile(filepath.Join(inv, "doors.txt")); string(got) != "forge-doors 1\n" {
		t.Fatalf("doors.txt after disable = %q", got)
	}
	code, out, _ = runCLI(t, "packs", "--json", "--config", config)
	var packs []struct {
		ID      string `json:"id"`
		Enabled bool   `json:"enabled"`
	}
	if err := json.Unmarshal([]byte(out), &packs); err != nil || code != cli.ExitOK || len(packs) != 2 || packs[1].Enabled {
		t.Fatalf("packs --json = %d %v\n%s", code, err, out)
	}
	if code, _, errs := runCLI(t, "enable", "nope", "--config", config); code != cli.ExitInvalid || !strings.Contains(errs, "not installed") {
		t.Fatalf("enable nope = %d %q", code, errs)
	}
	if code, _, errs := runCLI(t, "remove", "foundry-wide", "--config", config); code != cli.ExitOK {
		t.Fatalf("remove = %d %q", code, errs)
	}
	if got, _ := os.ReadFile(filepath.Join(inv, "lifts.txt")); string(got) != "forge-lifts 1\n" {
		t.Fatalf("lifts.txt after remove = %q", got)
	}
}

func TestSyncNeedsGamePaths(t *testing.T) {
	code, _, errs := runCLI(t, "sync")
	if code != cli.ExitFailure || !strings.Contains(errs, "paths.mods") {
		t.Fatalf("sync without config = %d %q; want 2 naming paths.mods", code, errs)
	}
}

// TestSyncFailsWhenADeployFails: a deploy that fails (here the scripts
// folder is a file) made `sync` print the problem twice and exit 0; it is
// printed once and the exit status is 2.
func TestSyncFailsWhenADeployFails(t *testing.T) {
	config, drop, _ := gameEnv(t)
	os.MkdirAll(drop, 0o755)
	mods := filepath.Dir(filepath.Dir(drop))
	os.MkdirAll(filepath.Join(mods, "MJOLNIRLevelLoader"), 0o755)
	if err := os.WriteFile(filepath.Join(mods, "MJOLNIRLevelLoader", "Scripts"), []byte("in the way"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI(t, "sync", "--config", config)
	if code != cli.ExitFailure {
		t.Fatalf("sync with a failing deploy = %d; want %d\n%s%s", code, cli.ExitFailure, out, errs)
	}
	if n := strings.Count(out+errs, "Scripts"); n != 1 {
		t.Fatalf("the deploy problem is printed %d times; want once:\n%s%s", n, out, errs)
	}
}
