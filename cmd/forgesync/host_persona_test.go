package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/cmd/forgesync/cli"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// TestHostPersona plays a server host's first hour as typed: keygen,
// export --sign of a machine with the example packs, a real HTTP server,
// a second machine that syncs the set with the trusted_keys line keygen
// printed (after mistyping the folder's URL without its slash), then an
// upgrade published with export --prune and synced from [sets] source; the
// same set published from a folder of archives without a game; a server
// pinned by hand to the first set that stays pinned.
func TestHostPersona(t *testing.T) {
	fastFetch(t)
	noTerminal(t)
	keys := filepath.Join(t.TempDir(), "keys")
	code, out, errs := runCLI(t, "keygen", "-o", keys, "--no-password")
	if code != cli.ExitOK || errs != "" {
		t.Fatalf("keygen = %d\n%s%s", code, out, errs)
	}
	secret := filepath.Join(keys, "forgesync.key")
	trusted := keyLineOf(out)
	if !strings.HasPrefix(trusted, `trusted_keys = ["RW`) || !strings.HasSuffix(trusted, `"]`) {
		t.Fatalf("keygen printed no trusted_keys line:\n%s", out)
	}

	// The host installs the example packs.
	hostConfig, drop, _ := gameEnv(t)
	os.MkdirAll(drop, 0o755)
	for _, id := range []string{"foundry-wide", "lockout-gates"} {
		if code, out, errs := runCLI(t, "pack", filepath.Join("examples", id), "-o", filepath.Join(drop, id+".zip")); code != cli.ExitOK {
			t.Fatalf("pack %s = %d\n%s%s", id, code, out, errs)
		}
	}
	if code, out, errs := runCLI(t, "sync", "--config", hostConfig); code != cli.ExitOK {
		t.Fatalf("host sync = %d\n%s%s", code, out, errs)
	}
	site := filepath.Join(t.TempDir(), "site")
	code, out, errs = runCLI(t, "export", site, "--sign", secret, "--config", hostConfig)
	lockPath := filepath.Join(site, lock.LockName)
	fp := machineFingerprint(t, hostConfig)
	pub, err := os.ReadFile(filepath.Join(keys, "forgesync.pub"))
	if err != nil {
		t.Fatal(err)
	}
	pk, err := lock.ParsePublicKey(string(pub))
	if err != nil {
		t.Fatal(err)
	}
	keyID := lock.KeyID(pk.ID())
	want := "wrote " + lockPath + ": 2 packs, " + fp + "\nsigned by key " + keyID + " (" + lockPath + ".minisig)\n"
	if code != cli.ExitOK || out != want {
		t.Fatalf("export --sign = %d\n%s%s\nwant\n%s", code, out, errs, want)
	}

	srv := httptest.NewServer(http.FileServer(http.Dir(filepath.Dir(site))))
	defer srv.Close()
	folder := srv.URL + "/site"

	// A server trusts the key and mistypes the folder's URL.
	config, _, _ := gameEnv(t)
	appendConfig(t, config, "[sets]\n"+trusted+"\n")
	code, out, errs = runCLI(t, "sync", "--set", folder, "--config", config)
	wantErr := "forgesync sync --set: pack set refused: " + folder + " answered an HTML page, not a lock: the folder's URL needs its trailing slash, " + folder + "/\n"
	if code != cli.ExitFailure || errs != wantErr {
		t.Fatalf("sync --set (no slash) = %d\n%s%s\nwant 2 and\n%s", code, out, errs, wantErr)
	}
	code, out, errs = runCLI(t, "sync", "--set", folder+"/", "--config", config)
	if code != cli.ExitOK || !strings.Contains(out, "installed foundry-wide 1.4.0") || !strings.Contains(out, "installed lockout-gates 0.3.1") ||
		!strings.Contains(out, "the machine now equals the set "+fp) {
		t.Fatalf("sync --set = %d\n%s%s", code, out, errs)
	}

	// The host upgrades lockout-gates and publishes, pruning the old archive.
	next := copyDir(t, filepath.Join("examples", "lockout-gates"))
	manifest := filepath.Join(next, "forgepack.json")
	data, _ := os.ReadFile(manifest)
	os.WriteFile(manifest, []byte(strings.Replace(string(data), `"version": "0.3.1"`, `"version": "0.4.0"`, 1)), 0o644)
	if code, out, errs := runCLI(t, "pack", next, "-o", filepath.Join(drop, "lockout-gates-0.4.0.zip")); code != cli.ExitOK {
		t.Fatalf("pack 0.4.0 = %d\n%s%s", code, out, errs)
	}
	if code, out, errs := runCLI(t, "sync", "--config", hostConfig); code != cli.ExitOK || !strings.Contains(out, "lockout-gates 0.4.0") {
		t.Fatalf("host sync (upgrade) = %d\n%s%s", code, out, errs)
	}
	// The first set's lock, kept to go back to it by hand later.
	pinned := filepath.Join(t.TempDir(), lock.LockName)
	for _, ext := range []string{"", ".minisig"} {
		data, _ := os.ReadFile(lockPath + ext)
		os.WriteFile(pinned+ext, data, 0o644)
	}
	before := archiveNames(t, filepath.Join(site, "packs"))
	code, out, errs = runCLI(t, "export", site, "--sign", secret, "--prune", "--config", hostConfig)
	fp2 := machineFingerprint(t, hostConfig)
	l := readLock(t, lockPath)
	var gone string
	for _, n := range before {
		if !strings.HasPrefix(n, l.Packs[0].SHA256) && !strings.HasPrefix(n, l.Packs[1].SHA256) {
			gone = n
		}
	}
	want = "wrote " + lockPath + ": 2 packs, " + fp2 + "\nsigned by key " + keyID + " (" + lockPath + ".minisig)\nremoved 1 archive the set no longer pins: " + gone + "\n" +
		"removed 1 chunk index the set no longer pins: " + gone[:min(64, len(gone))] + ".caibx\n"
	if code != cli.ExitOK || gone == "" || out != want {
		t.Fatalf("export --prune = %d\n%s%s\nwant\n%s", code, out, errs, want)
	}
	if after := archiveNames(t, filepath.Join(site, "packs")); len(after) != 2 {
		t.Errorf("packs/ after --prune = %v; want the 2 pinned archives", after)
	}
	// Last-Modified has whole seconds: date the new lock after the old.
	later := time.Now().Add(5 * time.Second)
	os.Chtimes(lockPath, later, later)

	// The server follows the folder now: sync --set alone syncs it.
	appendConfig(t, config, "source = '"+folder+"/'\n")
	code, out, errs = runCLI(t, "sync", "--set", "--config", config)
	if code != cli.ExitOK || !strings.Contains(out, "upgraded lockout-gates 0.3.1 → 0.4.0") || !strings.Contains(out, "the machine now equals the set "+fp2) {
		t.Fatalf("sync --set (configured source, upgrade) = %d\n%s%s", code, out, errs)
	}
	if got := machineFingerprint(t, config); got != fp2 {
		t.Errorf("server fingerprint %s; want the host's %s", got, fp2)
	}

	// A host without a game or a config publishes the same set from a
	// folder of the same archives.
	noConfigFound(t)
	fromFolder := filepath.Join(t.TempDir(), "site")
	code, out, errs = runCLI(t, "export", fromFolder, "--from", archivesDir(t), "--sign", secret)
	if code != cli.ExitOK || !strings.Contains(out, ": 2 packs, "+fp2+"\nsigned by key "+keyID) {
		t.Fatalf("export --from a folder of archives = %d\n%s%s; want the set %s", code, out, errs, fp2)
	}
	pinnedServerStaysPinned(t, config, pinned, folder+"/", fp, fp2)
}

// pinnedServerStaysPinned: a server following folder goes back by hand to
// the first set (its lock kept at pinned): following pauses, its daemon's
// start-up check leaves the set, a check asked for is refused, status
// says how to resume, and sync --set --follow brings the followed set back.
func pinnedServerStaysPinned(t *testing.T, config, pinned, folder, first, followed string) {
	code, out, errs := runCLI(t, "sync", "--set", pinned, "--config", config)
	if code != cli.ExitOK || !strings.Contains(out, "the machine now equals the set "+first) {
		t.Fatalf("sync --set %s (by hand) = %d\n%s%s", pinned, code, out, errs)
	}
	root := filepath.Dir(config)
	g := &game{root: root, config: config, state: filepath.Join(root, "state"), sock: filepath.Join(root, "state", "forgesync.sock")}
	d := g.start(t)
	d.logs.waitFor(t, 30*time.Second, []string{`msg="pack set not checked: following is paused"`, "source=" + folder})
	hc, _ := socketClient(g.sock)
	expect(t, hc, http.MethodPost, "/v1/set/check", "", http.StatusConflict)
	code, out, errs = runCLI(t, "status", "--config", config)
	if code != cli.ExitOK || !strings.Contains(out, "applied by hand; following paused") ||
		!strings.Contains(out, "following "+folder+lock.LockName+" is paused since") || !strings.Contains(out, "forgesync sync --set --follow") {
		t.Fatalf("status (pinned) = %d\n%s%s", code, out, errs)
	}
	if got := machineFingerprint(t, config); got != first {
		t.Fatalf("the pinned server is at %s; want the set applied by hand, %s", got, first)
	}
	code, out, errs = runCLI(t, "sync", "--set", "--follow", "--config", config)
	if code != cli.ExitOK || !strings.Contains(out, "the machine now equals the set "+followed) {
		t.Fatalf("sync --set --follow = %d\n%s%s", code, out, errs)
	}
}

func readLock(t *testing.T, path string) *lock.Lock {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	l, err := lock.Decode("lock", data, lock.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return l
}
