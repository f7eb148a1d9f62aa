package main

import (
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"aead.dev/minisign"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/cmd/forgesync/cli"
	"github.com/mjolnir-forge/forgesync/pipeline"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// signedSet exports the packs (id: doors) of a new host into a folder,
// signed by a new key; it returns the folder, the set's fingerprint and
// the key.
func signedSet(t *testing.T, name string, packs map[string]int) (string, string, minisign.PublicKey) {
	t.Helper()
	host := hostWith(t, packs)
	pub, priv, err := minisign.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	keyText, _ := priv.MarshalText()
	keyPath := filepath.Join(t.TempDir(), "host.key")
	os.WriteFile(keyPath, keyText, 0o600)
	dir := filepath.Join(t.TempDir(), "published")
	if code, out, errs := runCLI(t, "export", dir, "--sign", keyPath, "--name", name, "--config", host); code != cli.ExitOK {
		t.Fatalf("export = %d\n%s%s", code, out, errs)
	}
	return dir, machineFingerprint(t, host), pub
}

// archiveGets returns the requests of a counter that fetched an archive.
func archiveGets(reqs []string) []string {
	var out []string
	for _, r := range reqs {
		if strings.HasPrefix(r, "GET /packs/") {
			out = append(out, r)
		}
	}
	return out
}

// profileNames returns the profiles kept in a machine's state folder, by
// name, with their fingerprints.
func profileNames(t *testing.T, config string) map[string]string {
	t.Helper()
	list, err := pipeline.ReadProfiles(filepath.Join(filepath.Dir(config), "state"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, p := range list.Profiles {
		out[p.Name] = p.Fingerprint
	}
	return out
}

// TestStageTrust: a set signed by a key outside trusted_keys is refused,
// naming the key and what to do, with no archive downloaded and nothing
// installed or recorded; named with --key it is staged, nothing installed
// changing; a named key that did not sign it is refused naming both. A
// machine without trusted_keys stages a signed set only when its key is
// named too.
func TestStageTrust(t *testing.T) {
	fastFetch(t)
	dir, want, signer := signedSet(t, "League season 3", map[string]int{"alpha-gates": 2, "beta-gates": 1})
	var c counter
	srv := httptest.NewServer(c.wrap(http.FileServer(http.Dir(dir))))
	defer srv.Close()
	other, _, _ := minisign.GenerateKey(nil)

	player, drop, _ := gameEnv(t)
	doorPack(t, drop, "hand-gates", "1.0.0", 1)
	if code, out, errs := runCLI(t, "sync", "--config", player); code != cli.ExitOK {
		t.Fatalf("sync = %d\n%s%s", code, out, errs)
	}
	appendConfig(t, player, "[sets]\ntrusted_keys = ['"+other.String()+"']\n")
	before, beforeProfiles := gameTree(t, player), profileNames(t, player)

	signerID := lock.KeyID(signer.ID())
	code, out, errs := runCLI(t, "stage", srv.URL+"/", "--config", player)
	if code != cli.ExitInvalid || !strings.Contains(errs, "signed by key "+signerID+", which is not in [sets] trusted_keys") ||
		!strings.Contains(errs, "forgesync stage --key RW") {
		t.Fatalf("stage (untrusted key) = %d\n%s%s; want 1, naming key %s and --key", code, out, errs, signerID)
	}
	if got := archiveGets(c.take()); len(got) != 0 {
		t.Errorf("a refused stage downloaded %q", got)
	}
	if !maps.Equal(gameTree(t, player), before) || !maps.Equal(profileNames(t, player), beforeProfiles) {
		t.Errorf("a refused stage changed the machine or its profiles: %v", profileNames(t, player))
	}

	code, out, errs = runCLI(t, "stage", srv.URL+"/", "--key", other.String(), "--config", player)
	if code != cli.ExitInvalid || !strings.Contains(errs, "the stage names key "+lock.KeyID(other.ID())) || !strings.Contains(errs, signerID) {
		t.Fatalf("stage --key (not the signer) = %d\n%s%s; want 1, naming both keys", code, out, errs)
	}

	code, out, errs = runCLI(t, "stage", srv.URL+"/", "--key", signer.String(), "--config", player)
	if code != cli.ExitOK || !strings.Contains(out, "staged as profile League-season-3") || !strings.Contains(out, "signed by key "+signerID) {
		t.Fatalf("stage --key (the signer) = %d\n%s%s", code, out, errs)
	}
	if got := archiveGets(c.take()); len(got) != 2 {
		t.Errorf("the stage downloaded %q; want the 2 archives", got)
	}
	if !maps.Equal(gameTree(t, player), before) {
		t.Errorf("staging changed the installed files")
	}
	if got := profileNames(t, player)["League-season-3"]; got != want {
		t.Errorf("profiles %v; want League-season-3 with %s", profileNames(t, player), want)
	}

	// An unsigned set on a machine that trusts keys: refused, as sync --set
	// refuses it.
	unsigned, _ := publishedSet(t, map[string]int{"gamma-gates": 1})
	usrv := httptest.NewServer(http.FileServer(http.Dir(unsigned)))
	defer usrv.Close()
	if code, out, errs := runCLI(t, "stage", usrv.URL+"/", "--as", "unsigned", "--config", player); code != cli.ExitInvalid || !strings.Contains(errs, "not signed") {
		t.Errorf("stage of an unsigned set with trusted_keys = %d\n%s%s; want 1, saying it is not signed", code, out, errs)
	}

	// Without trusted_keys the signature is still the stage's business.
	fresh, _, _ := gameEnv(t)
	code, out, errs = runCLI(t, "stage", srv.URL+"/", "--as", "league", "--config", fresh)
	if code != cli.ExitInvalid || !strings.Contains(errs, "signed by key "+signerID) {
		t.Fatalf("stage (no trusted_keys) = %d\n%s%s; want it refused unless the key is named", code, out, errs)
	}
	if code, out, errs := runCLI(t, "stage", srv.URL+"/", "--as", "league", "--key", signer.String(), "--config", fresh, "--json"); code != cli.ExitOK {
		t.Fatalf("stage --key (no trusted_keys) = %d\n%s%s", code, out, errs)
	} else {
		var res api.SetStageResult
		if err := json.Unmarshal([]byte(out), &res); err != nil || res.Name != "league" || res.Fingerprint != want || res.SignedBy != signerID {
			t.Errorf("stage --json = %s (%v); want profile league, %s, signed by %s", out, err, want, signerID)
		}
	}
}

// TestStageMaxBytes: a stage whose archives still to fetch exceed [sets]
// max_stage_bytes is refused before any archive is requested, saying both
// sizes; what the machine keeps does not count, so the same bound admits
// a set of which it lacks only a small part.
func TestStageMaxBytes(t *testing.T) {
	fastFetch(t)
	dir, _ := publishedSet(t, map[string]int{"alpha-gates": 40, "beta-gates": 1})
	data, _ := os.ReadFile(filepath.Join(dir, lock.LockName))
	l, err := lock.Decode("lock", data, lock.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sizes := map[string]int64{}
	for _, p := range l.Packs {
		sizes[p.ID] = p.Size
	}
	total := sizes["alpha-gates"] + sizes["beta-gates"]
	limit := sizes["beta-gates"] + 1 // the whole set is over it; beta alone is not
	var c counter
	srv := httptest.NewServer(c.wrap(http.FileServer(http.Dir(dir))))
	defer srv.Close()

	player, drop, _ := gameEnv(t)
	appendConfig(t, player, "[sets]\nmax_stage_bytes = "+strconv.FormatInt(limit, 10)+"\n")
	code, out, errs := runCLI(t, "stage", srv.URL+"/", "--as", "league", "--config", player)
	// Both figures, in bytes.
	if code != cli.ExitInvalid || !strings.Contains(errs, "("+strconv.FormatInt(total, 10)+" bytes) of archives this machine does not have") ||
		!strings.Contains(errs, "over [sets] max_stage_bytes of "+strconv.FormatInt(limit, 10)+" bytes") {
		t.Fatalf("stage over the bound = %d\n%s%s; want 1 with %d and %d bytes", code, out, errs, total, limit)
	}
	reqs := c.take()
	if got := archiveGets(reqs); len(got) != 0 {
		t.Errorf("a stage over the bound requested archives: %q", got)
	}
	t.Logf("refused with %d requests, none for an archive: %q", len(reqs), reqs)
	if _, ok := profileNames(t, player)["league"]; ok {
		t.Errorf("a refused stage recorded its profile")
	}

	// The machine installs alpha-gates by hand (the same archive): only
	// beta-gates is left to fetch, and that fits.
	alpha := filepath.Join(t.TempDir(), "alpha.zip")
	doorPack(t, filepath.Dir(alpha), "alpha-gates", "1.0.0", 40)
	os.Rename(filepath.Join(filepath.Dir(alpha), "alpha-gates-1.0.0.zip"), filepath.Join(drop, "alpha-gates-1.0.0.zip"))
	if code, out, errs := runCLI(t, "sync", "--config", player); code != cli.ExitOK {
		t.Fatalf("sync = %d\n%s%s", code, out, errs)
	}
	code, out, errs = runCLI(t, "stage", srv.URL+"/", "--as", "league", "--config", player, "--json")
	var res api.SetStageResult
	if code != cli.ExitOK || json.Unmarshal([]byte(out), &res) != nil || res.Bytes != sizes["beta-gates"] || res.SetBytes != total {
		t.Fatalf("stage of a set mostly kept = %d\n%s%s; want %d bytes fetched of %d", code, out, errs, sizes["beta-gates"], total)
	}
	if got := archiveGets(c.take()); len(got) != 1 || !slices.ContainsFunc(got, func(r string) bool {
		return strings.Contains(r, l.Packs[1].SHA256) || strings.Contains(r, l.Packs[0].SHA256)
	}) {
		t.Errorf("the stage fetched %q; want beta-gates' archive only", got)
	}
}

// TestStageDeltaFetchesWhatDiffEstimates is issue 38's measurement: a
// machine follows a pack through two versions (the second rebuilt from
// chunks, so it keeps that archive's chunk index, which `diff` compares
// against); the host upgrades it once more (1/32 of its .pak inserted, 1/16
// overwritten) and exports; `diff` estimates the bytes a delta update
// fetches, and `stage` of the new set fetches exactly that many chunk bytes
// (no whole archive), leaving the installed set as it was. The figures are
// logged.
func TestStageDeltaFetchesWhatDiffEstimates(t *testing.T) {
	fastFetch(t)
	const size = 2 << 20
	v0 := bigPak(1, size)
	v1 := slices.Concat(v0[:size/8], bigPak(5, 4096), v0[size/8:])
	v2 := slices.Concat(v1[:size/4], bigPak(2, size/32), v1[size/4:])
	copy(v2[size/2:], bigPak(3, size/16))

	host, hostDrop, _ := gameEnv(t)
	doorPack(t, hostDrop, "alpha-gates", "1.0.0", 2)
	machine, _, _ := gameEnv(t)
	var c servedCounter
	// publish makes version v of delta-pack the host's, exports the set to
	// a folder of its own and serves it.
	publish := func(v string, pak []byte) string {
		t.Helper()
		matches, _ := filepath.Glob(filepath.Join(hostDrop, "delta-pack*.zip"))
		for _, m := range matches {
			os.Remove(m)
		}
		storedPackZip(t, filepath.Join(hostDrop, "delta-pack-"+v+".zip"), "delta-pack", v, pak)
		if code, out, errs := runCLI(t, "sync", "--config", host); code != cli.ExitOK {
			t.Fatalf("host sync %s = %d\n%s%s", v, code, out, errs)
		}
		site := filepath.Join(t.TempDir(), "site")
		if code, out, errs := runCLI(t, "export", site, "--config", host); code != cli.ExitOK {
			t.Fatalf("export %s = %d\n%s%s", v, code, out, errs)
		}
		srv := httptest.NewServer(c.handler(site))
		t.Cleanup(srv.Close)
		return srv.URL + "/"
	}
	if code, out, errs := runCLI(t, "sync", "--set", publish("1.0.0", v0), "--config", machine); code != cli.ExitOK {
		t.Fatalf("sync --set 1.0.0 = %d\n%s%s", code, out, errs)
	}
	if code, out, errs := runCLI(t, "sync", "--set", publish("1.1.0", v1), "--config", machine); code != cli.ExitOK || !strings.Contains(out, "rebuilt delta-pack from chunks") {
		t.Fatalf("sync --set 1.1.0 = %d\n%s%s; want it rebuilt from chunks", code, out, errs)
	}
	before := gameTree(t, machine)
	next := publish("2.0.0", v2)

	code, out, errs := runCLI(t, "diff", next, "--config", machine, "--json")
	var rep struct {
		Transfers []struct {
			ID    string `json:"id"`
			Size  int64  `json:"size"`
			Fetch int64  `json:"fetch"`
		} `json:"transfers"`
	}
	if code != cli.ExitInvalid || json.Unmarshal([]byte(out), &rep) != nil || len(rep.Transfers) != 1 || rep.Transfers[0].ID != "delta-pack" {
		t.Fatalf("diff --json = %d\n%s%s; want one estimated transfer, delta-pack's", code, out, errs)
	}
	est := rep.Transfers[0]
	c.take()

	code, out, errs = runCLI(t, "stage", next, "--as", "next", "--config", machine, "--json")
	var res api.SetStageResult
	if code != cli.ExitOK || json.Unmarshal([]byte(out), &res) != nil || len(res.Downloaded) != 1 || res.Downloaded[0].Delta == nil {
		t.Fatalf("stage 2.0.0 = %d\n%s%s; want delta-pack rebuilt from chunks", code, out, errs)
	}
	d := res.Downloaded[0].Delta
	paths, served := c.take()
	for _, p := range paths {
		if strings.HasSuffix(p, ".zip") {
			t.Errorf("the stage downloaded an archive whole: %s", p)
		}
	}
	t.Logf("delta-pack 1.1.0 → 2.0.0, a %d-byte archive: diff estimated %d bytes to fetch; the stage fetched %d chunk bytes (%d on the wire; %d bytes served in %d requests with the lock), %d bytes from the installed 1.1.0",
		est.Size, est.Fetch, d.FetchedBytes, d.WireBytes, served, len(paths), d.SeedBytes)
	if d.FetchedBytes != est.Fetch || d.SeedBytes+d.FetchedBytes != est.Size {
		t.Errorf("the stage fetched %d chunk bytes (%d from seeds); diff estimated %d of %d", d.FetchedBytes, d.SeedBytes, est.Fetch, est.Size)
	}
	if res.Bytes != d.WireBytes || res.Bytes > est.Size/4 {
		t.Errorf("the stage says it fetched %d bytes; want the chunks' %d on the wire, a fraction of the %d-byte archive", res.Bytes, d.WireBytes, est.Size)
	}
	if !maps.Equal(gameTree(t, machine), before) {
		t.Errorf("staging changed the installed files")
	}
}
