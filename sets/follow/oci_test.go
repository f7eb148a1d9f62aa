package follow

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/internal/registrytest"
	"github.com/mjolnir-forge/forgesync/sets/fetch"
	"github.com/mjolnir-forge/forgesync/sets/oci"
)

func ociFile(title, mediaType string, data []byte) oci.File {
	sum := sha256.Sum256(data)
	return oci.File{Title: title, MediaType: mediaType, SHA256: hex.EncodeToString(sum[:]), Size: int64(len(data)),
		Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }}
}

// TestFollowOCI: the daemon's follower reads a set from a registry with
// token auth, applies it, and then checks with one request while the tag
// stays; a manifest whose layers disagree with its lock changes nothing
// and is not remembered; no event holds the password.
func TestFollowOCI(t *testing.T) {
	reg := registrytest.Start(t, registrytest.Options{Auth: registrytest.AuthToken})
	proxy := registrytest.NewProxy(t, reg)
	dockerDir := t.TempDir()
	r := oci.New(oci.Options{Getenv: func(k string) string {
		return map[string]string{oci.EnvUsername: reg.User, oci.EnvPassword: reg.Password, "DOCKER_CONFIG": dockerDir}[k]
	}})
	ref, err := oci.ParseReference("oci://" + proxy.Ref("league/packs", "live"))
	if err != nil {
		t.Fatal(err)
	}
	archive := []byte(strings.Repeat("the archive a registry holds ", 1000))
	lock, entry := lockOf(archive, "packs/"+strings.Repeat("0", 64)+".zip")
	push := func(lock string, blobs ...[]byte) {
		t.Helper()
		files := []oci.File{ociFile(oci.LockTitle, oci.MediaTypeLock, []byte(lock))}
		for _, b := range blobs {
			f := ociFile("", oci.MediaTypeArchive, b)
			f.Title = oci.Title(f.SHA256, ".zip")
			files = append(files, f)
		}
		if _, err := r.Push(t.Context(), ref, files, oci.Annotations{Created: time.Unix(0, 0)}); err != nil {
			t.Fatal(err)
		}
	}
	push(lock, archive)

	events := &recorder{}
	w := &fakeWriter{}
	s, err := New(w, Options{State: t.TempDir(), Follow: ref.String(), Fetcher: fetch.Fetcher{Registry: r}, Observer: events})
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Check(t.Context())
	if err != nil || res.Check.Result != CheckApplied && res.Check.Result != CheckEqual || len(w.installed) != 1 || w.installed[0].SHA256 != entry.SHA256 {
		t.Fatalf("Check = %+v, %v; installed %+v; want the set applied", res, err, w.installed)
	}
	if len(res.Downloaded) != 1 || res.Downloaded[0].URL != ref.Blob(entry.SHA256) {
		t.Errorf("downloaded %+v; want the blob %s", res.Downloaded, ref.Blob(entry.SHA256))
	}
	if s.Record().Validators.Digest == "" {
		t.Errorf("record %+v; want the manifest's digest remembered", s.Record())
	}

	proxy.ResetRequests()
	res, err = s.Check(t.Context())
	if err != nil || !res.Check.NotModified || res.Check.Result != CheckEqual {
		t.Fatalf("second Check = %+v, %v; want not modified, equal", res, err)
	}
	if reqs := proxy.Requests(); len(reqs) != 1 || reqs[0].Method != http.MethodHead {
		t.Fatalf("an unchanged check made %+v; want one HEAD of the manifest", reqs)
	}

	// The tag moves to a manifest whose only layer is not the archive its
	// lock pins: refused, nothing changed, the digest not remembered.
	other := []byte("another archive, not the one the lock pins")
	next, _ := lockOf([]byte("bytes no layer holds"), "packs/x.zip")
	push(next, other)
	digest := s.Record().Validators.Digest
	res, err = s.Check(t.Context())
	if err == nil || !strings.Contains(err.Error(), "the manifest has no layer of that digest") || len(w.installed) != 1 || w.installed[0].SHA256 != entry.SHA256 {
		t.Fatalf("Check(disagreeing manifest) = %+v, %v; installed %+v; want it refused, nothing changed", res, err, w.installed)
	}
	if s.Record().Validators.Digest != digest {
		t.Errorf("the refused manifest was remembered: %s, was %s", s.Record().Validators.Digest, digest)
	}
	data, _ := json.Marshal(events.all)
	if strings.Contains(string(data), reg.Password) || len(events.all) < 3 {
		t.Fatalf("events %s hold the password, or are missing", data)
	}
}
