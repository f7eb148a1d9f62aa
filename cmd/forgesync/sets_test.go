package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"aead.dev/minisign"

	"github.com/mjolnir-forge/forgesync/cmd/forgesync/cli"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// TestLockExportDiff installs two packs, exports the enabled set (signed),
// and compares the machine with it as it changes.
func TestLockExportDiff(t *testing.T) {
	config, drop, _ := gameEnv(t)
	os.MkdirAll(drop, 0o755)
	for _, id := range []string{"foundry-wide", "lockout-gates"} {
		if code, out, errs := runCLI(t, "pack", "../../inventory/render/testdata/companions/"+id, "-o", filepath.Join(drop, id+".zip")); code != cli.ExitOK {
			t.Fatalf("pack %s = %d\n%s%s", id, code, out, errs)
		}
	}
	if code, out, errs := runCLI(t, "sync", "--config", config); code != cli.ExitOK {
		t.Fatalf("sync = %d\n%s%s", code, out, errs)
	}

	code, out, errs := runCLI(t, "lock", "--config", config, "--name", "league")
	if code != cli.ExitOK {
		t.Fatalf("lock = %d\n%s", code, errs)
	}
	l, err := lock.Decode("stdout", []byte(out), lock.DecodeOptions{})
	if err != nil || len(l.Packs) != 2 || l.Name != "league" || !strings.HasPrefix(l.Packs[0].URLs[0], "packs/") || !strings.HasSuffix(l.Packs[0].URLs[0], ".zip") {
		t.Fatalf("lock printed %v\n%s", err, out)
	}

	pub, priv, _ := minisign.GenerateKey(nil)
	keyText, _ := priv.MarshalText()
	keyPath := filepath.Join(t.TempDir(), "host.key")
	os.WriteFile(keyPath, keyText, 0o600)
	dir := filepath.Join(t.TempDir(), "published")
	if code, out, errs := runCLI(t, "export", dir, "--sign", keyPath, "--config", config); code != cli.ExitOK || !strings.Contains(out, "signed by key "+lock.KeyID(pub.ID())) {
		t.Fatalf("export = %d\n%s%s", code, out, errs)
	}
	for _, p := range l.Packs {
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(p.URLs[0]))); err != nil {
			t.Errorf("export lacks %s: %v", p.URLs[0], err)
		}
	}

	code, out, errs = runCLI(t, "diff", dir, "--config", config)
	if code != cli.ExitOK || !strings.Contains(out, "the machine equals the set (2 packs)") || !strings.Contains(out, "signed by key "+lock.KeyID(pub.ID())+" (not checked") {
		t.Fatalf("diff (equal) = %d\n%s%s", code, out, errs)
	}

	// Trusted keys: the right key verifies, another refuses (exit 2).
	trusted := func(k minisign.PublicKey) string {
		c := filepath.Join(filepath.Dir(config), "trusted.toml")
		text, _ := os.ReadFile(config)
		os.WriteFile(c, append(text, []byte("[sets]\ntrusted_keys = [\""+k.String()+"\"]\n")...), 0o644)
		return c
	}
	if code, out, errs := runCLI(t, "diff", dir, "--config", trusted(pub)); code != cli.ExitOK || !strings.Contains(out, "signed by trusted key") {
		t.Fatalf("diff (trusted) = %d\n%s%s", code, out, errs)
	}
	other, _, _ := minisign.GenerateKey(nil)
	if code, _, errs := runCLI(t, "diff", dir, "--config", trusted(other)); code != cli.ExitFailure || !strings.Contains(errs, "not one of the trusted keys") {
		t.Fatalf("diff (untrusted) = %d\n%s", code, errs)
	}

	// Disable one pack: the machine differs, over HTTP too.
	if code, _, errs := runCLI(t, "disable", "lockout-gates", "--config", config); code != cli.ExitOK {
		t.Fatalf("disable = %d %s", code, errs)
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer srv.Close()
	code, out, errs = runCLI(t, "diff", srv.URL+"/", "--config", config, "--json")
	var rep struct {
		Equal       bool `json:"equal"`
		Differences []struct {
			Kind string `json:"kind"`
			ID   string `json:"id"`
		} `json:"differences"`
		Signature struct {
			State string `json:"state"`
		} `json:"signature"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != cli.ExitInvalid || rep.Equal || len(rep.Differences) != 1 ||
		rep.Differences[0].Kind != "disabled" || rep.Differences[0].ID != "lockout-gates" || rep.Signature.State != "unverified" {
		t.Fatalf("diff --json (disabled) = %d %v\n%s%s", code, err, out, errs)
	}
	code, out, _ = runCLI(t, "diff", dir, "--config", config)
	if code != cli.ExitInvalid || !strings.Contains(out, "lockout-gates: installed but disabled") {
		t.Fatalf("diff (disabled) = %d\n%s", code, out)
	}

	// Could not tell: exit 2.
	if code, _, errs := runCLI(t, "diff", filepath.Join(dir, "none.lock"), "--config", config); code != cli.ExitFailure {
		t.Fatalf("diff (missing lock) = %d %s", code, errs)
	}
	os.WriteFile(filepath.Join(dir, lock.LockName), []byte("format = \"forgepacks-lock\"\nversion = 7\n"), 0o644)
	if code, _, errs := runCLI(t, "diff", dir, "--config", config); code != cli.ExitFailure || !strings.Contains(errs, ":2: version") {
		t.Fatalf("diff (bad lock) = %d %s", code, errs)
	}
	// --sign without -o is refused.
	if code, _, _ := runCLI(t, "lock", "--sign", keyPath, "--config", config); code != cli.ExitFailure {
		t.Fatalf("lock --sign without -o = %d", code)
	}
}
