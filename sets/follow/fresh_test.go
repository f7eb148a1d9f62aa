package follow

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"aead.dev/minisign"

	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// mirror serves one signed lock at /forgepacks.lock (with its .minisig)
// and archives by name; the lock can be swapped, as a mirror or a man in
// the middle would.
type mirror struct {
	mu       sync.Mutex
	lock     []byte
	sig      []byte
	archives map[string][]byte
}

func (m *mirror) serve(lock, sig []byte) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.lock, m.sig = lock, sig
}

func (m *mirror) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch name := strings.TrimPrefix(r.URL.Path, "/"); name {
	case lock.LockName:
		w.Write(m.lock)
	case lock.SignatureName:
		w.Write(m.sig)
	default:
		if b, ok := m.archives[name]; ok {
			w.Write(b)
			return
		}
		http.NotFound(w, r)
	}
}

// TestFollowerRefusesReplayAndFreeze plays SPEC §10.2c against the
// follower: a signed lock with a lower serial than the one applied from
// the source (a replay), the same serial with other packs, or none, is
// refused naming both serials, changes nothing, is not remembered, and
// status says why, also after a restart; a lock past its expires is
// refused (a freeze) and status warns a week before; a lock without
// serial or expires applies on a machine that never had one from there.
func TestFollowerRefusesReplayAndFreeze(t *testing.T) {
	pub, priv, err := minisign.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	a, b := []byte("the archive of the set's first version"), []byte("the archive of the set's second version")
	m := &mirror{archives: map[string][]byte{"a.zip": a, "b.zip": b}}
	srv := httptest.NewServer(m)
	defer srv.Close()
	// signed returns a lock of one pack (these bytes at this URL) with
	// this serial and expiry, and its signature.
	signed := func(data []byte, name string, serial int64, expires time.Time) ([]byte, []byte) {
		text, _ := lockOf(data, srv.URL+"/"+name)
		l, err := lock.Decode("lock", []byte(text), lock.DecodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		l.Serial, l.Expires = serial, expires
		out, err := lock.Encode(l)
		if err != nil {
			t.Fatal(err)
		}
		return out, lock.Sign(priv, out, "")
	}
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	state := t.TempDir()
	w := &fakeWriter{}
	open := func() *Syncer {
		s, err := New(w, Options{State: state, Follow: srv.URL + "/", TrustedKeys: []minisign.PublicKey{pub}, Now: func() time.Time { return now }})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := open()
	source := srv.URL + "/" + lock.LockName
	installed := func() string { return lock.MachineFingerprint(w.installed) }

	v1, v1sig := signed(a, "a.zip", 10, time.Time{})
	m.serve(v1, v1sig)
	// The fake writer applies without a summary: an apply says equal.
	applied := func(res *Result) bool {
		return res != nil && (res.Check.Result == CheckApplied || res.Check.Result == CheckEqual)
	}
	if res, err := s.Check(t.Context()); err != nil || !applied(res) || installed() != lock.Fingerprint([]lock.Entry{{ID: "held-pack", Version: "1.0.0", SHA256: sha256Of(a)}}) {
		t.Fatalf("Check(serial 10) = %+v, %v; want applied", res, err)
	}
	m.serve(signed(b, "b.zip", 11, time.Time{}))
	res, err := s.Check(t.Context())
	if err != nil || !applied(res) || installed() != lock.Fingerprint([]lock.Entry{{ID: "held-pack", Version: "1.0.0", SHA256: sha256Of(b)}}) {
		t.Fatalf("Check(serial 11) = %+v, %v; want applied", res, err)
	}
	want := installed()

	replays := []struct {
		name      string
		lock, sig []byte
		says      string
	}{
		{"an older set", v1, v1sig, "its serial 10 is lower than serial 11 (" + want + "), the highest applied from this source: a replay"},
		{"the same serial, other packs", nil, nil, "its serial 11 is the one applied from this source, with other packs"},
		{"no serial", nil, nil, "the lock has no serial, and serial 11"},
	}
	replays[1].lock, replays[1].sig = signed(a, "a.zip", 11, time.Time{})
	replays[2].lock, replays[2].sig = signed(a, "a.zip", 0, time.Time{})
	for _, r := range replays {
		for _, s := range []*Syncer{s, open()} { // and after a restart
			m.serve(r.lock, r.sig)
			res, err := s.Check(t.Context())
			if !errors.Is(err, errLock) || !errors.Is(err, lock.ErrReplay) || !strings.Contains(err.Error(), r.says) {
				t.Fatalf("%s: Check = %v; want a replay refused: %s", r.name, err, r.says)
			}
			st := s.Status(w.installed)
			if installed() != want || st.Fingerprint != want || st.LastCheck.Result != CheckFailed || !strings.Contains(st.LastCheck.Error, r.says) || res.Check.Error != st.LastCheck.Error {
				t.Fatalf("%s: after the refusal the machine is %s and status %+v (last check %+v); want %s unchanged, and the check failed saying why",
					r.name, installed(), st, st.LastCheck, want)
			}
		}
	}

	// The same set exported again, expiring in 3 days: nothing to do, the
	// serial remembered, and status warns.
	expires := now.Add(3 * 24 * time.Hour)
	m.serve(signed(b, "b.zip", 12, expires))
	if res, err := s.Check(t.Context()); err != nil || res.Check.Result != CheckEqual {
		t.Fatalf("Check(serial 12, the same packs) = %+v, %v; want equal", res, err)
	}
	if got := s.Record().Serials[source]; got.Serial != 12 || got.Fingerprint != want {
		t.Errorf("the record keeps %+v for %s; want serial 12, %s", got, source, want)
	}
	st := s.Status(w.installed)
	if st.Serial != 12 || st.Expires == nil || !st.Expires.Equal(expires) {
		t.Errorf("status = %+v; want serial 12, expires %s", st, expires)
	}
	if ws := s.Warnings(); len(ws) != 1 || !strings.Contains(ws[0], "expires at 2030-01-04T00:00:00Z, in 3 days") {
		t.Errorf("Warnings = %q; want one saying the set expires in 3 days", ws)
	}

	// Past its expiry the same lock is refused: a freeze.
	now = expires
	if _, err := s.Check(t.Context()); !errors.Is(err, errLock) || !errors.Is(err, lock.ErrExpired) || !strings.Contains(err.Error(), "it expired at 2030-01-04T00:00:00Z") {
		t.Fatalf("Check(expired) = %v; want the set refused as expired", err)
	}
	if st := s.Status(w.installed); installed() != want || st.LastCheck.Result != CheckFailed || !strings.Contains(st.LastCheck.Error, "expired") {
		t.Errorf("after the freeze the machine is %s and the last check %+v; want %s unchanged, the check failed", installed(), st.LastCheck, want)
	}
	if ws := s.Warnings(); len(ws) != 1 || !strings.Contains(ws[0], "the pack set expired at 2030-01-04T00:00:00Z") {
		t.Errorf("Warnings = %q; want one saying the set expired", ws)
	}

	// A lock without serial or expires applies where none came from.
	w2 := &fakeWriter{}
	s2, err := New(w2, Options{State: t.TempDir(), Follow: srv.URL + "/", TrustedKeys: []minisign.PublicKey{pub}, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	m.serve(replays[2].lock, replays[2].sig)
	if res, err := s2.Check(t.Context()); err != nil || !applied(res) || len(w2.installed) != 1 || len(s2.Record().Serials) != 0 {
		t.Fatalf("Check(no serial, no expires) on a fresh machine = %+v, %v, serials %v; want applied, nothing remembered", res, err, s2.Record().Serials)
	}
	if ws := s2.Warnings(); len(ws) != 0 {
		t.Errorf("Warnings = %q; want none for a lock that never expires", ws)
	}
}

func sha256Of(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// TestSerialsBounded: the record keeps the freshest lock of at most
// maxSerials sources, forgetting those applied longest ago.
func TestSerialsBounded(t *testing.T) {
	m := map[string]lock.Applied{}
	t0 := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range maxSerials + 3 {
		m[fmt.Sprintf("https://sets.example.org/%d/forgepacks.lock", i)] = lock.Applied{Serial: 1, Time: t0.Add(time.Duration(i) * time.Minute)}
	}
	forgetOldest(m, maxSerials)
	if len(m) != maxSerials {
		t.Fatalf("%d sources kept; want %d", len(m), maxSerials)
	}
	for i := range 3 {
		if _, ok := m[fmt.Sprintf("https://sets.example.org/%d/forgepacks.lock", i)]; ok {
			t.Errorf("source %d, among the oldest, was kept", i)
		}
	}
}
