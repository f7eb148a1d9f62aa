package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"io/fs"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/cmd/forgesync/cli"
	"github.com/mjolnir-forge/forgesync/internal/registrytest"
)

// installedView returns what the game sees of a machine: the SHA-256 of
// every file under its paks folder and of every file forgesync publishes
// in its inventory folder (the drop folder left out), by path.
func installedView(t *testing.T, paks, inv string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for label, root := range map[string]string{"paks": paks, "inventory": inv} {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() && d.Name() == "drop" && root == inv {
				return filepath.SkipDir
			}
			if !d.Type().IsRegular() {
				return nil
			}
			data, _ := os.ReadFile(p)
			sum := sha256.Sum256(data)
			rel, _ := filepath.Rel(root, p)
			out[label+"/"+filepath.ToSlash(rel)] = hex.EncodeToString(sum[:])
			return nil
		})
	}
	return out
}

// viewOfConfig is installedView of a machine gameEnv laid out.
func viewOfConfig(t *testing.T, config string) map[string]string {
	root := filepath.Join(filepath.Dir(config), "game")
	return installedView(t, filepath.Join(root, "Paks"), filepath.Join(root, "Mods", "MJOLNIRForgePacks"))
}

// sameView fails the test when got is not want, naming the files.
func sameView(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	if len(want) == 0 {
		t.Fatalf("%s: the reference machine has no files", what)
	}
	if maps.Equal(got, want) {
		return
	}
	for p, sum := range want {
		if got[p] != sum {
			t.Errorf("%s: %s is %q; a machine that installed the set directly has %q", what, p, got[p], sum)
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			t.Errorf("%s: %s is there; a machine that installed the set directly has none", what, p)
		}
	}
}

// tcpCall sends one request to the TCP API at addr, with key as its
// bearer when set, and returns the status and body.
func tcpCall(t *testing.T, c *http.Client, addr, key, method, path, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, "http://"+addr+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// contentHost makes a host with door packs (id: doors) and packs whose
// content lands in the paks folder (id: bytes) installed, and returns its
// config.
func contentHost(t *testing.T, doors, content map[string]int) string {
	t.Helper()
	config, drop, _ := gameEnv(t)
	for id, n := range doors {
		doorPack(t, drop, id, "1.0.0", n)
	}
	for id, n := range content {
		if err := os.WriteFile(filepath.Join(drop, id+".zip"), packZip(t, id, "1.0.0", n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if code, out, errs := runCLI(t, "sync", "--config", config); code != cli.ExitOK {
		t.Fatalf("host sync = %d\n%s%s", code, out, errs)
	}
	return config
}

// ociSet exports a new host's packs to a registry reached through a proxy
// the caller may close (the registry "goes away"); it returns the tag's
// reference, the set's fingerprint and the proxy.
func ociSet(t *testing.T, name string, doors, content map[string]int) (string, string, *httptest.Server) {
	t.Helper()
	reg := registrytest.Start(t, registrytest.Options{})
	target, _ := url.Parse(reg.URL)
	proxy := httptest.NewServer(httputil.NewSingleHostReverseProxy(target))
	t.Cleanup(proxy.Close)
	t.Setenv("DOCKER_CONFIG", t.TempDir())
	host := contentHost(t, doors, content)
	ref := "oci://" + strings.TrimPrefix(proxy.URL, "http://") + "/league/packs:live"
	if code, out, errs := runCLI(t, "export", ref, "--name", name, "--config", host); code != cli.ExitOK {
		t.Fatalf("export %s = %d\n%s%s", ref, code, out, errs)
	}
	return ref, machineFingerprint(t, host), proxy
}

// stageAnswer decodes a stage's answer, failing the test on another
// status.
func stageAnswer(t *testing.T, what string, status int, body []byte) api.SetStageResult {
	t.Helper()
	var res api.SetStageResult
	if status != http.StatusOK || json.Unmarshal(body, &res) != nil {
		t.Fatalf("%s = %d %s; want 200 and the stage's result", what, status, body)
	}
	return res
}

// TestJoinFlow is issue 38's join flow end to end on a running daemon,
// through the socket and the TCP API: a player with packs of their own
// stages a set served over HTTP and one in an OCI registry (the server
// list's check says neither, then staged; nothing installed changes), both
// servers stop, and the player joins A, then B, leaves to their own packs
// and joins A again, each by fingerprint with no network: every time the
// paks and inventory files equal a machine that installed that set
// directly.
func TestJoinFlow(t *testing.T) {
	fastFetch(t)
	hostA := contentHost(t, map[string]int{"alpha-gates": 2, "beta-gates": 1}, map[string]int{"deck-a": 3000, "deck-shared": 2000})
	dirA := filepath.Join(t.TempDir(), "published")
	if code, out, errs := runCLI(t, "export", dirA, "--config", hostA); code != cli.ExitOK {
		t.Fatalf("export A = %d\n%s%s", code, out, errs)
	}
	fpA := machineFingerprint(t, hostA)
	srvA := httptest.NewServer(http.FileServer(http.Dir(dirA)))
	defer srvA.Close()
	refB, fpB, proxyB := ociSet(t, "League B", map[string]int{"alpha-gates": 2, "gamma-gates": 3}, map[string]int{"deck-b": 5000, "deck-shared": 2000})

	// Machines that installed each set directly.
	directA, _, _ := gameEnv(t)
	directB, _, _ := gameEnv(t)
	for cfg, src := range map[string]string{directA: dirA, directB: refB} {
		if code, out, errs := runCLI(t, "sync", "--set", src, "--config", cfg); code != cli.ExitOK {
			t.Fatalf("sync --set %s = %d\n%s%s", src, code, out, errs)
		}
	}
	wantA, wantB := viewOfConfig(t, directA), viewOfConfig(t, directB)
	for _, want := range []map[string]string{wantA, wantB} {
		if !slices.ContainsFunc(slices.Collect(maps.Keys(want)), func(p string) bool { return strings.HasPrefix(p, "paks/") }) {
			t.Fatalf("the direct install has no file under paks: %v", want)
		}
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	g := newGame(t)
	appendConfig(t, g.config, "[api]\nlisten = \""+addr+"\"\n")
	g.start(t)
	ev := g.follow(t)
	c, _ := socketClient(g.sock)
	g.dropFile(t, "hand-pack.zip", packZip(t, "hand-pack", "1.0.0", 1000))
	untilPacks(t, c, "hand-pack")
	own := installedView(t, filepath.Join(g.root, "paks"), g.inv)
	view := func() map[string]string { return installedView(t, filepath.Join(g.root, "paks"), g.inv) }
	ownFP := machineFingerprint(t, g.config)
	keyData, err := os.ReadFile(filepath.Join(g.state, "api-key"))
	if err != nil {
		t.Fatal(err)
	}
	key := strings.TrimSpace(string(keyData))
	tcp := &http.Client{Timeout: 60 * time.Second}

	// The server list: neither set is on the machine.
	var check api.SetFingerprintCheck
	json.Unmarshal(expect(t, c, http.MethodGet, "/v1/set/check?fingerprint="+fpA, "", http.StatusOK), &check)
	if check.Current || check.Staged || check.Profile != "" || check.Fingerprint != fpA {
		t.Fatalf("GET /v1/set/check (A, before) = %+v; want neither current nor staged", check)
	}
	expect(t, c, http.MethodGet, "/v1/set/check?fingerprint=sha256:nothex", "", http.StatusBadRequest)

	// Hover: A staged on the socket, B on the TCP API with its key.
	status, body := call(t, c, http.MethodPost, "/v1/set/stage", `{"url":"`+srvA.URL+`/","as":"league-a"}`)
	stA := stageAnswer(t, "POST /v1/set/stage (A, socket)", status, body)
	if stA.Name != "league-a" || stA.Fingerprint != fpA || stA.Bytes == 0 || len(stA.Downloaded) != 4 {
		t.Errorf("stage A = %+v; want profile league-a, %s, 4 archives fetched", stA, fpA)
	}
	if status, body := tcpCall(t, tcp, addr, "", http.MethodPost, "/v1/set/stage", `{"url":"`+refB+`"}`); status != http.StatusUnauthorized {
		t.Errorf("POST /v1/set/stage on the TCP API without the key = %d %s; want 401", status, body)
	}
	status, body = tcpCall(t, tcp, addr, key, http.MethodPost, "/v1/set/stage", `{"url":"`+refB+`"}`)
	stB := stageAnswer(t, "POST /v1/set/stage (B, TCP)", status, body)
	// alpha-gates and deck-shared are A's archives, kept: only B's own come.
	if stB.Name != "League-B" || stB.Fingerprint != fpB || len(stB.Downloaded) != 2 {
		t.Errorf("stage B = %+v; want profile League-B (the set's name), %s, 2 archives fetched", stB, fpB)
	}
	sameView(t, "after staging", view(), own)
	status, body = tcpCall(t, tcp, addr, key, http.MethodGet, "/v1/set/check?fingerprint="+fpB, "")
	if status != http.StatusOK || json.Unmarshal(body, &check) != nil || !check.Staged || check.Current || check.Profile != "League-B" {
		t.Fatalf("GET /v1/set/check (B, staged) = %d %s; want staged as League-B", status, body)
	}
	staged := ev.wait(t, 30*time.Second, "two set-staged events", func(all []api.Event) bool { return count(all, api.EventSetStaged) == 2 })
	for _, e := range staged {
		if e.Type == api.EventSetStaged && !bytes.Contains(e.Data, []byte(`"fingerprint":"`+fpA+`"`)) && !bytes.Contains(e.Data, []byte(`"fingerprint":"`+fpB+`"`)) {
			t.Errorf("set-staged %s names neither set", e.Data)
		}
	}

	// The servers go away: every join from here on needs no network.
	srvA.Close()
	proxyB.Close()
	join := func(what, fp string, tcpAPI bool, want map[string]string) {
		t.Helper()
		body := `{"fingerprint":"` + fp + `"}`
		var status int
		var answer []byte
		if tcpAPI {
			status, answer = tcpCall(t, tcp, addr, key, http.MethodPost, "/v1/set/apply", body)
		} else {
			status, answer = call(t, c, http.MethodPost, "/v1/set/apply", body)
		}
		var res api.SetSyncResult
		if status != http.StatusOK || json.Unmarshal(answer, &res) != nil || len(res.Downloaded) != 0 {
			t.Fatalf("%s: POST /v1/set/apply {fingerprint} = %d %s; want 200, nothing downloaded", what, status, answer)
		}
		sameView(t, what, view(), want)
	}
	join("join A (socket)", fpA, false, wantA)
	join("join B (TCP)", fpB, true, wantB)
	join("leave to own (socket)", ownFP, false, own)
	join("join A again (TCP)", fpA, true, wantA)
	expect(t, c, http.MethodPost, "/v1/set/apply", `{"fingerprint":"sha256:`+strings.Repeat("0", 64)+`"}`, http.StatusNotFound)
	expect(t, c, http.MethodPost, "/v1/set/apply", `{"fingerprint":"`+fpA+`","prune":true}`, http.StatusBadRequest)
	switched := ev.wait(t, 30*time.Second, "four profile switches", func(all []api.Event) bool { return count(all, api.EventProfileSwitched) >= 4 })
	t.Logf("%d events, %d profile switches", len(switched), count(switched, api.EventProfileSwitched))
}
