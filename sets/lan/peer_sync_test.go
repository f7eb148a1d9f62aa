package lan_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"aead.dev/minisign"

	"github.com/mjolnir-forge/forgesync/internal/toolcheck"
	"github.com/mjolnir-forge/forgesync/sets/casync"
	"github.com/mjolnir-forge/forgesync/sets/export"
	"github.com/mjolnir-forge/forgesync/sets/fetch"
	"github.com/mjolnir-forge/forgesync/sets/lan"
	"github.com/mjolnir-forge/forgesync/sets/lock"
	"github.com/mjolnir-forge/forgesync/sets/settest"
)

// countingMirror serves an export folder and records each path asked.
type countingMirror struct {
	srv  *httptest.Server
	mu   sync.Mutex
	seen []string
}

func newCountingMirror(t *testing.T, dir string) *countingMirror {
	m := &countingMirror{}
	fs := http.FileServer(http.Dir(dir))
	m.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m.mu.Lock()
		m.seen = append(m.seen, r.URL.Path)
		m.mu.Unlock()
		fs.ServeHTTP(w, r)
	}))
	t.Cleanup(m.srv.Close)
	return m
}

func (m *countingMirror) take() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := m.seen
	m.seen = nil
	return out
}

// machine is one machine's cache, chunk store and kept seed.
type machine struct {
	cache, chunks string
	seed          string
}

func newMachine(t *testing.T, v1 []byte) *machine {
	m := &machine{cache: t.TempDir(), chunks: t.TempDir()}
	m.seed = filepath.Join(t.TempDir(), "alpha-1.0.0.zip")
	if err := os.WriteFile(m.seed, v1, 0o644); err != nil {
		t.Fatal(err)
	}
	return m
}

// sync reads the lock at the mirror, checks its signature and fetches its
// packs into m's cache, peers first.
func (m *machine) sync(t *testing.T, lockURL string, pub minisign.PublicKey, peers fetch.Peers) []fetch.Result {
	t.Helper()
	// No kept-alive connections: none holds up the peer's shutdown.
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	f := &fetch.Fetcher{Dir: m.cache, AllowPrivate: true, Tries: 1, Client: client}
	if peers != nil {
		f.Peers = peers
	}
	src := fetch.Source{URL: lockURL}
	lf, err := f.FetchLock(t.Context(), src, fetch.Validators{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lock.Verify(lf.Data, lf.Signature, []minisign.PublicKey{pub}); err != nil {
		t.Fatalf("the lock's signature: %v", err)
	}
	l, err := lock.Decode(lockURL, lf.Data, lock.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f.Delta = &fetch.Delta{Chunks: l.Chunks, Keep: m.chunks,
		Seeds: func(p lock.Pack) []fetch.Seed {
			if p.ID == "alpha" {
				return []fetch.Seed{{Path: m.seed}}
			}
			return nil
		}}
	res, err := f.Fetch(t.Context(), src, l.Packs)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range l.Packs {
		if err := lock.VerifyFile(filepath.Join(m.cache, p.SHA256), p.Size, p.SHA256); err != nil {
			t.Errorf("pack %s: %v", p.ID, err)
		}
	}
	return res
}

// serveMachine serves m's cache and chunk store as a LAN peer and returns
// its base URL.
func serveMachine(t *testing.T, m *machine) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &lan.Server{Chunks: m.chunks, Archive: func(sha string) string {
		p := filepath.Join(m.cache, sha)
		if _, err := os.Stat(p); err != nil {
			return ""
		}
		return p
	}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx, ln) }()
	t.Cleanup(func() { cancel(); <-done })
	return "http://" + ln.Addr().String()
}

// signedSet exports alpha 2.0.0 (an edit of 1.0.0, which both machines
// keep) and beta (new) with indexes and a chunk store, signed.
func signedSet(t *testing.T) (dir string, v1 []byte, pub minisign.PublicKey) {
	t.Helper()
	pub, priv, err := minisign.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	src, dir := t.TempDir(), t.TempDir()
	v1 = settest.RandomBytes(11, 2<<20)
	v2 := settest.Edited(v1, 40<<10, 60<<10, 20<<10)
	beta := settest.RandomBytes(12, 700<<10)
	var kept []export.Kept
	for _, a := range []struct {
		id, version string
		data        []byte
	}{{"alpha", "2.0.0", v2}, {"beta", "1.0.0", beta}} {
		sum := sha256.Sum256(a.data)
		p := filepath.Join(src, a.id+"-"+a.version+".zip")
		os.WriteFile(p, a.data, 0o644)
		kept = append(kept, export.Kept{ID: a.id, Version: a.version, SHA256: hex.EncodeToString(sum[:]), Path: p, Ext: ".zip"})
	}
	if _, err := export.ExportWith(t.Context(), dir, kept, export.ExportOptions{Key: &priv}); err != nil {
		t.Fatal(err)
	}
	return dir, v1, pub
}

// TestSecondMachineSyncsFromPeer: the first machine syncs a set from the
// mirror; a second, with the first as its peer, takes every archive and
// chunk from it: the mirror serves it only the lock, its signature and
// the chunk index.
func TestSecondMachineSyncsFromPeer(t *testing.T) {
	dir, v1, pub := signedSet(t)
	mirror := newCountingMirror(t, dir)
	lockURL := mirror.srv.URL + "/" + lock.LockName
	a, b := newMachine(t, v1), newMachine(t, v1)
	a.sync(t, lockURL, pub, nil)
	mirror.take()
	var logged bytes.Buffer
	peers, err := lan.NewPeers([]string{serveMachine(t, a)}, "", slog.New(slog.NewTextHandler(&logged, nil)))
	if err != nil {
		t.Fatal(err)
	}
	res := b.sync(t, lockURL, pub, peers)
	seen := mirror.take()
	slices.Sort(seen)
	for _, p := range seen {
		if p != "/"+lock.LockName && p != "/"+lock.LockName+".minisig" && !strings.HasSuffix(p, casync.IndexExt) {
			t.Errorf("the mirror served %s to the second machine; want only the lock, its signature and indexes", p)
		}
	}
	if len(seen) != 3 {
		t.Errorf("the mirror served %v; want the lock, its signature and alpha's index", seen)
	}
	for _, r := range res {
		switch {
		case r.Delta != nil && r.Delta.PeerBytes != r.Delta.FetchedBytes:
			t.Errorf("%s: %d of %d fetched bytes from the peer; want all", r.Pack.ID, r.Delta.PeerBytes, r.Delta.FetchedBytes)
		case r.Delta == nil && !r.Peer:
			t.Errorf("%s came from %s; want the peer", r.Pack.ID, r.From)
		}
	}
	if len(peers.Dropped()) != 0 || logged.Len() != 0 {
		t.Errorf("peers dropped %v, log %q; want none", peers.Dropped(), logged.String())
	}
}

// TestLyingPeerNamed: a peer whose archives and chunks are corrupt is
// dropped and named in the log; the sync ends with the pinned bytes from
// the mirror (sync checks each against the lock).
func TestLyingPeerNamed(t *testing.T) {
	dir, v1, pub := signedSet(t)
	mirror := newCountingMirror(t, dir)
	lockURL := mirror.srv.URL + "/" + lock.LockName
	a, b := newMachine(t, v1), newMachine(t, v1)
	a.sync(t, lockURL, pub, nil)
	// Flip a byte in every file the peer serves.
	for _, d := range []string{a.cache, a.chunks} {
		filepath.WalkDir(d, func(p string, e os.DirEntry, err error) error {
			if err == nil && e.Type().IsRegular() {
				data, _ := os.ReadFile(p)
				data[len(data)/2] ^= 0xff
				os.Chmod(p, 0o644)
				os.WriteFile(p, data, 0o644)
			}
			return nil
		})
	}
	var logged bytes.Buffer
	peer := serveMachine(t, a)
	peers, _ := lan.NewPeers([]string{peer}, "", slog.New(slog.NewTextHandler(&logged, nil)))
	b.sync(t, lockURL, pub, peers)
	if _, ok := peers.Dropped()[peer]; !ok || !strings.Contains(logged.String(), peer) || !strings.Contains(logged.String(), "dropped") {
		t.Errorf("dropped %v, log %q; want the peer dropped and named", peers.Dropped(), logged.String())
	}
}

// TestDesyncReadsPeerChunks: desync reads a peer's chunks over HTTP as a
// chunk store and rebuilds the archive from its index.
func TestDesyncReadsPeerChunks(t *testing.T) {
	toolcheck.Desync(t) // built once, or the test stops by the tool rule
	dir, v1, pub := signedSet(t)
	mirror := newCountingMirror(t, dir)
	a := newMachine(t, v1)
	// Machine a keeps every chunk of the set: it fetched them without a
	// seed of any use.
	a.seed = filepath.Join(t.TempDir(), "none")
	os.WriteFile(a.seed, []byte("x"), 0o644)
	res := a.sync(t, mirror.srv.URL+"/"+lock.LockName, pub, nil)
	var alpha fetch.Result
	for _, r := range res {
		if r.Pack.ID == "alpha" {
			alpha = r
		}
	}
	if alpha.Delta == nil {
		t.Skip("alpha was not rebuilt from chunks: no chunk store to read")
	}
	peer := serveMachine(t, a)
	out := filepath.Join(t.TempDir(), "alpha.zip")
	index := filepath.Join(dir, "packs", alpha.Pack.SHA256+casync.IndexExt)
	toolcheck.RunDesync(t, "extract", "-s", peer+"/lan/v1/chunks/", index, out)
	got, _ := os.ReadFile(out)
	want, _ := os.ReadFile(alpha.Path)
	if !bytes.Equal(got, want) {
		t.Errorf("desync extract from the peer's store: %d bytes, not the archive's %d", len(got), len(want))
	}
}
