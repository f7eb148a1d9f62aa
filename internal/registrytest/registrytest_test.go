package registrytest

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/errdef"
	"oras.land/oras-go/v2/registry/remote"
	"oras.land/oras-go/v2/registry/remote/auth"
	"oras.land/oras-go/v2/registry/remote/errcode"
)

// repository returns an oras-go client of repo on host with the given
// credentials (none when user is "").
func repository(t *testing.T, host, repo, user, password string) *remote.Repository {
	t.Helper()
	r, err := remote.NewRepository(host + "/" + repo)
	if err != nil {
		t.Fatalf("NewRepository(%q): %v", host+"/"+repo, err)
	}
	r.PlainHTTP = true
	client := &auth.Client{Client: &http.Client{}, Cache: auth.NewCache()}
	if user != "" {
		client.Credential = auth.StaticCredential(host, auth.Credential{Username: user, Password: password})
	}
	r.Client = client
	return r
}

func randomBlob(t *testing.T, n int) ([]byte, ocispec.Descriptor) {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return b, content.NewDescriptorFromBytes("application/octet-stream", b)
}

func pushBlob(t *testing.T, r *remote.Repository, b []byte, d ocispec.Descriptor) {
	t.Helper()
	if err := r.Push(t.Context(), d, bytes.NewReader(b)); err != nil {
		t.Fatalf("push blob %s: %v", d.Digest, err)
	}
}

func TestRegistryAnswersV2(t *testing.T) {
	for _, mode := range []string{AuthNone, AuthBasic, AuthToken} {
		t.Run("auth="+mode, func(t *testing.T) {
			reg := Start(t, Options{Auth: mode})
			resp, err := http.Get(reg.URL + "/v2/")
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			want := http.StatusOK
			if mode != AuthNone {
				want = http.StatusUnauthorized
			}
			if resp.StatusCode != want {
				t.Errorf("GET /v2/ = %d; want %d", resp.StatusCode, want)
			}
			if v := resp.Header.Get("Docker-Distribution-Api-Version"); v != "registry/2.0" {
				t.Errorf("Docker-Distribution-Api-Version = %q; want registry/2.0", v)
			}
			if mode == AuthToken {
				c := resp.Header.Get("WWW-Authenticate")
				if !strings.HasPrefix(c, `Bearer realm="`+reg.URL+TokenPath+`"`) {
					t.Errorf("WWW-Authenticate = %q; want a Bearer challenge with realm %s", c, reg.URL+TokenPath)
				}
			}
		})
	}
}

func TestBlobPushPullThroughOrasGo(t *testing.T) {
	for _, mode := range []string{AuthNone, AuthBasic, AuthToken} {
		t.Run("auth="+mode, func(t *testing.T) {
			reg := Start(t, Options{Auth: mode})
			repo := repository(t, reg.Host, "packs/set", reg.User, reg.Password)
			b, d := randomBlob(t, 3<<20)
			pushBlob(t, repo, b, d)
			got, err := content.FetchAll(t.Context(), repo, d)
			if err != nil {
				t.Fatalf("fetch %s: %v", d.Digest, err)
			}
			if !bytes.Equal(got, b) {
				t.Fatalf("fetched blob differs from the pushed one")
			}
			if mode == AuthToken {
				if issued, _ := reg.Tokens(); issued == 0 {
					t.Errorf("Tokens() issued 0; want the push to have used a token")
				}
			}
		})
	}
}

func TestTokenAuthRefusesBadPassword(t *testing.T) {
	reg := Start(t, Options{Auth: AuthToken})
	repo := repository(t, reg.Host, "packs/set", reg.User, "not-"+reg.Password)
	_, d := randomBlob(t, 10)
	_, err := repo.Exists(t.Context(), d)
	var resp *errcode.ErrorResponse
	if !errors.As(err, &resp) || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("Exists with a bad password: %v; want a 401 from the token server", err)
	}
	if _, refused := reg.Tokens(); refused == 0 {
		t.Errorf("Tokens() refused 0; want the bad password refused")
	}

	anon := repository(t, reg.Host, "packs/set", "", "")
	if _, err := anon.Exists(t.Context(), d); err == nil {
		t.Errorf("Exists anonymously on a registry without anonymous pull: nil error; want 401")
	}
}

func TestAnonymousPullMayReadButNotWrite(t *testing.T) {
	reg := Start(t, Options{Auth: AuthToken, AnonymousPull: true})
	b, d := randomBlob(t, 1000)
	pushBlob(t, repository(t, reg.Host, "public/set", reg.User, reg.Password), b, d)
	anon := repository(t, reg.Host, "public/set", "", "")
	got, err := content.FetchAll(t.Context(), anon, d)
	if err != nil || !bytes.Equal(got, b) {
		t.Fatalf("anonymous fetch: %v (same bytes: %t); want the blob", err, bytes.Equal(got, b))
	}
	b2, d2 := randomBlob(t, 1000)
	if err := anon.Push(t.Context(), d2, bytes.NewReader(b2)); err == nil {
		t.Errorf("anonymous push: nil error; want it refused")
	}
}

// setup returns a token-auth registry with one blob, a proxy in front of
// it, and an oras-go client through the proxy.
func setup(t *testing.T, size int) (*Registry, *Proxy, *remote.Repository, []byte, ocispec.Descriptor) {
	t.Helper()
	reg := Start(t, Options{Auth: AuthToken})
	b, d := randomBlob(t, size)
	pushBlob(t, repository(t, reg.Host, "packs/set", reg.User, reg.Password), b, d)
	p := NewProxy(t, reg)
	return reg, p, repository(t, p.Host, "packs/set", reg.User, reg.Password), b, d
}

func blobRequests(p *Proxy) []Request {
	var out []Request
	for _, r := range p.Requests() {
		if r.Method == http.MethodGet && strings.Contains(r.Path, "/blobs/sha256:") {
			out = append(out, r)
		}
	}
	return out
}

func TestProxyForwardsAndRecords(t *testing.T) {
	_, p, repo, b, d := setup(t, 1<<20)
	got, err := content.FetchAll(t.Context(), repo, d)
	if err != nil || !bytes.Equal(got, b) {
		t.Fatalf("fetch through the proxy: %v", err)
	}
	var sawToken, saw401 bool
	for _, r := range p.Requests() {
		sawToken = sawToken || r.Path == TokenPath
		saw401 = saw401 || r.Status == http.StatusUnauthorized
	}
	if !saw401 || !sawToken {
		t.Errorf("requests %+v: want a 401 challenge and a token request through the proxy", p.Requests())
	}
	br := blobRequests(p)
	last := br[len(br)-1]
	if last.Status != http.StatusOK || last.Bytes != int64(len(b)) || !last.HadAuthorization {
		t.Errorf("last blob request %+v; want 200, %d bytes, with Authorization", last, len(b))
	}
}

func TestFaultStatusThenPass(t *testing.T) {
	for _, tc := range []struct {
		name       string
		status     int
		retryAfter string
		code       string
	}{
		{"429 with Retry-After", http.StatusTooManyRequests, "7", "TOOMANYREQUESTS"},
		{"500 once", http.StatusInternalServerError, "", "UNKNOWN"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg, p, _, b, d := setup(t, 1000)
			p.Fault(Fault{Path: BlobPath, Times: 1, Status: tc.status, RetryAfter: tc.retryAfter})
			url := p.URL + "/v2/packs/set/blobs/" + d.Digest.String()
			token := bearer(t, reg, p)
			for i, want := range []int{tc.status, http.StatusOK} {
				req, _ := http.NewRequest(http.MethodGet, url, nil)
				req.Header.Set("Authorization", "Bearer "+token)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != want {
					t.Fatalf("request %d: status %d; want %d", i+1, resp.StatusCode, want)
				}
				if i == 0 {
					if got := resp.Header.Get("Retry-After"); got != tc.retryAfter {
						t.Errorf("Retry-After = %q; want %q", got, tc.retryAfter)
					}
					if !strings.Contains(string(body), tc.code) {
						t.Errorf("body %q; want error code %s", body, tc.code)
					}
				} else if !bytes.Equal(body, b) {
					t.Errorf("second answer is not the blob")
				}
			}
		})
	}
}

// bearer returns a token for pull and push on packs/set from the token
// server, asked through the proxy.
func bearer(t *testing.T, reg *Registry, p *Proxy) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, p.URL+TokenPath+"?service=registrytest&scope=repository:packs/set:pull,push", nil)
	req.SetBasicAuth(reg.User, reg.Password)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	_, rest, ok := strings.Cut(string(body), `"token":"`)
	if resp.StatusCode != http.StatusOK || !ok {
		t.Fatalf("token request: %d %s", resp.StatusCode, body)
	}
	tok, _, _ := strings.Cut(rest, `"`)
	return tok
}

func TestFaultCutAtHalf(t *testing.T) {
	_, p, repo, _, d := setup(t, 1<<20)
	p.Fault(Fault{Path: BlobPath, Times: 1, CutAt: 0.5})
	rc, err := repo.Fetch(t.Context(), d)
	if err != nil {
		t.Fatalf("Fetch: %v", err)
	}
	n, err := io.Copy(io.Discard, rc)
	rc.Close()
	if err == nil {
		t.Fatalf("reading a cut blob: %d bytes, nil error; want an error", n)
	}
	if n != d.Size/2 {
		t.Errorf("read %d bytes before the cut; want %d", n, d.Size/2)
	}
	br := blobRequests(p)
	if last := br[len(br)-1]; last.Bytes != d.Size/2 || last.Fault == "" {
		t.Errorf("record %+v; want %d bytes sent under the fault", last, d.Size/2)
	}
}

func TestFaultCorrupt(t *testing.T) {
	_, p, repo, b, d := setup(t, 1<<20)
	p.Fault(Fault{Path: BlobPath, Times: 1, Corrupt: true})
	rc, err := repo.Fetch(t.Context(), d)
	if err != nil {
		t.Fatalf("Fetch: %v", err)
	}
	// Read the raw bytes past oras-go's digest check, which would refuse
	// them at the end.
	got, _ := io.ReadAll(io.LimitReader(rc, d.Size))
	rc.Close()
	if len(got) != len(b) {
		t.Fatalf("corrupt body has %d bytes; want %d", len(got), len(b))
	}
	diff := 0
	for i := range got {
		if got[i] != b[i] {
			diff++
		}
	}
	if diff != 1 || got[len(b)/2] == b[len(b)/2] {
		t.Errorf("%d bytes differ; want exactly the middle one", diff)
	}
	if _, err := content.FetchAll(t.Context(), repo, d); err != nil {
		t.Errorf("second fetch after a Times: 1 fault: %v", err)
	}
	p.Fault(Fault{Path: BlobPath, Corrupt: true})
	if _, err := content.FetchAll(t.Context(), repo, d); !errors.Is(err, content.ErrMismatchedDigest) {
		t.Errorf("FetchAll of a corrupt blob: %v; want content.ErrMismatchedDigest", err)
	}
}

func TestFaultRedirectBlobs(t *testing.T) {
	reg, p, repo, b, d := setup(t, 1<<20)
	p.Fault(Fault{Path: BlobPath, RedirectBlobs: true})
	got, err := content.FetchAll(t.Context(), repo, d)
	if err != nil || !bytes.Equal(got, b) {
		t.Fatalf("fetch through a redirect: %v", err)
	}
	var redirects, objects []Request
	for _, r := range p.Requests() {
		if r.Status == http.StatusTemporaryRedirect {
			redirects = append(redirects, r)
		}
		if r.Object {
			objects = append(objects, r)
		}
	}
	if len(redirects) != 1 || len(objects) != 1 {
		t.Fatalf("requests %+v; want one 307 and one object request", p.Requests())
	}
	if o := objects[0]; o.HadAuthorization || o.Bytes != d.Size || o.Status != http.StatusOK {
		t.Errorf("object request %+v; want %d bytes and no Authorization header", o, d.Size)
	}
	if strings.HasPrefix(p.ObjectHost, "127.0.0.1:") {
		t.Errorf("ObjectHost %s has the registry's host name; want another one", p.ObjectHost)
	}

	// A client that carries its credentials along is seen doing so.
	req, _ := http.NewRequest(http.MethodGet, p.URL+"/v2/packs/set/blobs/"+d.Digest.String(), nil)
	req.Header.Set("Authorization", "Bearer "+bearer(t, reg, p))
	leaky := &http.Client{CheckRedirect: func(r *http.Request, via []*http.Request) error {
		r.Header.Set("Authorization", via[0].Header.Get("Authorization"))
		return nil
	}}
	resp, err := leaky.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	leaked := 0
	for _, r := range p.Requests() {
		if r.Object && r.HadAuthorization {
			leaked++
		}
	}
	if leaked != 1 {
		t.Errorf("requests %+v; want the object host to record one leaked Authorization", p.Requests())
	}
}

func TestFaultReplaceManifestAndMoveTag(t *testing.T) {
	reg := Start(t, Options{})
	direct := repository(t, reg.Host, "packs/set", "", "")
	ctx := t.Context()
	manifest := func(artifactType string) ocispec.Descriptor {
		b, d := randomBlob(t, 100)
		pushBlob(t, direct, b, d)
		m, err := oras.PackManifest(ctx, direct, oras.PackManifestVersion1_1, artifactType,
			oras.PackManifestOptions{Layers: []ocispec.Descriptor{d}})
		if err != nil {
			t.Fatalf("PackManifest: %v", err)
		}
		return m
	}
	m1, m2 := manifest("application/vnd.test.one"), manifest("application/vnd.test.two")
	if err := direct.Tag(ctx, m1, "live"); err != nil {
		t.Fatal(err)
	}
	p := NewProxy(t, reg)
	repo := repository(t, p.Host, "packs/set", "", "")

	p.Fault(Fault{Path: ManifestPath("live"), Skip: 1, Times: 1, MoveTag: m2.Digest.String()})
	for i, want := range []digest.Digest{m1.Digest, m2.Digest, m1.Digest} {
		got, err := repo.Resolve(ctx, "live")
		if err != nil || got.Digest != want {
			t.Errorf("Resolve(live) #%d = %s, %v; want %s", i+1, got.Digest, err, want)
		}
	}

	p.ClearFaults()
	other := []byte(`{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","artifactType":"application/vnd.other","config":{"mediaType":"application/vnd.oci.empty.v1+json","digest":"sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a","size":2},"layers":[]}`)
	p.Fault(Fault{Path: ManifestPath("live"), ReplaceManifest: other})
	d, rc, err := repo.FetchReference(ctx, "live")
	if err != nil {
		t.Fatalf("FetchReference(live): %v", err)
	}
	got, _ := io.ReadAll(rc)
	rc.Close()
	if !bytes.Equal(got, other) || d.Digest != digest.FromBytes(other) {
		t.Errorf("FetchReference(live) = %s %q; want the replacement %s", d.Digest, got, digest.FromBytes(other))
	}
	if got, err := repo.Resolve(ctx, digest.FromBytes(other).String()); err != nil || got.Digest != digest.FromBytes(other) {
		t.Errorf("Resolve(the replacement's digest) = %s, %v; want the replacement served by its digest too", got.Digest, err)
	}
	if _, err := repo.Resolve(ctx, m1.Digest.String()); err != nil {
		t.Errorf("Resolve by digest under a tag fault: %v; want it untouched", err)
	}
	if _, err := repo.Resolve(ctx, "nope"); !errors.Is(err, errdef.ErrNotFound) {
		t.Errorf("Resolve(nope) = %v; want not found", err)
	}
}

func TestOrasCLIPushPull(t *testing.T) {
	oras := Oras(t)
	reg := Start(t, Options{Auth: AuthToken})
	src := t.TempDir()
	if err := os.WriteFile(filepath.Join(src, "a.zip"), []byte("pack a"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(context.Background(), oras, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "DOCKER_CONFIG="+t.TempDir())
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("oras %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	creds := []string{"--plain-http", "-u", reg.User, "-p", reg.Password}
	run(src, append([]string{"push", reg.Ref("packs/set", "v1"), "a.zip"}, creds...)...)
	dst := t.TempDir()
	run(dst, append([]string{"pull", reg.Ref("packs/set", "v1")}, creds...)...)
	got, err := os.ReadFile(filepath.Join(dst, "a.zip"))
	if err != nil || string(got) != "pack a" {
		t.Errorf("oras pull got %q, %v; want the pushed file", got, err)
	}
}
