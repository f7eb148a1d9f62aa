package main

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"aead.dev/minisign"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/cmd/forgesync/cli"
	"github.com/mjolnir-forge/forgesync/internal/registrytest"
	"github.com/mjolnir-forge/forgesync/sets/lock"
	"github.com/mjolnir-forge/forgesync/sets/oci"
)

// registryEnv points the CLI's registry credentials at reg's account and
// at an empty Docker config.
func registryEnv(t *testing.T, reg *registrytest.Registry) {
	t.Setenv("DOCKER_CONFIG", t.TempDir())
	t.Setenv(oci.EnvUsername, reg.User)
	t.Setenv(oci.EnvPassword, reg.Password)
}

// pinnedRef returns the last line of export's output: the digest
// reference.
func pinnedRef(t *testing.T, out string) string {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	last := lines[len(lines)-1]
	if !strings.HasPrefix(last, "oci://") || !strings.Contains(last, "@sha256:") {
		t.Fatalf("export printed %q last; want the digest reference", last)
	}
	return last
}

// blobRequests sorts what a proxy answered: GETs of blobs, and bytes
// uploaded to blob paths.
func blobRequests(reqs []registrytest.Request) (gets int, uploaded int64) {
	for _, r := range reqs {
		if !strings.Contains(r.Path, "/blobs/") {
			continue
		}
		if r.Method == http.MethodGet && r.Status == http.StatusOK {
			gets++
		}
		uploaded += r.Uploaded
	}
	return gets, uploaded
}

// answered drops the token flow: the 401 challenges and the token
// requests.
func answered(reqs []registrytest.Request) []registrytest.Request {
	var out []registrytest.Request
	for _, r := range reqs {
		if r.Status != http.StatusUnauthorized && r.Path != registrytest.TokenPath {
			out = append(out, r)
		}
	}
	return out
}

// TestOCIExportSync: export pushes a signed set to a registry with token
// auth; a fresh machine reaches its exact fingerprint by tag and by
// digest; an unchanged re-push uploads no blob byte; an unchanged re-check
// is one request; a moved tag brings only the new archive.
func TestOCIExportSync(t *testing.T) {
	fastFetch(t)
	reg := registrytest.Start(t, registrytest.Options{Auth: registrytest.AuthToken})
	proxy := registrytest.NewProxy(t, reg)
	registryEnv(t, reg)
	tag := "oci://" + proxy.Ref("league/packs", "live")

	host, drop, _ := gameEnv(t)
	doorPack(t, drop, "alpha-gates", "1.0.0", 2)
	doorPack(t, drop, "beta-gates", "1.0.0", 1)
	if code, out, errs := runCLI(t, "sync", "--config", host); code != cli.ExitOK {
		t.Fatalf("host sync = %d\n%s%s", code, out, errs)
	}
	pub, priv, _ := minisign.GenerateKey(nil)
	keyText, _ := priv.MarshalText()
	keyPath := filepath.Join(t.TempDir(), "host.key")
	os.WriteFile(keyPath, keyText, 0o600)
	want := machineFingerprint(t, host)

	code, out, errs := runCLI(t, "export", tag, "--sign", keyPath, "--name", "League", "--config", host)
	if code != cli.ExitOK || !strings.Contains(out, "pushed "+tag+": 2 packs, "+want) || !strings.Contains(out, "signed by key "+lock.KeyID(pub.ID())) ||
		!strings.Contains(out, "uploaded 4 blobs") {
		t.Fatalf("export %s = %d\n%s%s", tag, code, out, errs)
	}
	pinned := pinnedRef(t, out)
	if strings.Contains(out+errs, reg.Password) {
		t.Fatalf("export printed the registry password:\n%s%s", out, errs)
	}

	// Unchanged: no blob byte goes up, and the digest is the same.
	proxy.ResetRequests()
	code, out, errs = runCLI(t, "export", tag, "--sign", keyPath, "--name", "League", "--config", host)
	if code != cli.ExitOK || !strings.Contains(out, "uploaded 0 blobs (0 bytes); 4 were in the registry already") || pinnedRef(t, out) != pinned {
		t.Fatalf("export again = %d\n%s%s; want nothing uploaded and the same digest %s", code, out, errs, pinned)
	}
	if _, up := blobRequests(proxy.Requests()); up != 0 {
		t.Errorf("an unchanged re-export uploaded %d blob bytes; want 0", up)
	}

	// A fresh machine that trusts the key reaches the set's fingerprint.
	player, _, _ := gameEnv(t)
	appendConfig(t, player, "[sets]\ntrusted_keys = ['"+pub.String()+"']\n")
	proxy.ResetRequests()
	code, out, errs = runCLI(t, "sync", "--set", tag, "--config", player)
	if code != cli.ExitOK || !strings.Contains(out, "the machine now equals the set "+want) {
		t.Fatalf("sync --set %s = %d\n%s%s", tag, code, out, errs)
	}
	if got := machineFingerprint(t, player); got != want {
		t.Fatalf("machine = %s; want %s", got, want)
	}
	if gets, _ := blobRequests(proxy.Requests()); gets != 4 { // lock, signature, two archives
		t.Errorf("first sync fetched %d blobs; want 4", gets)
	}
	code, out, errs = runCLI(t, "diff", tag, "--config", player)
	if code != cli.ExitOK || !strings.Contains(out, "the machine equals the set (2 packs)") || !strings.Contains(out, "signed by trusted key "+lock.KeyID(pub.ID())) {
		t.Fatalf("diff %s = %d\n%s%s", tag, code, out, errs)
	}

	// Unchanged re-check: one request, nothing downloaded or published.
	proxy.ResetRequests()
	code, out, errs = runCLI(t, "sync", "--set", tag, "--config", player, "--json")
	var res api.SetSyncResult
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != cli.ExitOK {
		t.Fatalf("second sync --set = %d %v\n%s%s", code, err, out, errs)
	}
	// A new process meets the token challenge first (401, then the token
	// server); the daemon keeps its token between checks.
	if reqs := answered(proxy.Requests()); len(reqs) != 1 || reqs[0].Method != http.MethodHead || !strings.HasSuffix(reqs[0].Path, "/manifests/live") {
		t.Errorf("an unchanged re-check made %+v; want one HEAD of the manifest", reqs)
	}
	if !res.Check.NotModified || res.Check.Result != api.CheckEqual || len(res.Downloaded) != 0 || len(res.Summary.Published) != 0 {
		t.Errorf("second sync = %+v; want not modified, equal, nothing downloaded or published", res)
	}

	// By digest, on another fresh machine.
	other, _, _ := gameEnv(t)
	if code, out, errs := runCLI(t, "sync", "--set", pinned, "--config", other); code != cli.ExitOK || machineFingerprint(t, other) != want {
		t.Fatalf("sync --set %s = %d\n%s%s", pinned, code, out, errs)
	}

	// The tag moves to a set with one more pack: only its archive comes.
	doorPack(t, drop, "gamma-gates", "1.0.0", 1)
	if code, out, errs := runCLI(t, "sync", "--config", host); code != cli.ExitOK {
		t.Fatalf("host sync = %d\n%s%s", code, out, errs)
	}
	next := machineFingerprint(t, host)
	code, out, errs = runCLI(t, "export", tag, "--sign", keyPath, "--config", host)
	if code != cli.ExitOK || !strings.Contains(out, "uploaded 3 blobs") || pinnedRef(t, out) == pinned {
		t.Fatalf("export (moved) = %d\n%s%s; want the lock, its signature and one archive uploaded", code, out, errs)
	}
	proxy.ResetRequests()
	code, out, errs = runCLI(t, "sync", "--set", tag, "--config", player)
	if code != cli.ExitOK || !strings.Contains(out, "installed gamma-gates 1.0.0") || machineFingerprint(t, player) != next {
		t.Fatalf("sync --set (moved tag) = %d\n%s%s", code, out, errs)
	}
	if gets, _ := blobRequests(proxy.Requests()); gets != 3 { // lock, signature, gamma's archive
		t.Errorf("the moved tag fetched %d blobs; want 3", gets)
	}

	// Unsigned at another tag: refused by the machine that trusts a key.
	unsigned := "oci://" + proxy.Ref("league/packs", "unsigned")
	if code, out, errs := runCLI(t, "export", unsigned, "--config", host); code != cli.ExitOK {
		t.Fatalf("export unsigned = %d\n%s%s", code, out, errs)
	}
	before := machineFingerprint(t, player)
	code, out, errs = runCLI(t, "sync", "--set", unsigned, "--config", player)
	if code == cli.ExitOK || !strings.Contains(errs, "signature") || machineFingerprint(t, player) != before {
		t.Fatalf("sync --set unsigned = %d\n%s%s; want it refused and nothing changed", code, out, errs)
	}
}

// TestOCIOrasInterop: what export pushes, `oras pull` writes as the folder
// export DIR writes (a machine syncs from that folder), and a set pushed
// with plain `oras push` from an exported folder syncs by its tag.
func TestOCIOrasInterop(t *testing.T) {
	oras := registrytest.Oras(t)
	fastFetch(t)
	reg := registrytest.Start(t, registrytest.Options{})
	t.Setenv("DOCKER_CONFIG", t.TempDir())
	t.Setenv(oci.EnvUsername, "")
	t.Setenv(oci.EnvPassword, "")

	host, drop, _ := gameEnv(t)
	doorPack(t, drop, "alpha-gates", "1.0.0", 2)
	doorPack(t, drop, "beta-gates", "1.0.0", 1)
	if code, out, errs := runCLI(t, "sync", "--config", host); code != cli.ExitOK {
		t.Fatalf("host sync = %d\n%s%s", code, out, errs)
	}
	want := machineFingerprint(t, host)
	if code, out, errs := runCLI(t, "export", "oci://"+reg.Ref("league/packs", "live"), "--config", host); code != cli.ExitOK {
		t.Fatalf("export = %d\n%s%s", code, out, errs)
	}
	pulled := t.TempDir()
	cmd := exec.Command(oras, "pull", "--plain-http", "-o", pulled, reg.Ref("league/packs", "live"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("oras pull: %v\n%s", err, out)
	}
	player, _, _ := gameEnv(t)
	if code, out, errs := runCLI(t, "sync", "--set", pulled, "--config", player); code != cli.ExitOK || machineFingerprint(t, player) != want {
		t.Fatalf("sync --set (the folder oras pulled) = %d\n%s%s", code, out, errs)
	}

	exported := filepath.Join(t.TempDir(), "site")
	if code, out, errs := runCLI(t, "export", exported, "--config", host); code != cli.ExitOK {
		t.Fatalf("export DIR = %d\n%s%s", code, out, errs)
	}
	args := []string{"push", "--plain-http", "--artifact-type", oci.ArtifactType, reg.Ref("hand/packs", "v1"), lock.LockName}
	archives, _ := filepath.Glob(filepath.Join(exported, "packs", "*"))
	for _, a := range archives {
		rel, _ := filepath.Rel(exported, a)
		args = append(args, filepath.ToSlash(rel))
	}
	cmd = exec.Command(oras, args...)
	cmd.Dir = exported
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("oras push: %v\n%s", err, out)
	}
	other, _, _ := gameEnv(t)
	if code, out, errs := runCLI(t, "sync", "--set", "oci://"+reg.Ref("hand/packs", "v1"), "--config", other); code != cli.ExitOK || machineFingerprint(t, other) != want {
		t.Fatalf("sync --set (oras push) = %d\n%s%s", code, out, errs)
	}
}

// TestDaemonFollowsOCI: a daemon with [sets] source = oci://…:live reaches
// the set at start through the token flow, checks an unchanged tag with
// one request (it keeps its token), follows the tag when it moves, and
// never shows the registry password in its log, events or status.
func TestDaemonFollowsOCI(t *testing.T) {
	reg := registrytest.Start(t, registrytest.Options{Auth: registrytest.AuthToken})
	proxy := registrytest.NewProxy(t, reg)
	registryEnv(t, reg) // the daemon inherits the environment
	tag := "oci://" + proxy.Ref("league/packs", "live")

	host, drop, _ := gameEnv(t)
	doorPack(t, drop, "alpha-gates", "1.0.0", 2)
	if code, out, errs := runCLI(t, "sync", "--config", host); code != cli.ExitOK {
		t.Fatalf("host sync = %d\n%s%s", code, out, errs)
	}
	want := machineFingerprint(t, host)
	if code, out, errs := runCLI(t, "export", tag, "--config", host); code != cli.ExitOK {
		t.Fatalf("export = %d\n%s%s", code, out, errs)
	}

	g := newGame(t)
	appendConfig(t, g.config, "[sets]\nsource = \""+tag+"\"\ninterval = \"1h\"\n")
	p := g.start(t)
	ev := g.follow(t)
	all := ev.wait(t, 30*time.Second, "the set applied", func(all []api.Event) bool { return count(all, api.EventSetChecked) >= 1 })
	hc, _ := socketClient(g.sock)
	var info api.SetInfo
	if err := json.Unmarshal(expect(t, hc, http.MethodGet, "/v1/set", "", http.StatusOK), &info); err != nil || info.Fingerprint != want || info.Source != tag {
		t.Fatalf("GET /v1/set = %+v, %v; want %s from %s\n%s", info, err, want, tag, describe(all))
	}

	proxy.ResetRequests()
	var res api.SetSyncResult
	if err := json.Unmarshal(expect(t, hc, http.MethodPost, "/v1/set/check", "", http.StatusOK), &res); err != nil || !res.Check.NotModified {
		t.Fatalf("POST /v1/set/check = %+v, %v; want not modified", res, err)
	}
	if reqs := proxy.Requests(); len(reqs) != 1 || reqs[0].Method != http.MethodHead {
		t.Errorf("the daemon's unchanged check made %+v; want one HEAD of the manifest", reqs)
	}

	doorPack(t, drop, "beta-gates", "1.0.0", 1)
	if code, out, errs := runCLI(t, "sync", "--config", host); code != cli.ExitOK {
		t.Fatalf("host sync = %d\n%s%s", code, out, errs)
	}
	next := machineFingerprint(t, host)
	if code, out, errs := runCLI(t, "export", tag, "--config", host); code != cli.ExitOK {
		t.Fatalf("export (moved) = %d\n%s%s", code, out, errs)
	}
	if err := json.Unmarshal(expect(t, hc, http.MethodPost, "/v1/set/check", "", http.StatusOK), &res); err != nil || res.Check.Result != api.CheckApplied || res.Check.Fingerprint != next {
		t.Fatalf("POST /v1/set/check (moved tag) = %+v, %v; want %s applied", res, err, next)
	}
	status := expect(t, hc, http.MethodGet, "/v1/status", "", http.StatusOK)
	for what, text := range map[string]string{"log": p.logs.String(), "events": describe(ev.snapshot()), "status": string(status)} {
		if strings.Contains(text, reg.Password) {
			t.Errorf("the daemon's %s holds the registry password", what)
		}
	}
}

// TestOCIExportUnsignedWarns: export oci:// without --sign from a config
// that trusts keys warns that such machines refuse the set; with --sign it
// does not.
func TestOCIExportUnsignedWarns(t *testing.T) {
	reg := registrytest.Start(t, registrytest.Options{})
	registryEnv(t, reg)
	tag := "oci://" + reg.Ref("league/packs", "live")
	host, drop, _ := gameEnv(t)
	doorPack(t, drop, "alpha-gates", "1.0.0", 1)
	if code, out, errs := runCLI(t, "sync", "--config", host); code != cli.ExitOK {
		t.Fatalf("host sync = %d\n%s%s", code, out, errs)
	}
	pub, priv, _ := minisign.GenerateKey(nil)
	keyText, _ := priv.MarshalText()
	keyPath := filepath.Join(t.TempDir(), "host.key")
	os.WriteFile(keyPath, keyText, 0o600)
	appendConfig(t, host, "[sets]\ntrusted_keys = ['"+pub.String()+"']\n")
	const warning = "warning: the set is not signed, and this config trusts keys ([sets] trusted_keys in " // …
	code, out, errs := runCLI(t, "export", tag, "--config", host)
	if code != cli.ExitOK || !strings.Contains(errs, "forgesync export: "+warning+host) || !strings.Contains(errs, "add --sign KEY") {
		t.Fatalf("export %s without --sign = %d\n%s%s; want the warning naming %s", tag, code, out, errs, host)
	}
	if code, out, errs := runCLI(t, "export", tag, "--sign", keyPath, "--config", host); code != cli.ExitOK || strings.Contains(errs, "warning") {
		t.Fatalf("export %s --sign = %d\n%s%s; want no warning", tag, code, out, errs)
	}
}
