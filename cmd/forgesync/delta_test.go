package main

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/cmd/forgesync/cli"
	"github.com/mjolnir-forge/forgesync/sets/casync"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// bigPak returns n random bytes: a cooked container that does not
// compress.
func bigPak(seed byte, n int) []byte {
	b := make([]byte, n)
	rand.NewChaCha8([32]byte{seed}).Read(b)
	return b
}

// storedPackZip writes a pack whose content/Big.pak is stored, not
// deflated, as a delta-friendly packer writes it.
func storedPackZip(t testing.TB, path, id, version string, pak []byte) {
	t.Helper()
	manifest := fmt.Sprintf(`{"schema":1,"id":%q,"version":%q,"name":"Pack %s","authors":["E2E"],"pieces":[{"id":"deck","kind":"block","tag":"mjolnir\\forge\\%s\\deck","class":"/Game/MJOLNIR/Forge/%s/Blocks/BP_Deck.BP_Deck_C","dimensions_m":[2,2,0.5]}]}`, id, version, id, id, id)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.CreateHeader(&zip.FileHeader{Name: "forgepack.json", Method: zip.Deflate})
	w.Write([]byte(manifest))
	w, _ = zw.CreateHeader(&zip.FileHeader{Name: "content/Big.pak", Method: zip.Store})
	w.Write(pak)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// servedCounter serves a folder and counts requests and body bytes.
type servedCounter struct {
	mu    sync.Mutex
	paths []string
	bytes int64
}

func (c *servedCounter) handler(dir string) http.Handler {
	fsrv := http.FileServer(http.Dir(dir))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cw := &countingWriter{ResponseWriter: w}
		fsrv.ServeHTTP(cw, r)
		c.mu.Lock()
		c.paths = append(c.paths, r.URL.Path)
		c.bytes += cw.n
		c.mu.Unlock()
	})
}

func (c *servedCounter) take() ([]string, int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, n := c.paths, c.bytes
	c.paths, c.bytes = nil, 0
	return p, n
}

// gameTree returns the SHA-256 of every file the machine installed under
// its game folder, by path.
func gameTree(t *testing.T, config string) map[string]string {
	t.Helper()
	root := filepath.Join(filepath.Dir(config), "game")
	out := map[string]string{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		data, _ := os.ReadFile(p)
		sum := sha256.Sum256(data)
		rel, _ := filepath.Rel(root, p)
		out[rel] = hex.EncodeToString(sum[:])
		return nil
	})
	return out
}

// TestSyncSetDelta is issue 25's end-to-end test: a host exports v1, a
// machine syncs it, the host exports v2 (1/32 of the .pak inserted, 1/16
// overwritten, 1/64 appended), and the machine syncs again through a
// counting server: it fetches the index and the new chunks only, installs
// the same bytes as a machine that downloads v2 whole, from the archive
// the lock pins.
func TestSyncSetDelta(t *testing.T) {
	fastFetch(t)
	const size = 8 << 20
	v1 := bigPak(1, size)
	q := size / 4
	v2 := slices.Concat(v1[:q], bigPak(2, size/32), v1[q:])
	copy(v2[size/2:], bigPak(3, size/16))
	v2 = append(v2, bigPak(4, size/64)...)
	changed := int64(size/32 + size/16 + size/64)

	host, hostDrop, _ := gameEnv(t)
	storedPackZip(t, filepath.Join(hostDrop, "delta-pack.zip"), "delta-pack", "1.0.0", v1)
	if code, out, errs := runCLI(t, "sync", "--config", host); code != cli.ExitOK {
		t.Fatalf("host sync = %d\n%s%s", code, out, errs)
	}
	site := filepath.Join(t.TempDir(), "site")
	if code, out, errs := runCLI(t, "export", site, "--config", host); code != cli.ExitOK {
		t.Fatalf("export v1 = %d\n%s%s", code, out, errs)
	}
	var c servedCounter
	srv := httptest.NewServer(c.handler(site))
	defer srv.Close()

	machine, _, _ := gameEnv(t)
	faulty, _, _ := gameEnv(t) // its update meets a corrupt chunk
	for _, m := range []string{machine, faulty} {
		if code, out, errs := runCLI(t, "sync", "--set", srv.URL+"/", "--config", m); code != cli.ExitOK || !strings.Contains(out, "installed delta-pack 1.0.0") {
			t.Fatalf("sync --set v1 = %d\n%s%s", code, out, errs)
		}
	}
	c.take()

	// v2 on the host, exported into the same folder.
	os.Remove(filepath.Join(hostDrop, "delta-pack.zip"))
	storedPackZip(t, filepath.Join(hostDrop, "delta-pack-2.zip"), "delta-pack", "2.0.0", v2)
	if code, out, errs := runCLI(t, "sync", "--config", host); code != cli.ExitOK {
		t.Fatalf("host sync v2 = %d\n%s%s", code, out, errs)
	}
	if code, out, errs := runCLI(t, "export", site, "--prune", "--config", host); code != cli.ExitOK {
		t.Fatalf("export v2 = %d\n%s%s", code, out, errs)
	}
	// http.FileServer's Last-Modified has whole seconds: a lock replaced
	// within the second of the last sync would be answered 304 (the README
	// says so); a host publishes later than that.
	later := time.Now().Add(2 * time.Second)
	if err := os.Chtimes(filepath.Join(site, lock.LockName), later, later); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(site, lock.LockName))
	l, err := lock.Decode("lock", data, lock.DecodeOptions{})
	if err != nil || len(l.Packs) != 1 || l.Packs[0].Version != "2.0.0" || l.Packs[0].Index == nil {
		t.Fatalf("lock v2 = %+v, %v", l, err)
	}
	pin := l.Packs[0]

	code, out, errs := runCLI(t, "sync", "--set", srv.URL+"/", "--config", machine)
	if code != cli.ExitOK || !strings.Contains(out, "upgraded delta-pack 1.0.0 → 2.0.0") && !strings.Contains(out, "delta-pack 2.0.0") {
		t.Fatalf("sync --set v2 = %d\n%s%s", code, out, errs)
	}
	if !strings.Contains(out, "rebuilt delta-pack from chunks") {
		t.Errorf("sync --set v2 did not rebuild from chunks:\n%s%s", out, errs)
	}
	paths, served := c.take()
	chunks := 0
	for _, p := range paths {
		if strings.HasSuffix(p, ".zip") {
			t.Errorf("the archive was downloaded whole: %s", p)
		}
		if strings.HasSuffix(p, ".cacnk") {
			chunks++
		}
	}
	t.Logf("update: %d bytes served in %d requests (%d chunks) for %d bytes changed, a %d-byte archive", served, len(paths), chunks, changed, pin.Size)
	if served > 3*changed || served > pin.Size/4 {
		t.Errorf("served %d bytes for %d changed bytes of a %d-byte archive; want at most 3× the change", served, changed, pin.Size)
	}
	// The archive in the cache is the one the lock pins, and status keeps
	// the update's figures with the last check.
	state := filepath.Join(filepath.Dir(machine), "state")
	if rec, _ := os.ReadFile(filepath.Join(state, "set.json")); !strings.Contains(string(rec), `"delta": {`) || !strings.Contains(string(rec), `"seed_bytes": `) {
		t.Errorf("set.json keeps no delta figures:\n%s", rec)
	}
	if err := lock.VerifyFile(filepath.Join(state, "cache", pin.SHA256), pin.Size, pin.SHA256); err != nil {
		t.Errorf("cached archive: %v", err)
	}

	// A machine that downloads v2 whole installs the same bytes.
	whole, _, _ := gameEnv(t)
	if code, out, errs := runCLI(t, "sync", "--set", srv.URL+"/", "--config", whole); code != cli.ExitOK || strings.Contains(out, "rebuilt") {
		t.Fatalf("sync --set v2 (whole) = %d\n%s%s", code, out, errs)
	}
	got, want := gameTree(t, machine), gameTree(t, whole)
	if len(want) == 0 || len(got) != len(want) {
		t.Fatalf("installed %d files; the whole install %d", len(got), len(want))
	}
	for p, sum := range want {
		if got[p] != sum {
			t.Errorf("%s: %s; the whole install has %s", p, got[p], sum)
		}
	}

	// Chunks of other bytes in the store: the update falls back to the
	// whole archive, says why, and installs the same bytes.
	filepath.WalkDir(filepath.Join(site, "chunks"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			good, _ := os.ReadFile(p)
			os.WriteFile(p, casync.EncodeChunk([]byte("other bytes")), 0o644)
			t.Cleanup(func() { os.WriteFile(p, good, 0o644) })
		}
		return nil
	})
	code, out, errs = runCLI(t, "sync", "--set", srv.URL+"/", "--config", faulty)
	if code != cli.ExitOK || !strings.Contains(out, "whole, as the delta update failed: ") || !strings.Contains(out, "wrong bytes: decode chunk ") {
		t.Fatalf("sync --set v2 with corrupt chunks = %d\n%s%s; want the whole archive and the chunk named", code, out, errs)
	}
	if rec, _ := os.ReadFile(filepath.Join(filepath.Dir(faulty), "state", "set.json")); !strings.Contains(string(rec), `"fallbacks": [`) {
		t.Errorf("set.json keeps no fallback:\n%s", rec)
	}
	for p, sum := range want {
		if got := gameTree(t, faulty); got[p] != sum {
			t.Errorf("after the fallback %s: %s; the whole install has %s", p, got[p], sum)
		}
	}
}
