package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// TestDaemonStoresNoPassword is issue 35's item 8 end to end: a daemon
// follows a set behind a password, whose lock names its archives, indexes
// and chunk store by URLs holding that password. The set is applied, and
// neither state/set.json nor the status and set answers, `forgesync
// status`, the events or the daemon's log hold the password.
func TestDaemonStoresNoPassword(t *testing.T) {
	dir, want := publishedSet(t, map[string]int{"alpha-gates": 1})
	files := http.FileServer(http.Dir(dir))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != "league" || p != "s3cret" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		files.ServeHTTP(w, r)
	}))
	defer srv.Close()
	authed := "http://league:s3cret@" + srv.Listener.Addr().String()
	lockPath := filepath.Join(dir, lock.LockName)
	text, err := os.ReadFile(lockPath)
	if err != nil {
		t.Fatal(err)
	}
	lock := strings.ReplaceAll(string(text), `"packs/`, `"`+authed+`/packs/`)
	lock = strings.ReplaceAll(lock, `"chunks/"`, `"`+authed+`/chunks/"`)
	if !strings.Contains(lock, authed+"/chunks/") || !strings.Contains(lock, authed+"/packs/") {
		t.Fatalf("the lock names no URL to put the password in:\n%s", text)
	}
	if err := os.WriteFile(lockPath, []byte(lock), 0o644); err != nil {
		t.Fatal(err)
	}

	g := newGame(t)
	f, _ := os.OpenFile(g.config, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("[sets]\nsource = \"" + authed + "/\"\ninterval = \"1h\"\n")
	f.Close()
	p := g.start(t)
	ev := g.follow(t)
	all := ev.wait(t, 30*time.Second, "the set checked", func(all []api.Event) bool { return count(all, api.EventSetChecked) >= 1 })
	var check api.SetCheck
	for _, e := range all {
		if e.Type == api.EventSetChecked {
			json.Unmarshal(e.Data, &check)
		}
	}
	if check.Result != api.CheckApplied || check.Fingerprint != want {
		t.Fatalf("set-checked = %+v; want applied %s", check, want)
	}

	hc, _ := socketClient(g.sock)
	record, _ := os.ReadFile(filepath.Join(g.state, "set.json"))
	if !strings.Contains(string(record), `"lock": "format`) {
		t.Errorf("set.json keeps no lock:\n%s", record)
	}
	code, out, errs := runCLI(t, "status", "--config", g.config)
	events, _ := json.Marshal(all)
	shown := map[string]string{
		"set.json":         string(record),
		"GET /v1/status":   string(expect(t, hc, http.MethodGet, "/v1/status", "", http.StatusOK)),
		"GET /v1/set":      string(expect(t, hc, http.MethodGet, "/v1/set", "", http.StatusOK)),
		"forgesync status": out + errs,
		"the events":       string(events),
		"the daemon's log": p.logs.String(),
	}
	if code != 0 || !strings.Contains(out, "league:xxxxx@") {
		t.Errorf("status = %d\n%s%s; want the source shown without its password", code, out, errs)
	}
	for what, s := range shown {
		if strings.Contains(s, "s3cret") {
			t.Errorf("%s holds the password:\n%s", what, s)
		}
	}
}
