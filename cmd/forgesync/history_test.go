package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/cmd/forgesync/cli"
)

// TestHistoryRollback installs a pack, upgrades it and adds another, then
// lists the history and rolls back from the command line.
func TestHistoryRollback(t *testing.T) {
	config, drop, _ := gameEnv(t)
	os.MkdirAll(drop, 0o755)
	sync := func(files map[string][]byte) {
		t.Helper()
		for name, data := range files {
			os.WriteFile(filepath.Join(drop, name), data, 0o644)
		}
		if code, out, errs := runCLI(t, "sync", "--config", config); code != cli.ExitOK {
			t.Fatalf("sync = %d\n%s%s", code, out, errs)
		}
	}
	sync(map[string][]byte{"a.zip": packZip(t, "glass-works", "1.0.0", 0)})
	sync(map[string][]byte{"a2.zip": packZip(t, "glass-works", "1.1.0", 0), "b.zip": packZip(t, "foundry-wide", "1.4.0", 0)})

	code, out, errs := runCLI(t, "history", "--config", config)
	if code != cli.ExitOK || !strings.Contains(out, "generation 2 (current)") || !strings.Contains(out, "+ foundry-wide 1.4.0") ||
		!strings.Contains(out, "~ glass-works 1.0.0 → 1.1.0") || !strings.Contains(out, "+ glass-works 1.0.0") {
		t.Fatalf("history = %d\n%s%s", code, out, errs)
	}
	if code, out, errs := runCLI(t, "rollback", "--config", config); code != cli.ExitOK || !strings.Contains(out, "now generation 3") {
		t.Fatalf("rollback = %d\n%s%s", code, out, errs)
	}
	code, out, _ = runCLI(t, "history", "--json", "--config", config)
	var h api.History
	if err := json.Unmarshal([]byte(out), &h); err != nil || code != cli.ExitOK || h.Current != 3 || h.Generations[0].Cause != "rollback" ||
		len(h.Generations[0].Packs) != 1 || h.Generations[0].Packs[0].Version != "1.0.0" || h.KeptBytes == 0 {
		t.Fatalf("history --json = %d %+v, %v\n%s", code, h, err, out)
	}
	if code, _, errs := runCLI(t, "rollback", "9", "--config", config); code != cli.ExitInvalid || !strings.Contains(errs, "generation 9 is not kept") {
		t.Fatalf("rollback 9 = %d\n%s", code, errs)
	}
	if code, _, errs := runCLI(t, "rollback", "x", "--config", config); code != cli.ExitFailure || !strings.Contains(errs, "not a generation number") {
		t.Fatalf("rollback x = %d\n%s", code, errs)
	}
}
