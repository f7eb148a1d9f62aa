package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/cmd/forgesync/cli"
)

// TestInitScanPack is a new pack author's first session, typed as the
// README tells it: init, scan, pack, scan the zip.
func TestInitScanPack(t *testing.T) {
	t.Chdir(t.TempDir())
	steps := []struct {
		args []string
		code int
		out  string
	}{
		{[]string{"init", "neon-halls"}, cli.ExitOK, "neon-halls: new pack neon-halls (forgepack.json, README.md, content/, .gitignore, .forgeignore, .github/workflows/forgesync.yml)\n"},
		{[]string{"scan", "neon-halls"}, cli.ExitOK, "neon-halls 0.1.0: valid (2 pieces, 1 lift, 1 door, 0 surface packages)"},
		{[]string{"pack", "neon-halls", "-o", "neon-halls-0.1.0.zip"}, cli.ExitOK, "neon-halls 0.1.0: wrote neon-halls-0.1.0.zip (2 files)"},
		{[]string{"scan", "neon-halls-0.1.0.zip"}, cli.ExitOK, "neon-halls 0.1.0: valid"},
	}
	for _, s := range steps {
		code, out, errs := runCLI(t, s.args...)
		if code != s.code || !strings.Contains(out, s.out) {
			t.Fatalf("forgesync %s = %d\n%s%s\nwant %d and %q", strings.Join(s.args, " "), code, out, errs, s.code, s.out)
		}
	}
	data, err := os.ReadFile(filepath.Join("neon-halls", "forgepack.json"))
	if err != nil || !strings.Contains(string(data), `"$schema": "https://`) || !strings.Contains(string(data), `"name": "Neon Halls"`) {
		t.Fatalf("forgepack.json = %s, %v; want a $schema line and the name from the id", data, err)
	}
	if info, err := os.Stat(filepath.Join("neon-halls", "content")); err != nil || !info.IsDir() {
		t.Fatalf("content/ = %v, %v; want a folder", info, err)
	}
}

func TestInitRefuses(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := os.MkdirAll("full", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("full", "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		err  string
	}{
		{[]string{"init", "full", "--id", "full-pack"}, "forgesync init: full: holds notes.txt; init starts a pack only in a new or empty folder, or one holding nothing but dot-files such as .git\n"},
		{[]string{"init", "Ö!"}, `forgesync init: pack id "o" (from the folder's name "Ö!"): must be 3–48 bytes of [a-z0-9] with single '-' between them (rename the folder, or pass --id)` + "\n"},
		{[]string{"init", "x", "--id", "a--b"}, `forgesync init: pack id "a--b": must be 3–48 bytes of [a-z0-9] with single '-' between them (pass another --id)` + "\n"},
	} {
		code, _, errs := runCLI(t, c.args...)
		if code != cli.ExitFailure || errs != c.err {
			t.Errorf("forgesync %s = %d, %q; want 2, %q", strings.Join(c.args, " "), code, errs, c.err)
		}
	}
	if data, _ := os.ReadFile(filepath.Join("full", "notes.txt")); string(data) != "mine" {
		t.Fatalf("init touched a non-empty folder: notes.txt = %q", data)
	}
	for _, dir := range []string{"x", "Ö!"} {
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Fatalf("init with a bad id made the folder %s: %v", dir, err)
		}
	}
	// an id given for a folder whose name is not a slug
	if code, out, errs := runCLI(t, "init", "My Pack", "--id", "my-pack"); code != cli.ExitOK {
		t.Fatalf("init 'My Pack' --id my-pack = %d\n%s%s", code, out, errs)
	}
	if code, out, _ := runCLI(t, "scan", "My Pack"); code != cli.ExitOK || !strings.Contains(out, "my-pack 0.1.0: valid") {
		t.Fatalf("scan 'My Pack' = %d\n%s", code, out)
	}
}

func TestScanFormats(t *testing.T) {
	dir := copyDir(t, "examples/lockout-gates")
	manifest := filepath.Join(dir, "forgepack.json")
	data, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(manifest, []byte(strings.Replace(string(data), `"hold_open_s": 2`, `"hold_open_s": 11`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI(t, "scan", "--format", "github", dir, "examples/foundry-wide")
	want := "::error file=" + filepath.ToSlash(manifest) + ",line="
	if code != cli.ExitInvalid || !strings.HasPrefix(out, want) || !strings.Contains(out, ",title=forgesync range::pieces[0].door.hold_open_s: must be between 0 and 10, got 11\n") ||
		!strings.HasSuffix(out, "\n::notice file=examples/foundry-wide/forgepack.json,title=forgesync::foundry-wide 1.4.0: valid (3 pieces, 2 lifts, 0 doors, 0 surface packages)\n") || strings.Count(out, "\n") != 2 {
		t.Fatalf("scan --format github = %d\n%s%s\nwant 1, one annotation starting %q and the valid pack's notice", code, out, errs, want)
	}
	code, out, _ = runCLI(t, "scan", "--format", "sarif", dir)
	if code != cli.ExitInvalid || !strings.Contains(out, `"version": "2.1.0"`) || !strings.Contains(out, `"ruleId": "range"`) {
		t.Fatalf("scan --format sarif = %d\n%s", code, out)
	}
	code, _, errs = runCLI(t, "scan", "--format", "xml", dir)
	if code != cli.ExitFailure || errs != "forgesync scan: --format \"xml\": want one of text, json, github, sarif\n" {
		t.Fatalf("scan --format xml = %d, %q", code, errs)
	}
}
