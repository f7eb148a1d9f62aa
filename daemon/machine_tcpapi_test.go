package daemon

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/installer/intake"
	"github.com/mjolnir-forge/forgesync/internal/registrytest"
	"github.com/mjolnir-forge/forgesync/sets/export"
	"github.com/mjolnir-forge/forgesync/sets/follow"
	"github.com/mjolnir-forge/forgesync/sets/oci"
)

// packArchive returns a minimal valid pack of id at version v, as a zip.
func packArchive(t *testing.T, id, v string) []byte {
	t.Helper()
	manifest := fmt.Sprintf(`{"schema":1,"id":%q,"version":%q,"name":"Pack","authors":["Tester"],"pieces":[{"id":"deck","kind":"block","tag":"mjolnir\\forge\\%s\\deck","class":"/Game/MJOLNIR/Forge/%s/Blocks/BP_Deck.BP_Deck_C","dimensions_m":[2,2,0.5]}]}`, id, v, id, id)
	fsys := fstest.MapFS{"forgepack.json": {Data: []byte(manifest)}}
	var buf bytes.Buffer
	if err := intake.WritePackZip(&buf, fsys, []intake.File{{Path: "forgepack.json", Size: int64(len(manifest))}}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// serveTCP serves a machine whose daemon listens on the loopback TCP API
// too, until the test ends, and returns its options and a client of its
// TCP API with the key from the state folder.
func serveTCP(t *testing.T) (Options, *Client) {
	t.Helper()
	return serveTCPWith(t, game(t))
}

// serveTCPWith is serveTCP of a machine with opts.
func serveTCPWith(t *testing.T, opts Options) (Options, *Client) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	opts.Config.API.Listen = ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	started, served := make(chan struct{}), make(chan error, 1)
	go func() {
		m := New(opts)
		defer m.Close()
		served <- m.Serve(ctx, ServeOptions{Version: "test", Started: func() { close(started) }})
	}()
	t.Cleanup(func() { cancel(); <-served })
	select {
	case <-started:
	case err := <-served:
		t.Fatalf("Serve = %v before it started", err)
	case <-time.After(20 * time.Second):
		t.Fatal("the daemon did not start")
	}
	key, err := readAPIKey(opts.Config.Paths.State)
	if err != nil {
		t.Fatal(err)
	}
	c := newTCPClient(opts.Config.API.Listen, key)
	t.Cleanup(func() { c.Close() })
	return opts, c
}

// fileURL returns the file: URL of a local path.
func fileURL(path string) string {
	p := filepath.ToSlash(path)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // C:/… on Windows
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}

// TestTCPAPILockNamesNoLocalFile: a lock sent as text to the TCP API (or
// the socket) whose urls, index or chunks name a file that exists and
// that the daemon's account can read is refused, 400, naming the URL:
// nothing is read, so the answer holds neither the file's size nor its
// hash, nothing enters the cache, and nothing is installed.
func TestTCPAPILockNamesNoLocalFile(t *testing.T) {
	opts, c := serveTCP(t)
	archive := packArchive(t, "tcp-pack", "1.0.0")
	secret := filepath.Join(t.TempDir(), "secret.zip")
	if err := os.WriteFile(secret, archive, 0o600); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(archive)
	sha := hex.EncodeToString(sum[:])
	size := strconv.Itoa(len(archive))
	lock := func(top, urls, extra string, size int) string {
		return fmt.Sprintf("format = \"forgepacks-lock\"\nversion = 1\n%s\n[[pack]]\nid = \"tcp-pack\"\nversion = \"1.0.0\"\nsha256 = %q\nsize = %d\nurls = [%q]\n%s",
			top, sha, size, urls, extra)
	}
	nowhere := "http://127.0.0.1:1/" + sha + ".zip"
	tests := []struct{ name, lock, url string }{
		{"the archive, pinned right", lock("", fileURL(secret), "", len(archive)), fileURL(secret)},
		{"a size oracle", lock("", fileURL(secret), "", len(archive)+1), fileURL(secret)},
		{"the index", lock("", nowhere, fmt.Sprintf("index = {url = %q, sha256 = %q}\n", fileURL(secret), sha), len(archive)), fileURL(secret)},
		{"the chunk store", lock(fmt.Sprintf("chunks = [%q]\n", fileURL(filepath.Dir(secret))+"/"), nowhere, "", len(archive)), fileURL(filepath.Dir(secret)) + "/"},
	}
	sock := NewClient(opts.Config.Paths.Socket)
	defer sock.Close()
	for _, tc := range tests {
		for via, client := range map[string]*Client{"TCP": c, "socket": sock} {
			res, err := client.SetApply(t.Context(), api.SetApplyRequest{Lock: tc.lock})
			var ae *APIError
			if !errors.As(err, &ae) || ae.Status != http.StatusBadRequest || !strings.Contains(ae.Message, strconv.Quote(tc.url)+" names a local file") {
				t.Errorf("%s: SetApply over the %s = %+v, %v; want 400 naming %s as a local file", tc.name, via, res, err, tc.url)
				continue
			}
			if strings.Contains(ae.Message, size+" ") || strings.Contains(ae.Message, size+",") || strings.Count(ae.Message, sha) > strings.Count(tc.lock, sha) {
				t.Errorf("%s: the answer over the %s tells the file's size or hash: %s", tc.name, via, ae.Message)
			}
		}
	}
	cached, err := os.ReadDir(filepath.Join(opts.Config.Paths.State, follow.CacheDir))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	if len(cached) != 0 {
		t.Errorf("the cache holds %v after refused locks; want nothing", cached)
	}
	m := New(opts)
	defer m.Close()
	if packs, err := m.Packs(t.Context()); err != nil || len(packs) != 0 {
		t.Errorf("Packs = %+v, %v; want none installed", packs, err)
	}
	if data, err := os.ReadFile(secret); err != nil || !bytes.Equal(data, archive) {
		t.Errorf("the local file changed: %v", err)
	}
}

// TestTCPAPIAppliesOCIReference: an oci:// reference is remote, like an
// http(s) URL: the TCP API takes it and the daemon applies the set it
// names, from a real registry.
func TestTCPAPIAppliesOCIReference(t *testing.T) {
	t.Setenv("DOCKER_CONFIG", t.TempDir())
	t.Setenv(oci.EnvUsername, "")
	t.Setenv(oci.EnvPassword, "")
	reg := registrytest.Start(t, registrytest.Options{})
	ref, err := oci.ParseReference("oci://" + reg.Ref("league/packs", "live"))
	if err != nil {
		t.Fatal(err)
	}
	archive := packArchive(t, "oci-pack", "1.0.0")
	path := filepath.Join(t.TempDir(), "oci-pack.zip")
	if err := os.WriteFile(path, archive, 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(archive)
	kept := []export.Kept{{ID: "oci-pack", Version: "1.0.0", SHA256: hex.EncodeToString(sum[:]), Path: path, Ext: ".zip"}}
	pushed, err := export.ExportOCI(t.Context(), oci.New(oci.Options{}), ref, "", kept, "", nil, time.Unix(0, 0), 0)
	if err != nil {
		t.Fatal(err)
	}
	_, c := serveTCP(t)
	res, err := c.SetApply(t.Context(), api.SetApplyRequest{URL: ref.String()})
	if err != nil || res.Check.Result != api.CheckApplied || res.Check.Fingerprint != pushed.Lock.Fingerprint() {
		t.Fatalf("SetApply(%s) over the TCP API = %+v, %v; want %s applied", ref, res, err, pushed.Lock.Fingerprint())
	}
}
