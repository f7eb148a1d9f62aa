package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/registry/remote"
	"oras.land/oras-go/v2/registry/remote/auth"

	"github.com/mjolnir-forge/forgesync/cmd/forgesync/cli"
	"github.com/mjolnir-forge/forgesync/internal/registrytest"
	"github.com/mjolnir-forge/forgesync/sets/fetch"
	"github.com/mjolnir-forge/forgesync/sets/oci"
)

// ociRepo is the repository the tests push sets to.
const ociRepo = "forge/set"

// ociFetch makes the CLI's fetches of sets quick for the test and gives
// them a registry client with reg's account (as FORGESYNC_REGISTRY_* would)
// and no Docker config.
func ociFetch(t *testing.T, user, password string) {
	t.Helper()
	env := map[string]string{oci.EnvUsername: user, oci.EnvPassword: password}
	r := oci.New(oci.Options{
		Getenv:        func(k string) string { return env[k] },
		DockerConfig:  filepath.Join(t.TempDir(), "config.json"),
		MinWait:       time.Millisecond,
		MaxWait:       5 * time.Millisecond,
		MaxRetryAfter: 2 * time.Second,
	})
	old := setFetcher
	setFetcher = fetch.Fetcher{InitialDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond, Tries: 2, Registry: r}
	t.Cleanup(func() { setFetcher = old })
}

// pushSet makes a host with the given packs installed and exports them to
// ref (oci://HOST/REPO:TAG); it returns the reference that pins the set
// and the set's fingerprint.
func pushSet(t *testing.T, ref string, packs map[string]int) (string, string) {
	t.Helper()
	config := hostWith(t, packs)
	code, out, errs := runCLI(t, "export", ref, "--config", config)
	if code != cli.ExitOK {
		t.Fatalf("export %s = %d\n%s%s", ref, code, out, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	pinned := lines[len(lines)-1]
	if !strings.Contains(pinned, "@sha256:") {
		t.Fatalf("export %s printed %q; want its last line to pin the set by digest", ref, out)
	}
	return pinned, machineFingerprint(t, config)
}

// ociState is what a sync may change on a machine: its fingerprint and its
// installed.txt.
type ociState struct {
	fingerprint string
	installed   []byte
}

func stateOf(t *testing.T, config, inv string) ociState {
	t.Helper()
	installed, err := os.ReadFile(filepath.Join(inv, "installed.txt"))
	if err != nil {
		t.Fatal(err)
	}
	return ociState{machineFingerprint(t, config), installed}
}

// ociWorld is a token-auth registry behind a fault proxy, with sets v1, v2
// and v3 pushed (the tag live naming v2), and a machine that synced v1.
type ociWorld struct {
	reg            *registrytest.Registry
	proxy          *registrytest.Proxy
	pinned, fp     [4]string // by version 1..3
	config, inv    string
	live           string // oci://PROXY/REPO:live
	before         ociState
	user, password string
}

func newOCIWorld(t *testing.T) *ociWorld {
	t.Helper()
	reg := registrytest.Start(t, registrytest.Options{Auth: registrytest.AuthToken})
	ociFetch(t, reg.User, reg.Password)
	w := &ociWorld{reg: reg, user: reg.User, password: reg.Password}
	sets := []map[string]int{
		1: {"alpha-gates": 2, "beta-gates": 1},
		2: {"alpha-gates": 2, "gamma-gates": 3},
		3: {"alpha-gates": 2, "delta-gates": 1},
	}
	for v := 1; v <= 3; v++ {
		w.pinned[v], w.fp[v] = pushSet(t, "oci://"+reg.Ref(ociRepo, fmt.Sprintf("v%d", v)), sets[v])
	}
	w.proxy = registrytest.NewProxy(t, reg)
	w.live = "oci://" + w.proxy.Ref(ociRepo, "live")

	w.machineAt1(t)
	w.proxy.ResetRequests()
	return w
}

// machineAt1 makes a fresh machine that synced v1 through the proxy, and
// moves the tag live to v2.
func (w *ociWorld) machineAt1(t *testing.T) {
	t.Helper()
	w.config, _, w.inv = gameEnv(t)
	w.tag(t, 1)
	if code, out, errs := runCLI(t, "sync", "--set", w.live, "--config", w.config); code != cli.ExitOK {
		t.Fatalf("sync --set %s (v1) = %d\n%s%s", w.live, code, out, errs)
	}
	w.before = stateOf(t, w.config, w.inv)
	if w.before.fingerprint != w.fp[1] {
		t.Fatalf("machine at %s after syncing v1; want %s", w.before.fingerprint, w.fp[1])
	}
	w.tag(t, 2)
}

// tag moves the tag live to set v, as a promotion does.
func (w *ociWorld) tag(t *testing.T, v int) {
	t.Helper()
	repo := w.repo(t)
	_, digest, _ := strings.Cut(w.pinned[v], "@")
	desc, err := repo.Resolve(t.Context(), digest)
	if err != nil {
		t.Fatalf("resolve %s: %v", w.pinned[v], err)
	}
	if err := repo.Tag(t.Context(), desc, "live"); err != nil {
		t.Fatalf("tag %s live: %v", w.pinned[v], err)
	}
}

// repo is an oras-go client of the registry, straight, with the account.
func (w *ociWorld) repo(t *testing.T) *remote.Repository {
	t.Helper()
	repo, err := remote.NewRepository(w.reg.Host + "/" + ociRepo)
	if err != nil {
		t.Fatal(err)
	}
	repo.PlainHTTP = true
	repo.Client = &auth.Client{Cache: auth.NewCache(),
		Credential: auth.StaticCredential(w.reg.Host, auth.Credential{Username: w.user, Password: w.password})}
	return repo
}

// manifest returns the manifest of set v, decoded.
func (w *ociWorld) manifest(t *testing.T, v int) ocispec.Manifest {
	t.Helper()
	_, digest, _ := strings.Cut(w.pinned[v], "@")
	_, rc, err := w.repo(t).FetchReference(t.Context(), digest)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	data, _ := io.ReadAll(rc)
	var m ocispec.Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// newArchive returns the blob path pattern of the archive set v2 has and
// v1 has not (gamma-gates).
func (w *ociWorld) newArchive(t *testing.T) string {
	t.Helper()
	old := map[string]bool{}
	for _, l := range w.manifest(t, 1).Layers {
		old[l.Digest.String()] = true
	}
	for _, l := range w.manifest(t, 2).Layers {
		if l.MediaType == oci.MediaTypeArchive && !old[l.Digest.String()] {
			return "/blobs/" + l.Digest.String() + "$"
		}
	}
	t.Fatal("set v2 has no archive that v1 has not")
	return ""
}

// lockBlob returns the blob path pattern of set v2's lock.
func (w *ociWorld) lockBlob(t *testing.T) string {
	t.Helper()
	for _, l := range w.manifest(t, 2).Layers {
		if l.Annotations[ocispec.AnnotationTitle] == oci.LockTitle {
			return "/blobs/" + l.Digest.String() + "$"
		}
	}
	t.Fatal("set v2 has no lock layer")
	return ""
}

// sync runs sync --set on the machine.
func (w *ociWorld) sync(t *testing.T, ref string) (int, string, string) {
	t.Helper()
	return runCLI(t, "sync", "--set", ref, "--config", w.config)
}

// wantWhole checks that the sync succeeded and the machine is exactly set
// v.
func (w *ociWorld) wantWhole(t *testing.T, v, code int, out, errs string) {
	t.Helper()
	if code != cli.ExitOK || !strings.Contains(out, "the machine now equals the set "+w.fp[v]) {
		t.Fatalf("sync = %d\n%s%s\nwant the machine to equal set v%d %s", code, out, errs, v, w.fp[v])
	}
	if got := machineFingerprint(t, w.config); got != w.fp[v] {
		t.Fatalf("machine fingerprint %s; want v%d %s", got, v, w.fp[v])
	}
}

// wantUnchanged checks that the sync failed with a message containing
// each of causes and changed nothing on the machine, and that no
// credential leaked into what it said.
func (w *ociWorld) wantUnchanged(t *testing.T, code int, out, errs string, causes ...string) {
	t.Helper()
	if code == cli.ExitOK {
		t.Fatalf("sync = %d\n%s%s\nwant a failure", code, out, errs)
	}
	for _, c := range causes {
		if !strings.Contains(errs, c) {
			t.Errorf("sync said\n%s%s\nwant it to name the cause %q", out, errs, c)
		}
	}
	if strings.Contains(out+errs, w.password) {
		t.Errorf("sync said the registry password:\n%s%s", out, errs)
	}
	if after := stateOf(t, w.config, w.inv); after.fingerprint != w.before.fingerprint || !bytes.Equal(after.installed, w.before.installed) {
		t.Errorf("a failed sync changed the machine: fingerprint %s -> %s, installed.txt changed: %t",
			w.before.fingerprint, after.fingerprint, !bytes.Equal(after.installed, w.before.installed))
	}
}

func blobGets(rs []registrytest.Request) []registrytest.Request {
	var out []registrytest.Request
	for _, r := range rs {
		if r.Method == http.MethodGet && strings.Contains(r.Path, "/blobs/sha256:") {
			out = append(out, r)
		}
	}
	return out
}

// TestOCISyncFaults: every fault of a registry between a machine at set
// v1 and the tag live, moved to v2, ends with the whole of v2 or nothing
// changed and a message naming the cause.
func TestOCISyncFaults(t *testing.T) {
	w := newOCIWorld(t)

	t.Run("401 then token", func(t *testing.T) {
		ociFetch(t, w.user, w.password) // a client with no token yet
		code, out, errs := w.sync(t, w.live)
		w.wantWhole(t, 2, code, out, errs)
		rs := w.proxy.Requests()
		if len(rs) < 3 || rs[0].Status != http.StatusUnauthorized || rs[0].HadAuthorization ||
			rs[1].Path != registrytest.TokenPath || rs[1].Status != http.StatusOK || !rs[2].HadAuthorization {
			t.Errorf("requests %+v; want 401 without credentials, a token, then the request with it", rs)
		}
		if issued, _ := w.reg.Tokens(); issued == 0 {
			t.Errorf("the token server issued no token")
		}
	})
	// reset gives each case a fresh machine at v1, whose cache holds none
	// of v2's archives, and the tag live on v2.
	reset := func(t *testing.T) {
		t.Helper()
		w.proxy.ClearFaults()
		w.machineAt1(t)
		w.proxy.ResetRequests()
	}

	t.Run("bad password", func(t *testing.T) {
		reset(t)
		ociFetch(t, w.user, "wrong-"+w.password)
		code, out, errs := w.sync(t, w.live)
		w.wantUnchanged(t, code, out, errs, "the registry refused access", "docker login "+w.proxy.Host)
		ociFetch(t, w.user, w.password)
	})

	t.Run("429 with Retry-After within the bound", func(t *testing.T) {
		reset(t)
		w.proxy.Fault(registrytest.Fault{Path: registrytest.BlobPath, Times: 1, Status: http.StatusTooManyRequests, RetryAfter: "1"})
		code, out, errs := w.sync(t, w.live)
		w.wantWhole(t, 2, code, out, errs)
	})

	t.Run("429 asking past the bound", func(t *testing.T) {
		reset(t)
		w.proxy.Fault(registrytest.Fault{Path: registrytest.AnyManifestPath, Status: http.StatusTooManyRequests, RetryAfter: "3600"})
		code, out, errs := w.sync(t, w.live)
		w.wantUnchanged(t, code, out, errs, "429 Too Many Requests", "10 per hour")
		if rs := w.proxy.Requests(); len(rs) > 4 {
			t.Errorf("%d requests after a Retry-After past the bound; want it to stop at once: %+v", len(rs), rs)
		}
	})

	t.Run("500 then 200", func(t *testing.T) {
		reset(t)
		w.proxy.Fault(registrytest.Fault{Path: registrytest.AnyManifestPath, Times: 1, Status: http.StatusInternalServerError})
		w.proxy.Fault(registrytest.Fault{Path: registrytest.BlobPath, Times: 1, Status: http.StatusInternalServerError})
		code, out, errs := w.sync(t, w.live)
		w.wantWhole(t, 2, code, out, errs)
		n500 := 0
		for _, r := range w.proxy.Requests() {
			if r.Status == http.StatusInternalServerError {
				n500++
			}
		}
		if n500 != 2 {
			t.Errorf("%d answers of 500; want the two injected", n500)
		}
	})

	t.Run("archive cut at 50%", func(t *testing.T) {
		reset(t)
		w.proxy.Fault(registrytest.Fault{Path: w.newArchive(t), Times: 1, CutAt: 0.5})
		code, out, errs := w.sync(t, w.live)
		w.wantWhole(t, 2, code, out, errs)
		cut, resumed := false, false
		for _, r := range blobGets(w.proxy.Requests()) {
			cut = cut || r.Fault != ""
			resumed = resumed || strings.HasPrefix(r.Range, "bytes=") && r.Status == http.StatusPartialContent
		}
		if !cut {
			t.Errorf("no blob was cut: %+v", w.proxy.Requests())
		}
		if !resumed {
			t.Errorf("the cut archive was not resumed with a Range request: %+v", blobGets(w.proxy.Requests()))
		}
	})

	t.Run("lock cut at 50%", func(t *testing.T) {
		reset(t)
		w.proxy.Fault(registrytest.Fault{Path: w.lockBlob(t), Times: 1, CutAt: 0.5})
		code, out, errs := w.sync(t, w.live)
		w.wantWhole(t, 2, code, out, errs) // the cut transfer is tried again
	})

	t.Run("archive with wrong bytes", func(t *testing.T) {
		reset(t)
		w.proxy.Fault(registrytest.Fault{Path: w.newArchive(t), Corrupt: true})
		code, out, errs := w.sync(t, w.live)
		w.wantUnchanged(t, code, out, errs, "gamma-gates")
		if !strings.Contains(errs, "digest") && !strings.Contains(errs, "wrong bytes") && !strings.Contains(errs, "SHA-256") {
			t.Errorf("sync said\n%s\nwant it to say the bytes do not match the digest", errs)
		}
	})

	t.Run("lock with wrong bytes", func(t *testing.T) {
		reset(t)
		w.proxy.Fault(registrytest.Fault{Path: w.lockBlob(t), Corrupt: true})
		code, out, errs := w.sync(t, w.live)
		w.wantUnchanged(t, code, out, errs, "the lock", "mismatched digest")
	})

	t.Run("redirect to another host", func(t *testing.T) {
		reset(t)
		w.proxy.Fault(registrytest.Fault{Path: registrytest.BlobPath, RedirectBlobs: true})
		code, out, errs := w.sync(t, w.live)
		w.wantWhole(t, 2, code, out, errs)
		objects := 0
		for _, r := range w.proxy.Requests() {
			if r.Object {
				objects++
				if r.HadAuthorization {
					t.Errorf("the Authorization header followed the redirect to %s: %+v", w.proxy.ObjectHost, r)
				}
			}
		}
		if objects == 0 {
			t.Errorf("no blob came from the object host: %+v", w.proxy.Requests())
		}
	})

	t.Run("layer digests disagree with the lock", func(t *testing.T) {
		reset(t)
		m2, m1 := w.manifest(t, 2), w.manifest(t, 1)
		// v2's lock, v1's archives.
		var layers []ocispec.Descriptor
		for _, l := range m2.Layers {
			if l.MediaType != oci.MediaTypeArchive {
				layers = append(layers, l)
			}
		}
		for _, l := range m1.Layers {
			if l.MediaType == oci.MediaTypeArchive {
				layers = append(layers, l)
			}
		}
		m2.Layers = layers
		body, _ := json.Marshal(m2)
		w.proxy.Fault(registrytest.Fault{Path: registrytest.ManifestPath("live"), ReplaceManifest: body})
		code, out, errs := w.sync(t, w.live)
		w.wantUnchanged(t, code, out, errs, "the manifest and its lock disagree")
	})

	t.Run("manifest of another artifact type", func(t *testing.T) {
		reset(t)
		m2 := w.manifest(t, 2)
		m2.ArtifactType = "application/vnd.cncf.helm.chart.v1"
		body, _ := json.Marshal(m2)
		w.proxy.Fault(registrytest.Fault{Path: registrytest.ManifestPath("live"), ReplaceManifest: body})
		code, out, errs := w.sync(t, w.live)
		w.wantUnchanged(t, code, out, errs, "application/vnd.cncf.helm.chart.v1", oci.ArtifactType)
	})

	t.Run("by digest", func(t *testing.T) {
		reset(t)
		_, d3, _ := strings.Cut(w.pinned[3], "@")
		pinned := "oci://" + w.proxy.Ref(ociRepo, d3)
		code, out, errs := w.sync(t, pinned)
		w.wantWhole(t, 3, code, out, errs)
		// A digest pins the set forever: checking it again asks nothing.
		w.proxy.ResetRequests()
		code, out, errs = w.sync(t, pinned)
		if code != cli.ExitOK || !strings.Contains(out, "nothing to do") || machineFingerprint(t, w.config) != w.fp[3] {
			t.Errorf("re-sync of a pinned set = %d\n%s%s\nwant nothing to do", code, out, errs)
		}
		if rs := w.proxy.Requests(); len(rs) != 0 {
			t.Errorf("re-sync of a set pinned by digest made requests %+v; want none", rs)
		}
	})

	t.Run("tag moved mid-sync", func(t *testing.T) {
		reset(t)
		_, d3, _ := strings.Cut(w.pinned[3], "@")
		w.proxy.Fault(registrytest.Fault{Path: registrytest.ManifestPath("live"), Skip: 1, MoveTag: d3})
		code, out, errs := w.sync(t, w.live)
		// The set the tag named when the sync began, whole: no pack of v3.
		w.wantWhole(t, 2, code, out, errs)
		if strings.Contains(out, "delta-gates") {
			t.Errorf("a pack of v3 came in with v2:\n%s", out)
		}
		code, out, errs = w.sync(t, w.live)
		w.wantWhole(t, 3, code, out, errs)
	})
}
