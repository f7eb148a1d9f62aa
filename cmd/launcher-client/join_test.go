package main

import (
	"bytes"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"aead.dev/minisign"

	"github.com/mjolnir-forge/forgesync/cmd/launcher-client/forgesyncapi"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// forgesync runs the forgesync binary and fails the test unless it exits 0.
func forgesync(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.CommandContext(t.Context(), filepath.Join(bin, "forgesync"), args...).CombinedOutput()
	if err != nil {
		t.Fatalf("forgesync %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// signedExample publishes the example pack name as a set signed by a new
// key, as a host does (sync, then export --sign), and returns the folder,
// the set's fingerprint and the key.
func signedExample(t *testing.T, name string) (string, string, minisign.PublicKey) {
	t.Helper()
	host := &daemon{root: t.TempDir()}
	host.drop = filepath.Join(host.root, "mods", "MJOLNIRForgePacks", "drop")
	os.MkdirAll(host.drop, 0o755)
	cfg := filepath.Join(host.root, "f.toml")
	os.WriteFile(cfg, []byte("[paths]\nmods = \"mods\"\npaks = \"paks\"\nstate = \"state\"\n[deploy]\nnative = false\n"), 0o644)
	host.dropExample(t, name)
	forgesync(t, "sync", "--config", cfg)
	pub, priv, err := minisign.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	keyText, _ := priv.MarshalText()
	keyPath := filepath.Join(t.TempDir(), "host.key")
	os.WriteFile(keyPath, keyText, 0o600)
	dir := filepath.Join(t.TempDir(), "site")
	forgesync(t, "export", dir, "--sign", keyPath, "--config", cfg)
	data, err := os.ReadFile(filepath.Join(dir, lock.LockName))
	if err != nil {
		t.Fatal(err)
	}
	l, err := lock.Decode("lock", data, lock.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return dir, l.Fingerprint(), pub
}

// enabledPacks returns the ids of the daemon's enabled packs.
func enabledPacks(t *testing.T, c *forgesyncapi.ClientWithResponses) []string {
	t.Helper()
	r, err := c.ListPacksWithResponse(t.Context())
	if err != nil || r.JSON200 == nil {
		t.Fatalf("GET /v1/packs = %v, %v", r, err)
	}
	var ids []string
	for _, p := range r.JSON200.Packs {
		if p.Enabled {
			ids = append(ids, p.Id)
		}
	}
	slices.Sort(ids)
	return ids
}

// TestExampleJoins runs the example's join flow against a live daemon: a
// server's signed set is refused until the player trusts its key, then
// staged and applied (-join on the socket); joining again finds it
// current; with the server gone, -leave (on the TCP API with its key)
// switches back to the player's own pack and -join switches to the staged
// set once more, with no network.
func TestExampleJoins(t *testing.T) {
	site, fp, key := signedExample(t, "foundry-wide")
	srv := httptest.NewServer(http.FileServer(http.Dir(site)))
	defer srv.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	d := startDaemonWith(t, "[api]\nlisten = \""+addr+"\"\n")
	d.dropExample(t, "glass-works")
	c, err := newClient(d.sock, "", "")
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); !slices.Equal(enabledPacks(t, c), []string{"glass-works"}); {
		if time.Now().After(deadline) {
			t.Fatal("glass-works not installed after 30 s")
		}
		c.SyncWithResponse(t.Context(), forgesyncapi.SyncJSONRequestBody{})
	}
	apiKey, err := os.ReadFile(filepath.Join(d.root, "state", "api-key"))
	if err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, string, error) {
		var stdout, stderr bytes.Buffer
		cmd := exec.CommandContext(t.Context(), filepath.Join(bin, "launcher-client"), args...)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		return stdout.String(), stderr.String(), err
	}
	socket := []string{"-socket", d.sock}
	tcp := []string{"-url", "http://" + addr, "-key", strings.TrimSpace(string(apiKey))}
	join := []string{"-join", srv.URL + "/", "-fingerprint", fp}

	out, errs, err := run(slices.Concat(socket, join)...)
	if err == nil || !strings.Contains(errs, "409") || !strings.Contains(errs, "signed by key "+lock.KeyID(key.ID())) {
		t.Fatalf("-join without -trust = %v\n%s%s; want refused, naming the key", err, out, errs)
	}
	out, errs, err = run(slices.Concat(socket, join, []string{"-trust", key.String()})...)
	if err != nil || !strings.Contains(out, "staged "+fp+" as profile ") || !strings.Contains(out, "switched to "+fp) {
		t.Fatalf("-join -trust = %v\n%s%s", err, out, errs)
	}
	if got := enabledPacks(t, c); !slices.Equal(got, []string{"foundry-wide"}) {
		t.Errorf("after the join, packs %v; want foundry-wide", got)
	}
	if out, errs, err = run(slices.Concat(socket, join)...); err != nil || out != "the machine has the set "+fp+": join\n" {
		t.Errorf("-join again = %v\n%s%s; want it current", err, out, errs)
	}

	srv.Close()
	if out, errs, err = run(slices.Concat(tcp, []string{"-leave"})...); err != nil || out != "switched back to profile own\n" {
		t.Fatalf("-leave on the TCP API = %v\n%s%s", err, out, errs)
	}
	if got := enabledPacks(t, c); !slices.Equal(got, []string{"glass-works"}) {
		t.Errorf("after leaving, packs %v; want the player's glass-works", got)
	}
	out, errs, err = run(slices.Concat(tcp, join)...)
	if err != nil || strings.Contains(out, "staged") || !strings.Contains(out, "switched to "+fp) {
		t.Fatalf("-join on the TCP API, the server gone = %v\n%s%s; want the staged set switched to", err, out, errs)
	}
	if got := enabledPacks(t, c); !slices.Equal(got, []string{"foundry-wide"}) {
		t.Errorf("after joining again, packs %v; want foundry-wide", got)
	}
}

// TestTypeScriptJoins runs the TypeScript example's join flow against a
// live daemon on its socket: staged with the trusted key and applied, then
// --leave back to the player's pack and --join again with the server gone.
func TestTypeScriptJoins(t *testing.T) {
	needTypeScript(t)
	buildTypeScript(t)
	site, fp, key := signedExample(t, "foundry-wide")
	srv := httptest.NewServer(http.FileServer(http.Dir(site)))
	defer srv.Close()
	d := startDaemon(t)
	d.dropExample(t, "glass-works")
	c, err := newClient(d.sock, "", "")
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); !slices.Equal(enabledPacks(t, c), []string{"glass-works"}); {
		if time.Now().After(deadline) {
			t.Fatal("glass-works not installed after 30 s")
		}
		c.SyncWithResponse(t.Context(), forgesyncapi.SyncJSONRequestBody{})
	}
	join := []string{"build/launcher.js", "--socket", d.sock, "--join", srv.URL + "/", "--fingerprint", fp}
	out, errs, err := node(t, append(join, "--trust", key.String())...)
	if err != nil || !strings.Contains(out, "staged "+fp+" as profile ") || !strings.Contains(out, "switched to "+fp) || !strings.Contains(out, "0 downloads: join") {
		t.Fatalf("node launcher.js --join --trust = %v\n%s%s", err, out, errs)
	}
	if got := enabledPacks(t, c); !slices.Equal(got, []string{"foundry-wide"}) {
		t.Errorf("after the join, packs %v; want foundry-wide", got)
	}
	srv.Close()
	if out, errs, err = node(t, "build/launcher.js", "--socket", d.sock, "--leave"); err != nil || out != "switched back to profile own\n" {
		t.Fatalf("node launcher.js --leave = %v\n%s%s", err, out, errs)
	}
	if got := enabledPacks(t, c); !slices.Equal(got, []string{"glass-works"}) {
		t.Errorf("after leaving, packs %v; want glass-works", got)
	}
	if out, errs, err = node(t, join...); err != nil || strings.Contains(out, "staged") || !strings.Contains(out, "switched to "+fp) {
		t.Fatalf("node launcher.js --join, the server gone = %v\n%s%s", err, out, errs)
	}
}
