package main

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/cmd/forgesync/cli"
)

// TestVersionPrintsBuild: `version` prints the version, commit and build
// date the linker set, in words and as --json fields.
func TestVersionPrintsBuild(t *testing.T) {
	defer func(v, c, d string) { version, commit, buildDate = v, c, d }(version, commit, buildDate)
	version, commit, buildDate = "1.2.3", "0123456789abcdef0123456789abcdef01234567", "2026-12-01T10:00:00Z"
	code, out, errs := runCLI(t, "version")
	if want := "forgesync 1.2.3 (commit 0123456789abcdef0123456789abcdef01234567, built 2026-12-01T10:00:00Z)\n"; code != cli.ExitOK || out != want || errs != "" {
		t.Errorf("version = %d, %q, %q; want %q", code, out, errs, want)
	}
	code, out, _ = runCLI(t, "--json", "version")
	var got map[string]string
	if err := json.Unmarshal([]byte(out), &got); code != cli.ExitOK || err != nil {
		t.Fatalf("version --json = %d, %v\n%s", code, err, out)
	}
	if got["version"] != "1.2.3" || got["commit"] != commit || got["build_date"] != buildDate || len(got) != 3 {
		t.Errorf("version --json = %v; want version, commit and build_date", got)
	}
}

// TestStatusShowsBuild: a daemon linked with a version, commit and build
// date reports all three in status, as JSON fields and in words.
func TestStatusShowsBuild(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "forgesync")
	ld := "-X main.version=9.8.7 -X main.commit=feedc0de -X main.buildDate=2026-12-01T10:00:00Z"
	if out, err := exec.Command("go", "build", "-ldflags", ld, "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	// g.start runs the package's binary; this test runs the stamped one.
	defer func(b string) { binary = b }(binary)
	binary = bin
	g := newGame(t)
	g.start(t)
	out, err := exec.Command(bin, "status", "--json", "--config", g.config).Output()
	if err != nil {
		t.Fatalf("status --json: %v\n%s", err, out)
	}
	var got map[string]any
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("status --json: %v\n%s", err, out)
	}
	if got["version"] != "9.8.7" || got["commit"] != "feedc0de" || got["build_date"] != "2026-12-01T10:00:00Z" {
		t.Errorf("status --json version, commit, build_date = %v, %v, %v\n%s", got["version"], got["commit"], got["build_date"], out)
	}
	text, err := exec.Command(bin, "status", "--config", g.config).Output()
	if want := "\ncommit feedc0de, built 2026-12-01T10:00:00Z\n"; err != nil || !strings.Contains(string(text), want) {
		t.Errorf("status = %v\n%s\nwant the line %q", err, text, want)
	}
}
