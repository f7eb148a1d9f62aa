package daemon

import (
	"crypto/sha256"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/selfupdate"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// releaseFeed serves a signed release feed offering version for
// linux/amd64 over real HTTP, and counts the reads of SHA256SUMS.
func releaseFeed(t *testing.T, version string) (url, pub string, reads *atomic.Int64) {
	t.Helper()
	dir := t.TempDir()
	kp, err := lock.GenerateKeyPair(filepath.Join(dir, "k"), filepath.Join(dir, "k.pub"), "")
	if err != nil {
		t.Fatal(err)
	}
	key, err := lock.ReadSecretKey(kp.SecretKey, "")
	if err != nil {
		t.Fatal(err)
	}
	sums := []byte(fmt.Sprintf("%x  forgesync_%s_linux_amd64.tar.gz\n", sha256.Sum256([]byte("archive")), version))
	sig := lock.Sign(key, sums, "file:SHA256SUMS")
	reads = new(atomic.Int64)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/SHA256SUMS":
			reads.Add(1)
			w.Write(sums)
		case "/SHA256SUMS.minisig":
			w.Write(sig)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/", kp.Public, reads
}

// TestUpdateCheckAtMostDaily: the daemon reads the feed when no check
// was made, not again within the day (also after a restart: the result
// is kept in the state folder), and again a day later; GET /v1/update
// says what it found; a failed check says why and keeps the version it
// knew.
func TestUpdateCheckAtMostDaily(t *testing.T) {
	feed, pub, reads := releaseFeed(t, "1.1.0")
	state := t.TempDir()
	now := time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)
	newChecker := func(feed string) *updateChecker {
		u := newUpdateChecker(selfupdate.Options{Feed: feed, Key: pub, Current: "1.0.0", GOOS: "linux", GOARCH: "amd64"}, state, slog.New(slog.DiscardHandler))
		u.now = func() time.Time { return now }
		return u
	}
	u := newChecker(feed)
	if next := u.checkIfDue(t.Context()); !next.Equal(now.Add(24*time.Hour)) || reads.Load() != 1 {
		t.Fatalf("first check: next %v, %d reads; want a read, the next in a day", next, reads.Load())
	}
	srv := startServer(t, newFakeBackend(), nil, ServerOptions{Version: "1.0.0", Update: u.Status})
	st, err := srv.client.Update(t.Context())
	if err != nil || st.Current != "1.0.0" || st.Latest != "1.1.0" || !st.Available || !st.Checking || st.CheckedAt == nil || !st.CheckedAt.Equal(now) || st.Error != "" {
		t.Fatalf("GET /v1/update = %+v, %v; want 1.1.0 available, checked now", st, err)
	}

	now = now.Add(23 * time.Hour) // a restart within the day
	u = newChecker(feed)
	u.checkIfDue(t.Context())
	if st := u.Status(); reads.Load() != 1 || st.Latest != "1.1.0" || !st.Available {
		t.Errorf("a restart within the day: %d reads, %+v; want no read and the kept result", reads.Load(), st)
	}

	now = now.Add(2 * time.Hour)
	u = newChecker("http://127.0.0.1:1/") // nothing listens: the check fails
	u.checkIfDue(t.Context())
	if st := u.Status(); st.Error == "" || !strings.Contains(st.Error, "127.0.0.1:1") || st.Latest != "1.1.0" || !st.CheckedAt.Equal(now) {
		t.Errorf("a failed check a day later = %+v; want why, and the version known before", st)
	}
	now = now.Add(30 * time.Minute)
	u = newChecker(feed)
	if next := u.checkIfDue(t.Context()); reads.Load() != 1 || !next.Equal(now.Add(30*time.Minute)) {
		t.Errorf("half an hour after the failed check: %d reads, next %v; want no read, the next half an hour on", reads.Load(), next)
	}
	now = now.Add(31 * time.Minute)
	u = newChecker(feed)
	u.checkIfDue(t.Context())
	if st := u.Status(); reads.Load() != 2 || st.Error != "" || !st.Available {
		t.Errorf("an hour after the failed check: %d reads, %+v; want a second read", reads.Load(), st)
	}
}

// TestGetUpdateWithoutChecking: a daemon that does not check says so and
// its version.
func TestGetUpdateWithoutChecking(t *testing.T) {
	srv := startServer(t, newFakeBackend(), nil, ServerOptions{Version: "1.0.0"})
	st, err := srv.client.Update(t.Context())
	if err != nil || st.Current != "1.0.0" || st.Checking || st.Available || st.CheckedAt != nil {
		t.Fatalf("GET /v1/update = %+v, %v; want 1.0.0, not checking", st, err)
	}
}
