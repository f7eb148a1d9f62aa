package oci_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/registry/remote"

	"github.com/mjolnir-forge/forgesync/internal/registrytest"
	"github.com/mjolnir-forge/forgesync/sets/oci"
)

// env returns a Getenv with the registry's account as FORGESYNC_REGISTRY_*,
// and no Docker config.
func env(t *testing.T, user, pass string) func(string) string {
	dir := t.TempDir()
	return func(k string) string {
		switch k {
		case oci.EnvUsername:
			return user
		case oci.EnvPassword:
			return pass
		case "DOCKER_CONFIG":
			return dir
		}
		return ""
	}
}

func file(title, mediaType string, data []byte) oci.File {
	sum := sha256.Sum256(data)
	return oci.File{Title: title, MediaType: mediaType, SHA256: hex.EncodeToString(sum[:]), Size: int64(len(data)),
		Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }}
}

func mustRef(t *testing.T, s string) oci.Reference {
	t.Helper()
	r, err := oci.ParseReference(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// blobBytesUp sums the request bytes uploaded to blob paths.
func blobBytesUp(reqs []registrytest.Request) (n int64) {
	for _, r := range reqs {
		if strings.Contains(r.Path, "/blobs/") {
			n += r.Uploaded
		}
	}
	return n
}

// TestPushPull: a set pushed through the token flow reads back by tag and
// by digest; an unchanged re-push uploads no blob byte; an unchanged
// re-check is one request.
func TestPushPull(t *testing.T) {
	reg := registrytest.Start(t, registrytest.Options{Auth: registrytest.AuthToken})
	proxy := registrytest.NewProxy(t, reg)
	r := oci.New(oci.Options{Getenv: env(t, reg.User, reg.Password)})
	ref := mustRef(t, "oci://"+proxy.Ref("league/packs", "live"))

	lock := []byte("format = \"forgepacks-lock\"\nversion = 1\n")
	archive := bytes.Repeat([]byte("forge"), 50_000)
	files := []oci.File{file(oci.LockTitle, oci.MediaTypeLock, lock), file(oci.SignatureTitle, oci.MediaTypeSignature, []byte("sig")),
		file(oci.Title(strings.Repeat("a", 64), ".zip"), oci.MediaTypeArchive, archive)}
	created := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	p, err := r.Push(t.Context(), ref, files, oci.Annotations{Title: "League", Version: "sha256:fp", Created: created})
	if err != nil {
		t.Fatalf("Push = %v", err)
	}
	if p.Uploaded != 3 || p.Skipped != 0 || p.UploadedBytes != int64(len(lock)+3+len(archive)) || p.Reference.Digest == "" || p.Tagged != ref {
		t.Fatalf("Push = %+v; want 3 blobs uploaded and the digest", p)
	}

	set, err := r.Pull(t.Context(), ref, "", 1<<20, 4<<10)
	if err != nil {
		t.Fatalf("Pull(tag) = %v", err)
	}
	if set.Digest != p.Reference.Digest || !bytes.Equal(set.Lock, lock) || string(set.Signature) != "sig" || set.Layers[files[2].SHA256] != int64(len(archive)) {
		t.Fatalf("Pull(tag) = %+v; want the pushed set %s", set, p.Reference)
	}
	byDigest, err := r.Pull(t.Context(), p.Reference, "", 1<<20, 4<<10)
	if err != nil || byDigest.Digest != p.Reference.Digest || !bytes.Equal(byDigest.Lock, lock) {
		t.Fatalf("Pull(digest) = %+v, %v", byDigest, err)
	}

	// Unchanged: one HEAD of the manifest.
	proxy.ResetRequests()
	again, err := r.Pull(t.Context(), ref, set.Digest, 1<<20, 4<<10)
	if err != nil || !again.NotModified {
		t.Fatalf("Pull(tag, same digest) = %+v, %v; want NotModified", again, err)
	}
	if reqs := proxy.Requests(); len(reqs) != 1 || reqs[0].Method != http.MethodHead || !strings.Contains(reqs[0].Path, "/manifests/live") {
		t.Fatalf("an unchanged check sent %+v; want one HEAD of the manifest", reqs)
	}

	// An unchanged re-push uploads no blob byte, and pins the same digest.
	proxy.ResetRequests()
	p2, err := r.Push(t.Context(), ref, files, oci.Annotations{Title: "League", Version: "sha256:fp", Created: created.Add(time.Hour)})
	if err != nil || p2.Uploaded != 0 || p2.Skipped != 3 || p2.UploadedBytes != 0 || p2.Reference != p.Reference {
		t.Fatalf("re-Push = %+v, %v; want nothing uploaded and the same digest %s", p2, err, p.Reference)
	}
	if n := blobBytesUp(proxy.Requests()); n != 0 {
		t.Fatalf("an unchanged re-push uploaded %d blob bytes; want 0", n)
	}

	// A blob reads back, and from an offset.
	rc, from, err := r.OpenBlob(t.Context(), ref, files[2].SHA256, int64(len(archive)), 1000)
	if err != nil {
		t.Fatalf("OpenBlob = %v", err)
	}
	got, err := io.ReadAll(rc)
	rc.Close()
	if err != nil || !bytes.Equal(got, archive[from:]) {
		t.Fatalf("OpenBlob from 1000 gave %d bytes from %d, %v; want the rest of the blob", len(got), from, err)
	}
}

// TestPullRefusesAnotherArtifact: a manifest of another artifactType is
// refused, naming it.
func TestPullRefusesAnotherArtifact(t *testing.T) {
	reg := registrytest.Start(t, registrytest.Options{})
	repo, err := remote.NewRepository(reg.Ref("other/thing", "v1"))
	if err != nil {
		t.Fatal(err)
	}
	repo.PlainHTTP = true
	desc, err := oras.PackManifest(t.Context(), repo, oras.PackManifestVersion1_1, "application/vnd.example.chart.v1", oras.PackManifestOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := repo.Tag(t.Context(), desc, "v1"); err != nil {
		t.Fatal(err)
	}
	r := oci.New(oci.Options{Getenv: env(t, "", "")})
	_, err = r.Pull(t.Context(), mustRef(t, "oci://"+reg.Ref("other/thing", "v1")), "", 1<<20, 4<<10)
	if !errors.Is(err, oci.ErrNotASet) || !strings.Contains(err.Error(), `"application/vnd.example.chart.v1"`) {
		t.Fatalf("Pull(another artifact) = %v; want ErrNotASet naming its artifactType", err)
	}
	// A manifest without the lock is no set either.
	desc, err = oras.PackManifest(t.Context(), repo, oras.PackManifestVersion1_1, oci.ArtifactType, oras.PackManifestOptions{Layers: []ocispec.Descriptor{}})
	if err != nil {
		t.Fatal(err)
	}
	if err := repo.Tag(t.Context(), desc, "empty"); err != nil {
		t.Fatal(err)
	}
	_, err = r.Pull(t.Context(), mustRef(t, "oci://"+reg.Ref("other/thing", "empty")), "", 1<<20, 4<<10)
	if !errors.Is(err, oci.ErrNotASet) || !strings.Contains(err.Error(), "no layer is titled forgepacks.lock") {
		t.Fatalf("Pull(no lock) = %v; want ErrNotASet", err)
	}
}

// TestAuthFailureShowsNoPassword: a refused credential says what to do and
// never the password.
func TestAuthFailureShowsNoPassword(t *testing.T) {
	reg := registrytest.Start(t, registrytest.Options{Auth: registrytest.AuthToken})
	const wrong = "hunter2-wrong-password"
	r := oci.New(oci.Options{Getenv: env(t, reg.User, wrong)})
	ref := mustRef(t, "oci://"+reg.Ref("league/packs", "live"))
	_, err := r.Pull(t.Context(), ref, "", 1<<20, 4<<10)
	if err == nil || strings.Contains(err.Error(), wrong) || strings.Contains(err.Error(), reg.Password) {
		t.Fatalf("Pull(wrong password) = %v; want an error without the password", err)
	}
	_, err = r.Push(t.Context(), ref, []oci.File{file(oci.LockTitle, oci.MediaTypeLock, []byte("x"))}, oci.Annotations{Created: time.Now()})
	if err == nil || strings.Contains(err.Error(), wrong) || !strings.Contains(err.Error(), oci.EnvUsername) {
		t.Fatalf("Push(wrong password) = %v; want an error naming %s, without the password", err, oci.EnvUsername)
	}
}

// TestRateLimited: a 429 whose Retry-After is past the bound fails at once,
// saying what the limit is.
func TestRateLimited(t *testing.T) {
	reg := registrytest.Start(t, registrytest.Options{})
	proxy := registrytest.NewProxy(t, reg)
	proxy.Fault(registrytest.Fault{Path: registrytest.AnyManifestPath, Status: http.StatusTooManyRequests, RetryAfter: "3600"})
	r := oci.New(oci.Options{Getenv: env(t, "", "")})
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	_, err := r.Pull(ctx, mustRef(t, "oci://"+proxy.Ref("league/packs", "live")), "", 1<<20, 4<<10)
	if !errors.Is(err, oci.ErrRateLimited) || !strings.Contains(err.Error(), "Docker Hub allows anonymous pulls of 10 per hour") {
		t.Fatalf("Pull(429) = %v; want ErrRateLimited naming Docker Hub's limit", err)
	}
	if n := len(proxy.Requests()); n != 1 {
		t.Errorf("a 429 asking for an hour was sent %d times; want 1 (no wait past the bound)", n)
	}
}

// TestBlobRedirectDropsAuthorization: a blob redirected to another host
// (object storage) is read there without the registry's Authorization.
func TestBlobRedirectDropsAuthorization(t *testing.T) {
	reg := registrytest.Start(t, registrytest.Options{Auth: registrytest.AuthToken})
	proxy := registrytest.NewProxy(t, reg)
	r := oci.New(oci.Options{Getenv: env(t, reg.User, reg.Password)})
	ref := mustRef(t, "oci://"+proxy.Ref("league/packs", "live"))
	archive := bytes.Repeat([]byte("redirected"), 10_000)
	f := file(oci.Title(strings.Repeat("b", 64), ".zip"), oci.MediaTypeArchive, archive)
	if _, err := r.Push(t.Context(), ref, []oci.File{file(oci.LockTitle, oci.MediaTypeLock, []byte("lock")), f}, oci.Annotations{Created: time.Now()}); err != nil {
		t.Fatal(err)
	}
	proxy.Fault(registrytest.Fault{Method: http.MethodGet, Path: `/blobs/sha256:` + f.SHA256 + `$`, RedirectBlobs: true})
	proxy.ResetRequests()
	rc, _, err := r.OpenBlob(t.Context(), ref, f.SHA256, f.Size, 0)
	if err != nil {
		t.Fatalf("OpenBlob(redirected) = %v", err)
	}
	got, err := io.ReadAll(rc)
	rc.Close()
	if err != nil || !bytes.Equal(got, archive) {
		t.Fatalf("read %d bytes, %v; want the blob", len(got), err)
	}
	var object, authed int
	for _, q := range proxy.Requests() {
		if q.Object {
			object++
			if q.HadAuthorization {
				authed++
			}
		}
	}
	if object == 0 || authed != 0 {
		t.Fatalf("object host answered %d requests, %d with an Authorization header; want at least 1, none with it", object, authed)
	}
}

// TestDockerConfigCredentials: without FORGESYNC_REGISTRY_*, the
// credential `docker login` leaves in the Docker config is used, from
// $DOCKER_CONFIG or the file named.
func TestDockerConfigCredentials(t *testing.T) {
	reg := registrytest.Start(t, registrytest.Options{Auth: registrytest.AuthToken})
	dir := t.TempDir()
	auth := base64.StdEncoding.EncodeToString([]byte(reg.User + ":" + reg.Password))
	cfg := `{"auths": {"` + reg.Host + `": {"auth": "` + auth + `"}}}`
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	ref := mustRef(t, "oci://"+reg.Ref("league/packs", "live"))
	files := []oci.File{file(oci.LockTitle, oci.MediaTypeLock, []byte("lock"))}
	fromEnv := oci.New(oci.Options{Getenv: func(k string) string {
		if k == "DOCKER_CONFIG" {
			return dir
		}
		return ""
	}})
	if _, err := fromEnv.Push(t.Context(), ref, files, oci.Annotations{Created: time.Now()}); err != nil {
		t.Fatalf("Push with $DOCKER_CONFIG's credential = %v", err)
	}
	named := oci.New(oci.Options{DockerConfig: filepath.Join(dir, "config.json"), Getenv: env(t, "", "")})
	if _, err := named.Pull(t.Context(), ref, "", 1<<20, 4<<10); err != nil {
		t.Fatalf("Pull with the named Docker config's credential = %v", err)
	}
	// Without either: anonymous, refused by this registry.
	if _, err := oci.New(oci.Options{Getenv: env(t, "", "")}).Pull(t.Context(), ref, "", 1<<20, 4<<10); !errors.Is(err, oci.ErrUnauthorized) {
		t.Fatalf("Pull without a credential = %v; want ErrUnauthorized", err)
	}
}
