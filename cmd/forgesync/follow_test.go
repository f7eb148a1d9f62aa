package main

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/cmd/forgesync/cli"
	"github.com/mjolnir-forge/forgesync/daemon"
	"github.com/mjolnir-forge/forgesync/internal/errkind"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// TestDaemonFollowsSet: a daemon with [sets] source reaches the set at
// start (download and set-applied events), serves it on /v1/set; a pack
// dropped by hand still installs and status says how the machine now
// differs; a check with nothing new costs one 304 and changes nothing;
// sync --set goes through the daemon and makes the machine exact again.
func TestDaemonFollowsSet(t *testing.T) {
	dir, want := publishedSet(t, map[string]int{"alpha-gates": 2, "beta-gates": 1})
	var c counter
	srv := httptest.NewServer(c.wrap(http.FileServer(http.Dir(dir))))
	defer srv.Close()
	g := newGame(t)
	f, _ := os.OpenFile(g.config, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("[sets]\nsource = \"" + srv.URL + "/\"\ninterval = \"1h\"\n")
	f.Close()
	g.start(t)
	ev := g.follow(t)
	all := ev.wait(t, 30*time.Second, "the set applied", func(all []api.Event) bool { return count(all, api.EventSetChecked) >= 1 })
	if count(all, api.EventDownload) < 2 || count(all, api.EventSetApplied) != 1 {
		t.Fatalf("want download and set-applied events before set-checked:\n%s", describe(all))
	}
	var check api.SetCheck
	for _, e := range all {
		if e.Type == api.EventSetChecked {
			json.Unmarshal(e.Data, &check)
		}
	}
	if check.Result != api.CheckApplied || check.Fingerprint != want {
		t.Fatalf("set-checked = %+v; want applied %s", check, want)
	}
	cl := daemon.NewClient(g.sock)
	defer cl.Close()
	hc, _ := socketClient(g.sock)
	var info api.SetInfo
	err := json.Unmarshal(expect(t, hc, http.MethodGet, "/v1/set", "", http.StatusOK), &info)
	if err != nil || info.Fingerprint != want || len(info.Packs) != 2 || info.Source != srv.URL+"/"+lock.LockName || info.LastCheck == nil || info.LastApply == nil {
		t.Fatalf("GET /v1/set = %+v, %v", info, err)
	}

	// A pack dropped by hand installs; status says how the machine differs.
	os.WriteFile(filepath.Join(g.drop, "hand-pack.zip"), packZip(t, "hand-pack", "1.0.0", 0), 0o644)
	ev.wait(t, 30*time.Second, "the hand-dropped pack installed", func(all []api.Event) bool {
		for _, e := range all {
			if e.Type == api.EventPackInstalled && strings.Contains(string(e.Data), "hand-pack") {
				return true
			}
		}
		return false
	})
	// The event comes from inside the transaction; a request through the
	// writer returns once its snapshot is out.
	if _, err := cl.SyncDrop(t.Context()); err != nil {
		t.Fatal(err)
	}
	st, err := cl.Status(t.Context())
	if err != nil || st.Set == nil || st.Set.Equal || len(st.Set.Differences) != 1 || st.Set.Differences[0].Kind != api.DiffNotInSet || st.Set.Differences[0].ID != "hand-pack" {
		t.Fatalf("status.set = %+v, %v; want one difference: hand-pack not in the set", st.Set, err)
	}
	code, out, errs := runCLI(t, "status", "--config", g.config)
	if code != cli.ExitOK || !strings.Contains(out, "differs from its set in 1 pack") || !strings.Contains(out, "hand-pack: enabled but not in the set") {
		t.Fatalf("status = %d\n%s%s", code, out, errs)
	}

	// A check with nothing new: one conditional request, nothing changed.
	c.take()
	var res api.SetSyncResult
	err = json.Unmarshal(expect(t, hc, http.MethodPost, "/v1/set/check", "", http.StatusOK), &res)
	if err != nil || !res.Check.NotModified || res.Check.Result != api.CheckEqual {
		t.Fatalf("POST /v1/set/check = %+v, %v; want not modified, equal", res, err)
	}
	if reqs := c.take(); len(reqs) != 1 || reqs[0] != "GET /forgepacks.lock 304" {
		t.Errorf("the check made requests %q; want one answered 304", reqs)
	}
	if st, _ := cl.Status(t.Context()); st.Set == nil || st.Set.Equal {
		t.Errorf("the check changed the machine: %+v", st.Set)
	}

	// POST /v1/set/diff, with the lock in TOML and in JSON.
	text, _ := os.ReadFile(filepath.Join(dir, lock.LockName))
	l, _ := lock.Decode("lock", text, lock.DecodeOptions{})
	asJSON, _ := json.Marshal(map[string]any{"format": lock.LockFormat, "version": 1, "pack": l.Packs})
	for _, body := range [][]byte{text, asJSON} {
		var cmp api.SetComparison
		err := json.Unmarshal(expect(t, hc, http.MethodPost, "/v1/set/diff", string(body), http.StatusOK), &cmp)
		if err != nil || cmp.Equal || cmp.Set != want || len(cmp.Differences) != 1 || cmp.Differences[0].ID != "hand-pack" {
			t.Errorf("POST /v1/set/diff(%.20q) = %+v, %v", body, cmp, err)
		}
	}
	if code, b := call(t, hc, http.MethodPost, "/v1/set/diff", "format = \"forgepacks-lock\"\nversion = 9\n"); code != http.StatusBadRequest || !strings.Contains(string(b), `"invalid_request"`) {
		t.Errorf("POST /v1/set/diff(bad lock) = %d %s; want invalid_request", code, b)
	}

	// sync --set through the daemon makes the machine exact again.
	code, out, errs = runCLI(t, "sync", "--set", srv.URL+"/", "--config", g.config)
	if code != cli.ExitOK || !strings.Contains(out, "disabled hand-pack") {
		t.Fatalf("sync --set via the daemon = %d\n%s%s", code, out, errs)
	}
	if st, _ := cl.Status(t.Context()); st.Set == nil || !st.Set.Equal || st.Set.Machine != want {
		t.Errorf("after sync --set, status.set = %+v; want equal", st.Set)
	}

	// POST /v1/set/apply with the lock in the body: the store has every
	// archive, so nothing is fetched and nothing changes.
	c.take()
	applied, err := cl.SetApply(t.Context(), api.SetApplyRequest{Lock: string(text)})
	if err != nil || applied.Check.Result != api.CheckEqual || applied.Check.Fingerprint != want || len(applied.Downloaded) != 0 {
		t.Errorf("POST /v1/set/apply {lock} = %+v, %v; want equal", applied, err)
	}
	if reqs := c.take(); len(reqs) != 0 {
		t.Errorf("apply of a lock in the body made requests %q", reqs)
	}
	if _, err := cl.SetApply(t.Context(), api.SetApplyRequest{URL: srv.URL, Lock: string(text)}); !errors.Is(err, errkind.Invalid) {
		t.Errorf("POST /v1/set/apply {url, lock} = %v; want invalid_request", err)
	}
}
