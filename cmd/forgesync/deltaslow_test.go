package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/cmd/forgesync/cli"
	"github.com/mjolnir-forge/forgesync/sets/fetch"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// TestSyncSetSlowChunkStore is issue 35's item 5 end to end: the chunk
// store of an exported set sends a byte a second (on the fetcher's clock,
// which only the store moves), a pace no stall watchdog catches. `sync
// --set` gives the delta update up as too slow, installs v2 from the whole
// archive, and says so; set.json keeps why.
func TestSyncSetSlowChunkStore(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	old := setFetcher
	setFetcher = fetch.Fetcher{InitialDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond, Tries: 2,
		Now: func() time.Time { mu.Lock(); defer mu.Unlock(); return now }}
	t.Cleanup(func() { setFetcher = old })
	const size = 1 << 20
	v1 := bigPak(5, size)
	v2 := slices.Concat(v1[:size/2], bigPak(6, size/16), v1[size/2:])

	host, hostDrop, _ := gameEnv(t)
	storedPackZip(t, filepath.Join(hostDrop, "slow-pack.zip"), "slow-pack", "1.0.0", v1)
	site := filepath.Join(t.TempDir(), "site")
	for _, args := range [][]string{{"sync"}, {"export", site}} {
		if code, out, errs := runCLI(t, append(args, "--config", host)...); code != cli.ExitOK {
			t.Fatalf("%s v1 = %d\n%s%s", args[0], code, out, errs)
		}
	}
	files := http.FileServer(http.Dir(site))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, err := os.ReadFile(filepath.Join(site, filepath.FromSlash(r.URL.Path)))
		if !strings.HasPrefix(r.URL.Path, "/chunks/") || err != nil {
			files.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(data)))
		for i := range data {
			if _, err := w.Write(data[i : i+1]); err != nil || r.Context().Err() != nil {
				return
			}
			w.(http.Flusher).Flush()
			mu.Lock()
			now = now.Add(time.Second)
			mu.Unlock()
		}
	}))
	defer srv.Close()
	machine, _, _ := gameEnv(t)
	if code, out, errs := runCLI(t, "sync", "--set", srv.URL+"/", "--config", machine); code != cli.ExitOK {
		t.Fatalf("sync --set v1 = %d\n%s%s", code, out, errs)
	}

	os.Remove(filepath.Join(hostDrop, "slow-pack.zip"))
	storedPackZip(t, filepath.Join(hostDrop, "slow-pack-2.zip"), "slow-pack", "2.0.0", v2)
	for _, args := range [][]string{{"sync"}, {"export", site}} {
		if code, out, errs := runCLI(t, append(args, "--config", host)...); code != cli.ExitOK {
			t.Fatalf("%s v2 = %d\n%s%s", args[0], code, out, errs)
		}
	}
	// Past the second of the last sync: not answered 304 (see
	// TestSyncSetDelta).
	later := time.Now().Add(2 * time.Second)
	os.Chtimes(filepath.Join(site, lock.LockName), later, later)

	code, out, errs := runCLI(t, "sync", "--set", srv.URL+"/", "--config", machine)
	if code != cli.ExitOK || !strings.Contains(out, "upgraded slow-pack 1.0.0 → 2.0.0") || !strings.Contains(out, "whole, as the delta update failed: ") || !strings.Contains(out, "too slow") {
		t.Fatalf("sync --set v2 from a slow chunk store = %d\n%s%s; want v2 from the whole archive, the delta given up as too slow", code, out, errs)
	}
	rec, _ := os.ReadFile(filepath.Join(filepath.Dir(machine), "state", "set.json"))
	if !strings.Contains(string(rec), `"fallbacks": [`) || !strings.Contains(string(rec), "too slow") {
		t.Errorf("set.json keeps no fallback saying the store was too slow:\n%s", rec)
	}
}
