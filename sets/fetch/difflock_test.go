package fetch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"aead.dev/minisign"

	"github.com/mjolnir-forge/forgesync/sets/export"
	"github.com/mjolnir-forge/forgesync/sets/lock"
	"github.com/mjolnir-forge/forgesync/sets/settest"
)

// TestDiffLock compares a machine with an exported, signed set: trusted
// or not, equal or not, and the state is read only once the lock is good.
func TestDiffLock(t *testing.T) {
	dir := t.TempDir()
	kept := []export.Kept{
		keptFile(t, dir, "foundry-wide", "1.0.0", settest.ArchiveBytes("foundry-wide", 20000)),
		keptFile(t, dir, "gate-pack", "1.0.0", settest.ArchiveBytes("gate-pack", 20001)),
	}
	pub, priv, err := minisign.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	pubText, _ := pub.MarshalText()
	out := t.TempDir()
	l, err := export.ExportWith(t.Context(), out, kept, export.ExportOptions{Name: "league", Key: &priv})
	if err != nil {
		t.Fatal(err)
	}
	var all []lock.Installed
	for _, k := range kept {
		all = append(all, lock.Installed{ID: k.ID, Version: k.Version, SHA256: k.SHA256, Enabled: true})
	}
	have := func(packs []lock.Installed) func(context.Context) ([]lock.Installed, error) {
		return func(context.Context) ([]lock.Installed, error) { return packs, nil }
	}
	keyID := lock.KeyID(pub.ID())
	tests := []struct {
		name    string
		trusted []string
		have    []lock.Installed
		want    string
	}{
		{"trusted and equal", []string{string(pubText)}, all,
			"set " + l.Fingerprint() + " signed by trusted key " + keyID + "\nthe machine equals the set (2 packs)\n"},
		{"untrusted and one missing", nil, all[:1],
			all[1].ID + ": missing (the set pins " + all[1].Version + ")\nset " + l.Fingerprint() + " signed by key " + keyID + " (not checked: no [sets] trusted_keys)\n" +
				"the machine (" + lock.MachineFingerprint(all[:1]) + ") differs from the set in 1 pack\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := DiffLock(t.Context(), nil, out, tt.trusted, have(tt.have))
			if err != nil {
				t.Fatal(err)
			}
			if rep.Source != filepath.Join(out, lock.LockName) || rep.Name != "league" || rep.Pinned != 2 || rep.Equal != (len(tt.have) == 2) {
				t.Errorf("DiffLock = %+v", rep)
			}
			var b strings.Builder
			if err := WriteDiff(&b, rep); err != nil || !strings.HasSuffix(b.String(), tt.want) {
				t.Errorf("WriteDiff =\n%s\nwant it to end in\n%s", b.String(), tt.want)
			}
		})
	}
	// A lock that cannot be read never opens the state.
	opened := false
	_, err = DiffLock(t.Context(), nil, filepath.Join(t.TempDir(), "none.lock"), nil, func(context.Context) ([]lock.Installed, error) {
		opened = true
		return nil, errors.New("opened")
	})
	if err == nil || opened {
		t.Errorf("DiffLock(missing) = %v, state opened %v; want an error before the state", err, opened)
	}
}

// TestDiffLockWithoutPassword: `forgesync diff` of a lock behind a
// password, whose URLs hold it too, shows neither; nor does its error for
// a lock it refuses.
func TestDiffLockWithoutPassword(t *testing.T) {
	var served string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != "league" || p != "s3cret" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		if r.URL.Path != "/set/"+lock.LockName {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(served))
	}))
	defer srv.Close()
	authed := "http://league:s3cret@" + srv.Listener.Addr().String()
	sum := sha256.Sum256([]byte("an archive"))
	e := lock.Entry{ID: "alpha-pack", Version: "1.0.0", SHA256: hex.EncodeToString(sum[:])}
	text, err := lock.Encode(&lock.Lock{Chunks: []string{authed + "/chunks/"}, Packs: []lock.Pack{{ID: e.ID, Version: e.Version, SHA256: e.SHA256, Size: 10,
		URLs: []string{authed + "/a.zip"}, Index: &lock.IndexRef{URL: authed + "/a.caibx", SHA256: settest.HashA}}}})
	if err != nil {
		t.Fatal(err)
	}
	served = string(text)
	none := func(context.Context) ([]lock.Installed, error) { return nil, nil }
	f := &Fetcher{AllowPrivate: true}
	rep, err := DiffLock(t.Context(), f, authed+"/set/", nil, none)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	WriteDiff(&b, rep)
	js, _ := json.Marshal(rep)
	if strings.Contains(b.String()+string(js), "s3cret") || rep.Source != "http://league:xxxxx@"+srv.Listener.Addr().String()+"/set/"+lock.LockName {
		t.Errorf("diff shows the password:\n%s\n%s", b.String(), js)
	}
	served = strings.Replace(served, `version = "1.0.0"`, `version = "one"`, 1)
	if _, err := DiffLock(t.Context(), f, authed+"/set/", nil, none); err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("DiffLock(a bad lock) = %v; want it refused, without the password", err)
	}
}
