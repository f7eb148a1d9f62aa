package main

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// lanGame is a game whose config has the [lan] table lan.
func lanGame(t testing.TB, root, lan string) *game {
	t.Helper()
	g := newGameIn(t, root)
	text := "[paths]\nmods = \"mods\"\npaks = \"paks\"\nstate = \"state\"\nsocket = \"s.sock\"\n[deploy]\nnative = false\n[lan]\n" + lan
	if err := os.WriteFile(g.config, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return g
}

// freePort returns a loopback port nothing listens on now.
func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// TestLANPeerEndToEnd: two daemons, the first sharing ([lan] share), the
// second naming it in [lan] peers without sharing itself. After the first
// syncs a set from the mirror, the second syncs it with every archive from
// the first: the mirror serves it only the lock (and answers for its
// signature), and the result counts the bytes as the peer's. The second,
// with share off, listens on no peer port.
func TestLANPeerEndToEnd(t *testing.T) {
	work := t.TempDir()
	host := newGameIn(t, filepath.Join(work, "host"))
	storedPackZip(t, filepath.Join(host.drop, "lan-a.zip"), "lan-a", "1.0.0", bigPak(1, 1<<20))
	storedPackZip(t, filepath.Join(host.drop, "lan-b.zip"), "lan-b", "1.0.0", bigPak(2, 512<<10))
	mustRun(t, binary, "sync", "--config", host.config)
	export := filepath.Join(work, "export")
	mustRun(t, binary, "export", export, "--config", host.config)
	var mu sync.Mutex
	var seen []string
	mirror := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.URL.Path)
		mu.Unlock()
		http.FileServer(http.Dir(export)).ServeHTTP(w, r)
	}))
	defer mirror.Close()
	pa, pb := freePort(t), freePort(t)
	a := lanGame(t, filepath.Join(work, "a"), fmt.Sprintf("share = true\nlisten = \"127.0.0.1:%d\"\n", pa))
	b := lanGame(t, filepath.Join(work, "b"), fmt.Sprintf("listen = \"127.0.0.1:%d\"\npeers = [\"http://127.0.0.1:%d\"]\n", pb, pa))
	a.start(t)
	b.start(t)
	mustRun(t, binary, "sync", "--set", mirror.URL+"/", "--config", a.config)
	mu.Lock()
	seen = nil
	mu.Unlock()
	out, err := exec.Command(binary, "sync", "--set", mirror.URL+"/", "--json", "--config", b.config).Output()
	if err != nil {
		t.Fatalf("sync through the second daemon: %v\n%s", err, out)
	}
	var res api.SetSyncResult
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("sync --json: %v\n%s", err, out)
	}
	data, _ := os.ReadFile(filepath.Join(export, lock.LockName))
	l, err := lock.Decode("lock", data, lock.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var size int64
	for _, p := range l.Packs {
		size += p.Size
	}
	if res.Check.Result != api.CheckApplied || res.Check.PeerBytes != size || res.Check.MirrorBytes != 0 || len(res.Downloaded) != 2 {
		t.Errorf("the second sync = %+v; want it applied with all %d bytes from the peer", res.Check, size)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, p := range seen {
		if p != "/"+lock.LockName && p != "/"+lock.LockName+".minisig" {
			t.Errorf("the mirror served %s to the second machine; want only the lock and its signature", p)
		}
	}
	if c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", pb), 2*time.Second); err == nil {
		c.Close()
		t.Errorf("the second daemon, with share off, listens on its [lan] listen port %d", pb)
	}
}
