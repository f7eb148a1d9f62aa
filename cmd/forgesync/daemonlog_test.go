package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/cmd/forgesync/cli"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// TestDaemonLogsChanges: the daemon's log holds one INFO line for each
// change to the installed set: a followed set applied (its source and
// fingerprint) and each pack it installed, a delta rebuild with the bytes
// taken from the seed and fetched, the upgrade, a rollback and a disable.
// A first install, which has nothing to seed from, is not logged as a
// delta update that could not be used.
func TestDaemonLogsChanges(t *testing.T) {
	fastFetch(t)
	const size = 1 << 20
	v1 := bigPak(1, size)
	v2 := slices.Concat(v1[:size/2], bigPak(2, size/16), v1[size/2:])
	host, hostDrop, _ := gameEnv(t)
	storedPackZip(t, filepath.Join(hostDrop, "delta-pack.zip"), "delta-pack", "1.0.0", v1)
	site := filepath.Join(t.TempDir(), "site")
	for _, args := range [][]string{{"sync"}, {"export", site}} {
		if code, out, errs := runCLI(t, append(args, "--config", host)...); code != cli.ExitOK {
			t.Fatalf("host %s = %d\n%s%s", args[0], code, out, errs)
		}
	}
	first := machineFingerprint(t, host)
	srv := httptest.NewServer(http.FileServer(http.Dir(site)))
	defer srv.Close()

	g := newGame(t)
	appendConfig(t, g.config, "[sets]\nsource = \""+srv.URL+"/\"\ninterval = \"1h\"\n")
	d := g.start(t)
	log := d.logs.waitFor(t, 30*time.Second,
		[]string{"level=INFO", `msg="pack set applied"`, "fingerprint=" + first, "cause=set"},
		[]string{"level=INFO", `msg="pack installed"`, "pack=delta-pack", "version=1.0.0"},
		[]string{"level=INFO", `msg="pack set applied from its source"`, "source=" + srv.URL + "/" + lock.LockName, "fingerprint=" + first})
	if strings.Contains(log, "could not be used") || !logHas(log, "no earlier version of the pack", "pack=delta-pack") {
		t.Fatalf("the first install is logged as a delta that could not be used, or not as a first download:\n%s", log)
	}

	// v2, exported into the same folder: a delta rebuild from v1.
	os.Remove(filepath.Join(hostDrop, "delta-pack.zip"))
	storedPackZip(t, filepath.Join(hostDrop, "delta-pack-2.zip"), "delta-pack", "2.0.0", v2)
	for _, args := range [][]string{{"sync"}, {"export", site, "--prune"}} {
		if code, out, errs := runCLI(t, append(args, "--config", host)...); code != cli.ExitOK {
			t.Fatalf("host %s v2 = %d\n%s%s", args[0], code, out, errs)
		}
	}
	later := time.Now().Add(2 * time.Second) // see TestSyncSetDelta
	os.Chtimes(filepath.Join(site, lock.LockName), later, later)
	hc, _ := socketClient(g.sock)
	expect(t, hc, http.MethodPost, "/v1/set/check", "", http.StatusOK)
	d.logs.waitFor(t, 30*time.Second,
		[]string{"level=INFO", `msg="archive rebuilt from chunks"`, "pack=delta-pack", "version=2.0.0", "seed_bytes=", "fetched_bytes="},
		[]string{"level=INFO", `msg="pack upgraded"`, "pack=delta-pack", "version=2.0.0", "previous=1.0.0", "generation=2"})

	// A check with nothing new (a 304) keeps the last download's figures.
	expect(t, hc, http.MethodPost, "/v1/set/check", "", http.StatusOK)
	var st api.Status
	if err := json.Unmarshal(expect(t, hc, http.MethodGet, "/v1/status", "", http.StatusOK), &st); err != nil || st.Set == nil ||
		st.Set.LastCheck == nil || !st.Set.LastCheck.NotModified || st.Set.LastDownload == nil || st.Set.LastDownload.Delta == nil ||
		st.Set.LastDownload.Delta.FetchedBytes == 0 {
		t.Fatalf("status.set after a 304 = %+v, %v; want the last download's delta figures kept", st.Set, err)
	}
	code, out, errs := runCLI(t, "status", "--config", g.config)
	if code != cli.ExitOK || !strings.Contains(out, "(not modified)\n  last download: ") || !strings.Contains(out, "    delta updates: fetched ") {
		t.Fatalf("status after a 304 = %d\n%s%s; want the last download's figures", code, out, errs)
	}

	// A rollback and a disable, through the daemon.
	if code, out, errs := runCLI(t, "rollback", "--config", g.config); code != cli.ExitOK {
		t.Fatalf("rollback = %d\n%s%s", code, out, errs)
	}
	if code, out, errs := runCLI(t, "disable", "delta-pack", "--config", g.config); code != cli.ExitOK {
		t.Fatalf("disable = %d\n%s%s", code, out, errs)
	}
	d.logs.waitFor(t, 30*time.Second,
		[]string{"level=INFO", `msg="rolled back"`, "to_generation=1", "fingerprint=" + first, "generation=3"},
		[]string{"level=INFO", `msg="pack downgraded"`, "pack=delta-pack", "version=1.0.0", "cause=rollback"},
		[]string{"level=INFO", `msg="pack disabled"`, "pack=delta-pack", "generation=4", "cause=disable"})
}
