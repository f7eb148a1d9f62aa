package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/cmd/forgesync/cli"
	"github.com/mjolnir-forge/forgesync/sets/casync"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// appendConfig adds text to a config file.
func appendConfig(t *testing.T, config, text string) {
	t.Helper()
	f, err := os.OpenFile(config, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

// TestSyncSetConfiguredSource: `sync --set` without a lock syncs the
// configured [sets] source, and says which key to set when there is none.
func TestSyncSetConfiguredSource(t *testing.T) {
	dir, fp := publishedSet(t, map[string]int{"alpha": 1})
	config, _, _ := gameEnv(t)

	code, out, errs := runCLI(t, "sync", "--set", "--config", config)
	want := "forgesync sync --set: no set named and no [sets] source in the config: name the lock (sync --set URL), or set source in the [sets] section of the config\n"
	if code != cli.ExitFailure || errs != want || out != "" {
		t.Fatalf("sync --set (no source) = %d\n%s%s\nwant 2 and %s", code, out, errs, want)
	}
	// Arguments are counted as before.
	if code, _, errs := runCLI(t, "sync", "stray", "--config", config); code != cli.ExitFailure || errs != "forgesync sync: want no arguments, got 1 argument(s)\n" {
		t.Errorf("sync stray = %d %q", code, errs)
	}
	if code, _, errs := runCLI(t, "sync", "--set", "a", "b", "--config", config); code != cli.ExitFailure || errs != "forgesync sync --set: want one lock file, folder or URL, got 2: a b\n" {
		t.Errorf("sync --set a b = %d %q", code, errs)
	}
	if code, _, errs := runCLI(t, "sync", "--set=a", "b", "--config", config); code != cli.ExitFailure || !strings.Contains(errs, "got 2: a b") {
		t.Errorf("sync --set=a b = %d %q", code, errs)
	}

	appendConfig(t, config, "[sets]\nsource = '"+dir+"'\n")
	code, out, errs = runCLI(t, "sync", "--set", "--config", config)
	if code != cli.ExitOK || !strings.Contains(out, "alpha") {
		t.Fatalf("sync --set (configured source) = %d\n%s%s", code, out, errs)
	}
	if got := machineFingerprint(t, config); got != fp {
		t.Errorf("machine = %s; want the set's %s", got, fp)
	}
	// --set followed by another flag is still the configured source.
	if code, out, errs := runCLI(t, "sync", "--set", "--prune", "--config", config); code != cli.ExitOK {
		t.Errorf("sync --set --prune = %d\n%s%s", code, out, errs)
	}
	// A lock named after --set, with = or not, is still the one synced.
	other := t.TempDir()
	if code, out, errs := runCLI(t, "sync", "--set="+other, "--config", config); code != cli.ExitFailure || !strings.Contains(errs, other) {
		t.Errorf("sync --set=EMPTY = %d\n%s%s; want a failure naming %s", code, out, errs, other)
	}
}

// archiveNames lists a folder without the chunk indexes export writes
// beside each archive.
func archiveNames(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	for _, n := range dirNames(t, dir) {
		if !strings.HasSuffix(n, casync.IndexExt) {
			out = append(out, n)
		}
	}
	return out
}

// TestExportPrune: export --prune removes, after writing the new lock, the
// archives of packs the machine no longer has enabled, and says which.
func TestExportPrune(t *testing.T) {
	config, drop, _ := gameEnv(t)
	doorPack(t, drop, "alpha", "1.0.0", 1)
	doorPack(t, drop, "beta", "1.0.0", 1)
	if code, out, errs := runCLI(t, "sync", "--config", config); code != cli.ExitOK {
		t.Fatalf("sync = %d\n%s%s", code, out, errs)
	}
	dir := filepath.Join(t.TempDir(), "site")
	if code, out, errs := runCLI(t, "export", dir, "--prune", "--config", config); code != cli.ExitOK || strings.Contains(out, "removed") {
		t.Fatalf("export --prune (first) = %d\n%s%s", code, out, errs)
	}
	before := archiveNames(t, filepath.Join(dir, "packs"))
	if len(before) != 2 {
		t.Fatalf("packs/ = %v; want 2 archives", before)
	}
	os.WriteFile(filepath.Join(dir, "packs", "index.html"), []byte("<html>"), 0o644)
	if code, out, errs := runCLI(t, "disable", "beta", "--config", config); code != cli.ExitOK {
		t.Fatalf("disable = %d\n%s%s", code, out, errs)
	}
	// Without --prune the old archive stays.
	if code, out, errs := runCLI(t, "export", dir, "--config", config); code != cli.ExitOK || strings.Contains(out, "removed") {
		t.Fatalf("export = %d\n%s%s", code, out, errs)
	}
	if got := archiveNames(t, filepath.Join(dir, "packs")); len(got) != 3 {
		t.Fatalf("packs/ after export = %v; want the 2 archives and index.html", got)
	}
	code, out, errs := runCLI(t, "export", dir, "--prune", "--config", config)
	data, _ := os.ReadFile(filepath.Join(dir, lock.LockName))
	l, err := lock.Decode("lock", data, lock.DecodeOptions{})
	if err != nil || len(l.Packs) != 1 {
		t.Fatalf("lock = %v, %v", l, err)
	}
	var gone string
	for _, n := range before {
		if !strings.HasPrefix(n, l.Packs[0].SHA256) {
			gone = n
		}
	}
	want := "wrote " + filepath.Join(dir, lock.LockName) + ": 1 packs, " + l.Fingerprint() + "\nremoved 1 archive the set no longer pins: " + gone + "\n" +
		"removed 1 chunk index the set no longer pins: " + gone[:min(64, len(gone))] + ".caibx\n"
	if code != cli.ExitOK || out != want {
		t.Fatalf("export --prune = %d\n%s%s\nwant\n%s", code, out, errs, want)
	}
	got := archiveNames(t, filepath.Join(dir, "packs"))
	if len(got) != 2 || !strings.HasPrefix(got[0]+got[1], l.Packs[0].SHA256) && !strings.Contains(got[0]+got[1], l.Packs[0].SHA256) {
		t.Errorf("packs/ = %v; want the pinned archive and index.html", got)
	}
}

// dirNames lists a folder, sorted.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// TestExportRefusesUnknownScheme: an export target with a scheme forgesync
// does not know is refused by name, never written as a folder named after
// the scheme (`export s3://bucket/set` once wrote ./s3:/bucket/set).
func TestExportRefusesUnknownScheme(t *testing.T) {
	config, drop, _ := gameEnv(t)
	doorPack(t, drop, "alpha", "1.0.0", 1)
	if code, out, errs := runCLI(t, "sync", "--config", config); code != cli.ExitOK {
		t.Fatalf("sync = %d\n%s%s", code, out, errs)
	}
	cwd := t.TempDir()
	t.Chdir(cwd)
	for _, target := range []string{"s3://bucket/set", "gs://bucket/set", "ocl://ghcr.io/o/r:live", "htps://cdn.example.org/set"} {
		scheme, _, _ := strings.Cut(target, "://")
		code, out, errs := runCLI(t, "export", target, "--config", config)
		if code != cli.ExitFailure || out != "" || !strings.Contains(errs, `scheme "`+scheme+`"`) {
			t.Errorf("export %s = %d\n%s%s\nwant 2 and an error naming the scheme %q", target, code, out, errs, scheme)
		}
		if names := dirNames(t, cwd); len(names) != 0 {
			t.Fatalf("export %s wrote %v in the working folder; want nothing", target, names)
		}
	}
}
