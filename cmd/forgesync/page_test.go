package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/mjolnir-forge/forgesync/installer/intake"
	"github.com/mjolnir-forge/forgesync/internal/toolcheck"
)

// The page's tests drive Debian's chromium through chromedp against the
// real daemon: one browser for the package's run (closed by TestMain),
// one tab per test. The browser resolves no name but loopback ones: the
// network is gone, and the page must work without it.

// browserWait bounds each wait on the page.
const browserWait = 20 * time.Second

var chrome struct {
	once   sync.Once
	ctx    context.Context // the browser's; tabs are its children
	cancel func()
	err    error
}

// closeBrowser ends the package's browser, if one was started.
func closeBrowser() {
	if chrome.cancel != nil {
		chrome.cancel()
	}
}

// newTab opens a tab in the package's browser and returns its context and
// the URLs of every request the tab sends. It skips when chromium is not
// installed, and fails when CI=true.
func newTab(t *testing.T) (context.Context, func() []string) {
	t.Helper()
	path := toolcheck.Need(t, "chromium")[0]
	chrome.once.Do(func() {
		opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox,
			chromedp.Flag("disable-gpu", true),
			// The network is gone: only loopback names resolve.
			chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1"),
			chromedp.WindowSize(1100, 1400))
		actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
		bctx, cancelBrowser := chromedp.NewContext(actx)
		chrome.ctx, chrome.cancel = bctx, func() { cancelBrowser(); cancelAlloc() }
		chrome.err = chromedp.Do(bctx) // starts the browser
	})
	if chrome.err != nil {
		t.Fatalf("start chromium: %v", chrome.err)
	}
	var mu sync.Mutex
	var requests []string
	tab, cancel := chromedp.NewContext(chrome.ctx, chromedp.WithListener(func(ev any) {
		if r, ok := ev.(*network.EventRequestWillBeSent); ok {
			mu.Lock()
			requests = append(requests, r.Request.URL)
			mu.Unlock()
		}
	}))
	t.Cleanup(cancel)
	if err := chromedp.Do(tab); err != nil {
		t.Fatalf("open a tab: %v", err)
	}
	return tab, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), requests...) }
}

// do runs actions on a tab within browserWait.
func do(t *testing.T, tab context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, browserWait)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		var html string
		hctx, hcancel := context.WithTimeout(tab, 5*time.Second)
		html, _ = chromedp.Run(hctx, chromedp.Evaluate[string]("document.body ? document.body.innerText : ''"))
		hcancel()
		t.Fatalf("%s: %v\npage text:\n%s", what, err, html)
	}
}

// until waits until expr is true in the tab, on every change of the page.
func until(t *testing.T, tab context.Context, what, expr string) {
	t.Helper()
	do(t, tab, what, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := chromedp.Poll[bool](expr, chromedp.WithPollingMutation(), chromedp.WithPollingTimeout(browserWait))(ctx, tg)
		return err
	}))
}

// untilNavigated is until across the navigation a form post starts: a
// wait the navigation cut short is waited again, on the new page.
func untilNavigated(t *testing.T, tab context.Context, what, expr string) {
	t.Helper()
	for range 3 {
		ctx, cancel := context.WithTimeout(tab, browserWait)
		_, err := chromedp.Run(ctx, chromedp.Poll[bool](expr, chromedp.WithPollingMutation(), chromedp.WithPollingTimeout(browserWait)))
		cancel()
		if err == nil {
			return
		}
		if !strings.Contains(err.Error(), "navigated") && !strings.Contains(err.Error(), "Cannot find context") {
			t.Fatalf("%s: %v", what, err)
		}
	}
	t.Fatalf("%s: the page kept navigating", what)
}

// eval returns expr's value in the tab.
func eval[T any](t *testing.T, tab context.Context, expr string) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, browserWait)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// pageGame is a game whose daemon serves the page on a free loopback
// port; it returns the port's address.
func pageGame(t *testing.T) (*game, string) {
	t.Helper()
	return pageGameWith(t, "")
}

// pageGameWith is pageGame with more of the config (TOML tables).
func pageGameWith(t *testing.T, more string) (*game, string) {
	t.Helper()
	g := newGame(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	f, err := os.OpenFile(g.config, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "[api]\nlisten = %q\n%s", addr, more)
	f.Close()
	g.start(t)
	return g, addr
}

// pageURL runs forgesync open --print and returns the URL it prints.
func (g *game) pageURL(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"open", "--print"}, args...)...)
	cmd.Env = append(os.Environ(), "FORGESYNC_CONFIG="+g.config)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("forgesync open --print = %v: %s", err, out)
	}
	return strings.TrimSpace(string(out))
}

// installedTxt returns the game's installed.txt.
func (g *game) installedTxt(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(g.inv, "installed.txt"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// namedPackZip is packZip with a name of its own.
func namedPackZip(t *testing.T, id, name string) []byte {
	t.Helper()
	dir := t.TempDir()
	manifest := fmt.Sprintf(`{"schema":1,"id":%q,"version":"1.0.0","name":%q,"authors":["E2E"],"pieces":[{"id":"deck","kind":"block","tag":"mjolnir\\forge\\%s\\deck","class":"/Game/MJOLNIR/Forge/%s/Blocks/BP_Deck.BP_Deck_C","dimensions_m":[2,2,0.5]}]}`, id, name, id, id)
	os.WriteFile(filepath.Join(dir, "forgepack.json"), []byte(manifest), 0o644)
	var buf bytes.Buffer
	if err := intake.WritePackZip(&buf, os.DirFS(dir), []intake.File{{Path: "forgepack.json", Size: int64(len(manifest))}}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestPageInBrowser: the page lists the installed packs, shows a broken
// archive dropped after it loaded with its reasons, and disables and
// enables a pack by a click, which changes installed.txt; an install's
// progress bar moves, all without a reload, and with no request leaving
// the daemon's origin.
func TestPageInBrowser(t *testing.T) {
	tab, requests := newTab(t)
	g, addr := pageGame(t)
	g.dropFile(t, "foundry-wide.zip", exampleZip(t, "foundry-wide"))
	g.dropFile(t, "glass-works.zip", exampleZip(t, "glass-works"))
	c, _ := socketClient(g.sock)
	untilPacks(t, c, "foundry-wide", "glass-works")

	do(t, tab, "open the page", chromedp.Navigate(g.pageURL(t)))
	until(t, tab, "the example packs listed", `!!document.querySelector('tr[data-pack="foundry-wide"]') && !!document.querySelector('tr[data-pack="glass-works"]')`)
	if u := eval[string](t, tab, "location.href"); u != "http://"+addr+"/" {
		t.Errorf("the page is at %s; want http://%s/ (the token out of the address bar)", u, addr)
	}
	eval[bool](t, tab, "window.notReloaded = true")

	g.dropFile(t, "not-a-pack.zip", []byte("this is not an archive"))
	until(t, tab, "the rejection shown", `(document.querySelector('li[data-archive="not-a-pack.zip"]') || {}).textContent?.includes("not an archive")`)

	before := g.installedTxt(t)
	clickNow(t, tab, "click disable", `tr[data-pack="glass-works"] button.disable`)
	until(t, tab, "glass-works shown disabled", `!!document.querySelector('tr[data-pack="glass-works"].disabled button.enable')`)
	disabled := g.installedTxt(t)
	if disabled == before {
		t.Fatalf("installed.txt did not change when glass-works was disabled:\n%s", disabled)
	}
	clickNow(t, tab, "click enable", `tr[data-pack="glass-works"] button.enable`)
	until(t, tab, "glass-works shown enabled", `!!document.querySelector('tr[data-pack="glass-works"].enabled button.disable')`)
	if after := g.installedTxt(t); after != before {
		t.Errorf("installed.txt after enable differs from before disable:\n%s\nwant:\n%s", after, before)
	}

	// The progress bar: every value it takes, from the page's own updates.
	eval[bool](t, tab, `window.seen = []; new MutationObserver(() => { const b = document.getElementById("progress"); window.seen.push([b.value, b.max]); }).observe(document.getElementById("progress"), {attributes: true}); true`)
	g.dropFile(t, "big-pack.zip", packZip(t, "big-pack", "1.0.0", 48<<20))
	until(t, tab, "big-pack listed", `!!document.querySelector('tr[data-pack="big-pack"]')`)
	seen := eval[[][2]float64](t, tab, "window.seen")
	moved := false
	for _, s := range seen {
		moved = moved || (s[1] > 1 && s[0] > 0)
	}
	if !moved {
		t.Errorf("the progress bar took the values %v; want it to move during the install of 48 MiB", seen)
	}
	if !eval[bool](t, tab, "window.notReloaded === true") {
		t.Error("the page reloaded; want it updated in place from the event stream")
	}
	for _, u := range requests() {
		if !strings.HasPrefix(u, "http://"+addr+"/") {
			t.Errorf("the page requested %s; want nothing beyond the daemon (http://%s/)", u, addr)
		}
	}
	if os.Getenv("FORGESYNC_PAGE_SCREENSHOT") != "" {
		var png []byte
		do(t, tab, "screenshot", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) (err error) {
			png, err = chromedp.FullScreenshot(100)(ctx, tg)
			return err
		}))
		if err := os.WriteFile(os.Getenv("FORGESYNC_PAGE_SCREENSHOT"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// clickNow clicks the element sel selects, found and clicked in one step
// in the page: the page redraws its lists on every event, which may
// replace an element between a lookup and a click by the driver.
func clickNow(t *testing.T, tab context.Context, what, sel string) {
	t.Helper()
	if !eval[bool](t, tab, fmt.Sprintf(`(() => { const e = document.querySelector(%q); if (!e) return false; e.click(); return true; })()`, sel)) {
		t.Fatalf("%s: nothing matches %s", what, sel)
	}
}

// TestPageProfilesAndRollback: the page lists the profiles; clicking
// "Switch to this" on a saved one and "Roll back to this" on a generation
// each make installed.txt what that profile or generation had.
func TestPageProfilesAndRollback(t *testing.T) {
	tab, _ := newTab(t)
	g, _ := pageGame(t)
	g.dropFile(t, "foundry-wide.zip", exampleZip(t, "foundry-wide"))
	g.dropFile(t, "glass-works.zip", exampleZip(t, "glass-works"))
	c, _ := socketClient(g.sock)
	untilPacks(t, c, "foundry-wide", "glass-works")
	both := g.installedTxt(t)
	if code, out, errb := g.exe(t, "profile", "save", "both"); code != 0 {
		t.Fatalf("profile save both = %d: %s%s", code, out, errb)
	}

	do(t, tab, "open the page", chromedp.Navigate(g.pageURL(t)))
	until(t, tab, "both profiles listed", `!!document.querySelector('li[data-profile="own"].current') && !!document.querySelector('li[data-profile="both"] button.switch')`)
	clickNow(t, tab, "click disable", `tr[data-pack="glass-works"] button.disable`)
	until(t, tab, "glass-works shown disabled", `!!document.querySelector('tr[data-pack="glass-works"].disabled')`)
	one := g.installedTxt(t)
	if one == both {
		t.Fatalf("installed.txt did not change when glass-works was disabled:\n%s", one)
	}
	gen := eval[int](t, tab, `Math.max(...[...document.querySelectorAll("#history li")].map((li) => Number(li.dataset.generation)))`) // the newest: glass-works disabled

	clickNow(t, tab, "click switch to both", `li[data-profile="both"] button.switch`)
	until(t, tab, "both current", `!!document.querySelector('li[data-profile="both"].current') && !!document.querySelector('tr[data-pack="glass-works"].enabled')`)
	if got := g.installedTxt(t); got != both {
		t.Errorf("installed.txt after the switch to both:\n%s\nwant what it was when both was saved:\n%s", got, both)
	}
	clickNow(t, tab, "click roll back", fmt.Sprintf(`#history li[data-generation="%d"] button.rollback`, gen))
	until(t, tab, "glass-works disabled again", `!!document.querySelector('tr[data-pack="glass-works"].disabled')`)
	if got := g.installedTxt(t); got != one {
		t.Errorf("installed.txt after rolling back to generation %d:\n%s\nwant:\n%s", gen, got, one)
	}
}

// TestPageSaysWhyNoUpdateIsKnown: with [update] check on and the feed
// out of reach, the page says why it knows of no newer forgesync, as text.
func TestPageSaysWhyNoUpdateIsKnown(t *testing.T) {
	tab, _ := newTab(t)
	g, _ := pageGameWith(t, "[update]\ncheck = true\nfeed = \"http://127.0.0.1:1/<b>feed</b>/\"\n")
	do(t, tab, "open the page", chromedp.Navigate(g.pageURL(t)))
	until(t, tab, "why no update is known", `(document.getElementById("update").textContent || "").startsWith("Could not look for a newer forgesync:")`)
	if n := eval[int](t, tab, `document.querySelectorAll("#update b").length`); n != 0 {
		t.Errorf("the update line made %d <b> elements of the feed's address; want it shown as text", n)
	}
}

// TestPageEscapesPackStrings: a pack whose name, and a rejected archive
// whose name, version and reason, carry markup and </script> are shown as
// text: no element is made of them, no script runs, no request is sent.
func TestPageEscapesPackStrings(t *testing.T) {
	tab, requests := newTab(t)
	g, addr := pageGame(t)
	const evil = `<img src=x onerror="window.pwned=1"></script><script>window.pwned=2</script>`
	const name = `<img src=x onerror=window.pwned=1></script>` // a name has at most 64 characters
	g.dropFile(t, "evil-name.zip", namedPackZip(t, "evil-name", name))
	c, _ := socketClient(g.sock)
	untilPacks(t, c, "evil-name")
	g.dropFile(t, `<img src=x onerror=window.pwned=3>.zip`, evilVersionZip(t, evil))

	do(t, tab, "open the page", chromedp.Navigate(g.pageURL(t)))
	until(t, tab, "the pack and the rejection listed", `!!document.querySelector('tr[data-pack="evil-name"]') && document.querySelectorAll('#rejections > li').length === 1`)
	if got := eval[string](t, tab, `document.querySelector('tr[data-pack="evil-name"] .name').textContent`); got != name {
		t.Errorf("the pack's name shows as %q; want the text %q", got, name)
	}
	rej := eval[string](t, tab, `document.querySelector('#rejections > li').textContent`)
	if !strings.Contains(rej, "<img src=x onerror=window.pwned=3>.zip") || !strings.Contains(rej, "</script>") {
		t.Errorf("the rejection shows as %q; want its archive name and version as text", rej)
	}
	if n := eval[int](t, tab, `document.querySelectorAll("main img, main script").length`); n != 0 {
		t.Errorf("%d img or script elements in the page; want none made from a pack's strings", n)
	}
	if p := eval[any](t, tab, "window.pwned"); p != nil {
		t.Errorf("window.pwned = %v; a pack's string ran as script", p)
	}
	for _, u := range requests() {
		if !strings.HasPrefix(u, "http://"+addr+"/") || strings.HasSuffix(u, "/x") {
			t.Errorf("the page requested %s; want only the daemon's page and API", u)
		}
	}
}

// evilVersionZip is a pack whose version carries s: rejected, with the
// version quoted in its reason.
func evilVersionZip(t *testing.T, s string) []byte {
	t.Helper()
	dir := t.TempDir()
	manifest := fmt.Sprintf(`{"schema":1,"id":"evil-ver","version":%q,"name":"V","authors":["E2E"],"pieces":[{"id":"deck","kind":"block","tag":"mjolnir\\forge\\evil-ver\\deck","class":"/Game/MJOLNIR/Forge/evil-ver/Blocks/BP_Deck.BP_Deck_C","dimensions_m":[2,2,0.5]}]}`, "1.0.0-"+s)
	os.WriteFile(filepath.Join(dir, "forgepack.json"), []byte(manifest), 0o644)
	var buf bytes.Buffer
	if err := intake.WritePackZip(&buf, os.DirFS(dir), []intake.File{{Path: "forgepack.json", Size: int64(len(manifest))}}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestPageRefusesAnotherOrigin: with the player's session open in the
// browser, a page served from another origin on this machine (same site:
// the SameSite cookie goes along) posts a form and fetches, with and
// without credentials, to disable a pack: every one is refused and the
// pack stays enabled. A request with Host: evil.example is 403.
func TestPageRefusesAnotherOrigin(t *testing.T) {
	tab, _ := newTab(t)
	g, addr := pageGame(t)
	g.dropFile(t, "glass-works.zip", exampleZip(t, "glass-works"))
	c, _ := socketClient(g.sock)
	untilPacks(t, c, "glass-works")
	do(t, tab, "open the page", chromedp.Navigate(g.pageURL(t)))
	until(t, tab, "glass-works listed", `!!document.querySelector('tr[data-pack="glass-works"]')`)
	before := g.installedTxt(t)

	target := "http://" + addr + "/v1/packs/glass-works/disable"
	attacker := http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<!doctype html><form id=f method=post action=%q enctype=text/plain><input name=x value=y></form>
<script>
window.results = [];
Promise.allSettled([
  fetch(%q, {method: "POST", credentials: "include", mode: "no-cors"}),
  fetch(%q, {method: "POST", mode: "no-cors"}),
  fetch(%q, {method: "POST", credentials: "include", headers: {"X-Forgesync-CSRF": "guess"}}),
]).then((r) => { window.results = r.map((x) => x.status); document.body.dataset.fetched = "yes"; });
</script>`, target, target, target, target)
	})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go attacker.Serve(ln)
	t.Cleanup(func() { attacker.Close() })

	do(t, tab, "visit the other origin", chromedp.Navigate("http://"+ln.Addr().String()+"/"))
	until(t, tab, "the fetches settled", `document.body.dataset.fetched === "yes"`)
	do(t, tab, "post the form", chromedp.Evaluate[chromedp.Void]("document.getElementById('f').submit()"))
	untilNavigated(t, tab, "the form's answer", `location.href.startsWith("http://`+addr+`/") && document.readyState === "complete"`)
	if body := eval[string](t, tab, "document.body.textContent"); !strings.Contains(body, "forbidden") || !strings.Contains(body, "origin") {
		t.Errorf("the form post's answer = %s; want it refused for its origin", body)
	}
	c2, _ := socketClient(g.sock)
	b := expect(t, c2, http.MethodGet, "/v1/packs/glass-works", "", http.StatusOK)
	if !strings.Contains(string(b), `"enabled":true`) || g.installedTxt(t) != before {
		t.Errorf("after the other origin's requests glass-works = %s; want it enabled and installed.txt unchanged", b)
	}

	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, "http://"+addr+"/", nil)
	req.Host = "evil.example"
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("GET / with Host: evil.example = %d; want 403", resp.StatusCode)
	}
}
