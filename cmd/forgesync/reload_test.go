//go:build !windows

package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/cmd/forgesync/cli"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// TestDaemonReload: `forgesync reload` makes the running daemon read its
// config again: a [sets] source added starts the follower, a key it does
// not apply is named as needing a restart, a bad config is logged and
// changes nothing; SIGHUP reloads too, and every signal is logged.
func TestDaemonReload(t *testing.T) {
	dir, want := publishedSet(t, map[string]int{"alpha-gates": 1})
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer srv.Close()
	g := newGame(t)
	original, _ := os.ReadFile(g.config)
	d := g.start(t)
	reload := func(wantCode int, wantOut ...string) {
		t.Helper()
		code, out, errs := runCLI(t, "reload", "--config", g.config)
		for _, w := range wantOut {
			if !strings.Contains(out+errs, w) {
				code = -1
			}
		}
		if code != wantCode {
			t.Fatalf("reload = %d\n%s%s; want %d and %q", code, out, errs, wantCode, wantOut)
		}
	}
	reload(cli.ExitOK, "reloaded "+g.config+": nothing it applies changed")

	// A source to follow, and a key a reload does not apply.
	edited := strings.Replace(string(original), "native = false", "native = true", 1) +
		"[sets]\nsource = \"" + srv.URL + "/\"\ninterval = \"1h\"\n"
	os.WriteFile(g.config, []byte(edited), 0o644)
	reload(cli.ExitOK, "applied [sets]\n", "taking effect only when the daemon restarts: deploy.native\n")
	d.logs.waitFor(t, 30*time.Second,
		[]string{`msg="config reloaded"`, "applied=[[sets]]", "needs_restart=[deploy.native]"},
		[]string{`msg="config changes that take effect only at a restart"`, "keys=[deploy.native]"},
		[]string{`msg="pack set applied from its source"`, "source=" + srv.URL + "/" + lock.LockName, "fingerprint=" + want})

	// A bad config: the command cannot read it either, and says so; the
	// daemon, asked over its socket, logs why and keeps the old one.
	os.WriteFile(g.config, []byte(strings.Replace(edited, `settle = "200ms"`, `settle = "fast"`, 1)), 0o644)
	reload(cli.ExitFailure, "settle")
	hc, _ := socketClient(g.sock)
	if body := expect(t, hc, http.MethodPost, "/v1/reload", "", http.StatusBadRequest); !strings.Contains(string(body), "the daemon keeps the config it has") {
		t.Fatalf("POST /v1/reload of a bad config = %s", body)
	}
	d.logs.waitFor(t, 30*time.Second, []string{"level=ERROR", `msg="config reload failed; the old config is kept"`, "settle"})
	os.WriteFile(g.config, []byte(edited), 0o644)
	if code, out, errs := runCLI(t, "status", "--config", g.config); code != cli.ExitOK {
		t.Fatalf("status after a bad reload = %d\n%s%s", code, out, errs)
	}

	// SIGHUP reloads a [watch] change; SIGUSR1 is logged and ignored.
	os.WriteFile(g.config, []byte(strings.Replace(edited, `settle = "200ms"`, `settle = "300ms"`, 1)), 0o644)
	d.cmd.Process.Signal(syscall.SIGHUP)
	d.cmd.Process.Signal(syscall.SIGUSR1)
	d.logs.waitFor(t, 30*time.Second,
		[]string{`msg="signal received"`, "signal=hangup"},
		[]string{`msg="config reloaded"`, "applied=[[watch]]"},
		[]string{`msg="signal received"`, `signal="user defined signal 1"`})
	if code, out, errs := runCLI(t, "status", "--config", g.config); code != cli.ExitOK {
		t.Fatalf("status after SIGHUP = %d\n%s%s; want the daemon running", code, out, errs)
	}
}
