package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"aead.dev/minisign"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/cmd/forgesync/cli"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// copyFolder copies an exported folder (files and subfolders).
func copyFolder(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// exportedLock reads the lock an export wrote into dir.
func exportedLock(t *testing.T, dir string) *lock.Lock {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, lock.LockName))
	if err != nil {
		t.Fatal(err)
	}
	l, err := lock.Decode(dir, data, lock.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestFollowerRefusesReplayedAndFrozenSets: the attack of issue 35 item
// 11 end to end. A host exports a signed set, then a newer one to the same
// folder (a higher serial); a daemon follows it. A mirror that serves the
// first signed lock again (a replay) is refused, nothing changes, and
// `status` says why, naming both serials; a signed lock past its expires
// is refused (a freeze); `export --expires 3d` sets an expiry that status
// and `diff` warn of; a lock without serial or expires still applies on a
// fresh machine.
func TestFollowerRefusesReplayedAndFrozenSets(t *testing.T) {
	fastFetch(t)
	pub, priv, err := minisign.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	keyText, _ := priv.MarshalText()
	key := filepath.Join(t.TempDir(), "host.key")
	if err := os.WriteFile(key, keyText, 0o600); err != nil {
		t.Fatal(err)
	}
	host, drop, _ := gameEnv(t)
	site, old := filepath.Join(t.TempDir(), "site"), filepath.Join(t.TempDir(), "old")
	export := func(args ...string) {
		t.Helper()
		if code, out, errs := runCLI(t, append([]string{"export", site, "--sign", key, "--config", host}, args...)...); code != cli.ExitOK {
			t.Fatalf("export %s = %d\n%s%s", args, code, out, errs)
		}
	}
	doorPack(t, drop, "alpha-gates", "1.0.0", 1)
	if code, out, errs := runCLI(t, "sync", "--config", host); code != cli.ExitOK {
		t.Fatalf("host sync = %d\n%s%s", code, out, errs)
	}
	export()
	copyFolder(t, site, old) // what a mirror keeps of last month's set
	first := exportedLock(t, site)
	doorPack(t, drop, "beta-gates", "1.0.0", 1)
	if code, out, errs := runCLI(t, "sync", "--config", host); code != cli.ExitOK {
		t.Fatalf("host sync = %d\n%s%s", code, out, errs)
	}
	export()
	second := exportedLock(t, site)
	if first.Serial <= 0 || second.Serial <= first.Serial {
		t.Fatalf("export wrote serials %d then %d; want them growing", first.Serial, second.Serial)
	}

	var root atomic.Value // the folder the mirror serves
	root.Store(site)
	served := 0
	serve := func(dir string) {
		// Last-Modified has whole seconds: each lock served is dated
		// after the last, as a mirror serving it anew would.
		served++
		later := time.Now().Add(time.Duration(served) * 10 * time.Second)
		os.Chtimes(filepath.Join(dir, lock.LockName), later, later)
		root.Store(dir)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.FileServer(http.Dir(root.Load().(string))).ServeHTTP(w, r)
	}))
	defer srv.Close()
	g := newGame(t)
	appendConfig(t, g.config, fmt.Sprintf("[sets]\nsource = %q\ninterval = \"1h\"\ntrusted_keys = [%q]\n", srv.URL+"/", pub.String()))
	g.start(t)
	ev := g.follow(t)
	ev.wait(t, 30*time.Second, "the set applied", func(all []api.Event) bool { return count(all, api.EventSetChecked) >= 1 })
	hc, _ := socketClient(g.sock)
	status := func() api.Status {
		t.Helper()
		var st api.Status
		if err := json.Unmarshal(expect(t, hc, http.MethodGet, "/v1/status", "", http.StatusOK), &st); err != nil || st.Set == nil {
			t.Fatalf("GET /v1/status = %+v, %v", st, err)
		}
		return st
	}
	if st := status(); st.Set.Machine != second.Fingerprint() || st.Set.Serial != second.Serial {
		t.Fatalf("status.set = %+v; want the second set %s, serial %d", st.Set, second.Fingerprint(), second.Serial)
	}

	// The replay: last month's signed lock, served again.
	serve(old)
	replay := fmt.Sprintf("serial %d is lower than serial %d", first.Serial, second.Serial)
	if body := expect(t, hc, http.MethodPost, "/v1/set/check", "", http.StatusBadRequest); !strings.Contains(string(body), replay) {
		t.Fatalf("POST /v1/set/check (a replay) = %s; want it refused: %s", body, replay)
	}
	if st := status(); st.Set.Machine != second.Fingerprint() || st.Set.Fingerprint != second.Fingerprint() || st.Set.LastCheck.Result != api.CheckFailed {
		t.Fatalf("after the replay status.set = %+v; want the second set kept and the check failed", st.Set)
	}
	code, out, errs := runCLI(t, "status", "--config", g.config)
	if code != cli.ExitOK || !strings.Contains(out, "failed: pack set refused: ") || !strings.Contains(out, replay) {
		t.Fatalf("status after a replay = %d\n%s%s; want the last check failed: …%s", code, out, errs, replay)
	}

	// The freeze: the second set, signed again with a serial above and an
	// expiry an hour ago.
	frozen := filepath.Join(t.TempDir(), "frozen")
	copyFolder(t, site, frozen)
	l := exportedLock(t, site)
	l.Serial, l.Expires = second.Serial+1, time.Now().Add(-time.Hour).UTC().Truncate(time.Second)
	if _, err := lock.WriteLock(filepath.Join(frozen, lock.LockName), l, &priv); err != nil {
		t.Fatal(err)
	}
	serve(frozen)
	if body := expect(t, hc, http.MethodPost, "/v1/set/check", "", http.StatusBadRequest); !strings.Contains(string(body), "it expired at "+l.Expires.Format(time.RFC3339)) {
		t.Fatalf("POST /v1/set/check (expired) = %s; want it refused as expired", body)
	}

	// export --expires 3d: the same packs, a new serial, an expiry that
	// status and diff warn of.
	export("--expires", "3d")
	third := exportedLock(t, site)
	if third.Serial <= second.Serial || third.Expires.Before(time.Now().Add(71*time.Hour)) || third.Expires.After(time.Now().Add(73*time.Hour)) {
		t.Fatalf("export --expires 3d wrote serial %d, expires %s; want a serial above %d, expiring in 3 days", third.Serial, third.Expires, second.Serial)
	}
	serve(site)
	expect(t, hc, http.MethodPost, "/v1/set/check", "", http.StatusOK)
	warned := func(ws []string) bool {
		return slices.ContainsFunc(ws, func(w string) bool {
			return strings.Contains(w, "the pack set expires at "+third.Expires.Format(time.RFC3339))
		})
	}
	if st := status(); st.Set.Serial != third.Serial || st.Set.Expires == nil || !st.Set.Expires.Equal(third.Expires) || !warned(st.Warnings) {
		t.Errorf("status.set = %+v, warnings %q; want serial %d, expires %s, and a warning of it", st.Set, st.Warnings, third.Serial, third.Expires)
	}
	code, out, errs = runCLI(t, "diff", srv.URL+"/", "--config", g.config)
	if code != cli.ExitOK || !strings.Contains(out, "warning: the pack set expires at "+third.Expires.Format(time.RFC3339)) {
		t.Errorf("diff = %d\n%s%s; want a warning that the set expires", code, out, errs)
	}

	// A lock without serial or expires (an older export) still applies on
	// a machine that never had one from its source.
	legacy := filepath.Join(t.TempDir(), "legacy")
	copyFolder(t, old, legacy)
	l = exportedLock(t, old)
	l.Serial = 0
	if _, err := lock.WriteLock(filepath.Join(legacy, lock.LockName), l, &priv); err != nil {
		t.Fatal(err)
	}
	player, _, _ := gameEnv(t)
	if code, out, errs := runCLI(t, "sync", "--set", legacy, "--config", player); code != cli.ExitOK || machineFingerprint(t, player) != first.Fingerprint() {
		t.Fatalf("sync --set (a lock without serial) = %d\n%s%s; want %s applied", code, out, errs, first.Fingerprint())
	}
}
