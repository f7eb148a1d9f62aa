package main

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/cmd/forgesync/cli"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// noConfigFound makes every config file the commands look for absent.
func noConfigFound(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	t.Setenv("APPDATA", filepath.Join(home, "appdata"))
	t.Setenv("FORGESYNC_CONFIG", "")
}

// archivesDir packs the example packs, and lockout-gates at 0.4.0 too,
// into a folder of archives.
func archivesDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	next := copyDir(t, filepath.Join("examples", "lockout-gates"))
	manifest := filepath.Join(next, "forgepack.json")
	data, _ := os.ReadFile(manifest)
	os.WriteFile(manifest, []byte(strings.Replace(string(data), `"version": "0.3.1"`, `"version": "0.4.0"`, 1)), 0o644)
	for name, src := range map[string]string{"foundry-wide.zip": filepath.Join("examples", "foundry-wide"),
		"lockout-gates-0.3.1.zip": filepath.Join("examples", "lockout-gates"), "lockout-gates-0.4.0.zip": next} {
		if code, out, errs := runCLI(t, "pack", src, "-o", filepath.Join(dir, name)); code != cli.ExitOK {
			t.Fatalf("pack %s = %d\n%s%s", src, code, out, errs)
		}
	}
	os.WriteFile(filepath.Join(dir, ".DS_Store"), []byte("a Mac's"), 0o644) // left alone, as in drop
	return dir
}

func fileSHA256(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// TestExportFromArchives: without a game or a config, export --from
// publishes the newest valid version of each pack in a folder of
// archives, which a machine then syncs; lock --from writes the same set;
// an archive scan rejects is named with its reasons and publishes nothing.
func TestExportFromArchives(t *testing.T) {
	fastFetch(t)
	noConfigFound(t)
	archives := archivesDir(t)
	site := filepath.Join(t.TempDir(), "site")
	code, out, errs := runCLI(t, "export", site, "--from", archives)
	if code != cli.ExitOK || !strings.Contains(out, "wrote "+filepath.Join(site, lock.LockName)+": 2 packs, ") ||
		!strings.Contains(errs, filepath.Join(archives, "lockout-gates-0.3.1.zip")+" left out: a newer version of its pack is in "+archives) {
		t.Fatalf("export --from = %d\n%s%s", code, out, errs)
	}
	l := readLock(t, filepath.Join(site, lock.LockName))
	want := map[string]string{"foundry-wide": "1.4.0 " + fileSHA256(t, filepath.Join(archives, "foundry-wide.zip")),
		"lockout-gates": "0.4.0 " + fileSHA256(t, filepath.Join(archives, "lockout-gates-0.4.0.zip"))}
	for _, p := range l.Packs {
		if want[p.ID] != p.Version+" "+p.SHA256 {
			t.Errorf("the lock pins %s %s %s; want %s", p.ID, p.Version, p.SHA256, want[p.ID])
		}
	}
	if len(l.Packs) != 2 {
		t.Fatalf("the lock pins %d packs; want 2", len(l.Packs))
	}
	code, out, errs = runCLI(t, "lock", "--from", archives)
	if code != cli.ExitOK || !strings.Contains(out, `fingerprint = "`+l.Fingerprint()+`"`) {
		t.Fatalf("lock --from = %d\n%s%s; want the set's fingerprint %s", code, out, errs, l.Fingerprint())
	}

	// A machine syncs what was published.
	srv := httptest.NewServer(http.FileServer(http.Dir(site)))
	defer srv.Close()
	machine, _, _ := gameEnv(t)
	if code, out, errs := runCLI(t, "sync", "--set", srv.URL+"/", "--config", machine); code != cli.ExitOK ||
		!strings.Contains(out, "the machine now equals the set "+l.Fingerprint()) {
		t.Fatalf("sync --set = %d\n%s%s", code, out, errs)
	}

	// A rejected archive fails both, named with its reasons; nothing is written.
	os.WriteFile(filepath.Join(archives, "notes.zip"), []byte("not an archive at all"), 0o644)
	other := filepath.Join(t.TempDir(), "other")
	for _, args := range [][]string{{"export", other}, {"lock", "-o", filepath.Join(other, lock.LockName)}} {
		code, out, errs = runCLI(t, append(args, "--from", archives)...)
		if code != cli.ExitInvalid || !strings.Contains(errs, filepath.Join(archives, "notes.zip")+": not an archive") ||
			!strings.Contains(errs, "1 of 4 archives rejected (notes.zip): nothing published") {
			t.Fatalf("%s --from (a rejected archive) = %d\n%s%s", args[0], code, out, errs)
		}
		if _, err := os.Stat(other); !os.IsNotExist(err) {
			t.Fatalf("%s --from with a rejected archive wrote %s", args[0], other)
		}
	}
}
