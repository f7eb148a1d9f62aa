//go:build linux

package main

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"aead.dev/minisign"
	"github.com/chromedp/chromedp"

	"github.com/mjolnir-forge/forgesync/cmd/forgesync/cli"
	"github.com/mjolnir-forge/forgesync/internal/toolcheck"
)

// TestLinkThroughXdgOpen: a player's setup registers forgesync:// links;
// a host's link, signed by a key the player does not trust, opened with
// xdg-open runs forgesync open-link through the .desktop file, which
// opens the browser ($BROWSER: a script handing the URL to chromium) on
// the confirmation: the set's changes, size and signer, the key's
// distrust said in words, and nothing applied until the click.
func TestLinkThroughXdgOpen(t *testing.T) {
	toolcheck.Need(t, "xdg-open")
	tab, _ := newTab(t)

	// The host: a signed set on an HTTP server.
	_, priv, err := minisign.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	keyText, _ := priv.MarshalText()
	pubText, _ := priv.Public().(minisign.PublicKey).MarshalText()
	secret := filepath.Join(t.TempDir(), "host.key")
	os.WriteFile(secret, keyText, 0o600)
	host := hostWith(t, map[string]int{"alpha-gates": 1})
	site := filepath.Join(t.TempDir(), "site")
	if code, out, errs := runCLI(t, "export", site, "--sign", secret, "--config", host); code != cli.ExitOK {
		t.Fatalf("export --sign = %d\n%s%s", code, out, errs)
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(site)))
	t.Cleanup(srv.Close)

	// The player: setup, then the daemon.
	p := newPlayer(t)
	if code, out, errs := p.run(t, "setup", "--mods", p.mods, "--paks", p.paks, "--state", p.state); code != cli.ExitOK {
		t.Fatalf("setup = %d\n%s%s", code, out, errs)
	}
	env := []string{"HOME=" + p.home, "PATH=" + os.Getenv("PATH")}
	startPlayerDaemon(t, p, env)

	// The browser xdg-open starts: a script that hands the URL over a pipe.
	fifo := filepath.Join(p.root, "url.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(p.root, "browser.sh")
	os.WriteFile(script, []byte("#!/bin/sh\nprintf '%s\\n' \"$1\" > "+fifo+"\n"), 0o755)
	got := make(chan string, 1)
	go func() { b, _ := os.ReadFile(fifo); got <- strings.TrimSpace(string(b)) }()

	link := "forgesync://set?url=" + url.QueryEscape(srv.URL+"/") + "&key=" + url.QueryEscape(strings.TrimSpace(lastLine(string(pubText))))
	xdg := exec.Command("xdg-open", link)
	xdg.Env = append(env, "BROWSER="+script, "DISPLAY=:99", "XDG_DATA_DIRS="+filepath.Join(p.root, "none"))
	if out, err := xdg.CombinedOutput(); err != nil {
		t.Fatalf("xdg-open %s = %v\n%s", link, err, out)
	}
	var pageURL string
	select {
	case pageURL = <-got:
	case <-time.After(browserWait):
		os.WriteFile(fifo, nil, 0) // ends the reader
		t.Fatal("the browser was not started with the page")
	}

	do(t, tab, "open the link's page", chromedp.Navigate(pageURL))
	until(t, tab, "the confirmation", `!document.getElementById("link").hidden && !document.getElementById("link-confirm").disabled`)
	trust := eval[string](t, tab, `document.getElementById("link-trust").textContent`)
	if !strings.Contains(trust, "NOT one of the keys this machine trusts") {
		t.Errorf("the confirmation says %q; want the key's distrust in words", trust)
	}
	if diff := eval[string](t, tab, `document.getElementById("link-diff").textContent`); !strings.Contains(diff, "alpha-gates") {
		t.Errorf("the confirmation lists %q; want alpha-gates", diff)
	}
	if code, out, _ := p.run(t, "packs"); code != cli.ExitOK || strings.Contains(out, "alpha-gates") {
		t.Fatalf("before the click packs = %d\n%s; want nothing applied", code, out)
	}
	do(t, tab, "confirm", chromedp.Click(chromedp.ID("link-confirm")))
	until(t, tab, "the set applied", `document.getElementById("link-result").textContent.startsWith("Applied")`)
	if code, out, _ := p.run(t, "packs"); code != cli.ExitOK || !strings.Contains(out, "alpha-gates") {
		t.Errorf("after the click packs = %d\n%s; want alpha-gates installed", code, out)
	}
}

// lastLine is the last line of s: a minisign public key file's key.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// startPlayerDaemon runs the player's daemon with env until the test ends.
func startPlayerDaemon(t *testing.T, p *player, env []string) {
	t.Helper()
	cmd := exec.Command(p.exe, "daemon")
	cmd.Dir, cmd.Env = p.home, env
	logs := &logWriter{want: "daemon started", ready: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
		}
		if t.Failed() {
			t.Logf("daemon log:\n%s", logs.String())
		}
	})
	select {
	case <-logs.ready:
	case <-exited:
		t.Fatalf("daemon exited:\n%s", logs.String())
	case <-time.After(20 * time.Second):
		t.Fatalf("daemon did not start:\n%s", logs.String())
	}
}
