package fetch

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/internal/registrytest"
	"github.com/mjolnir-forge/forgesync/sets/lock"
	"github.com/mjolnir-forge/forgesync/sets/oci"
)

// ociArchive pushes a set of one archive to a registry behind a proxy and
// returns the proxy, the set's source and the pack.
func ociArchive(t *testing.T, data []byte) (*registrytest.Proxy, *oci.Registry, Source, lock.Pack) {
	t.Helper()
	reg := registrytest.Start(t, registrytest.Options{})
	proxy := registrytest.NewProxy(t, reg)
	dockerDir := t.TempDir()
	r := oci.New(oci.Options{Getenv: func(k string) string {
		if k == "DOCKER_CONFIG" {
			return dockerDir
		}
		return ""
	}})
	ref, err := oci.ParseReference("oci://" + proxy.Ref("league/packs", "live"))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	p := lock.Pack{ID: "alpha", Version: "1.0.0", SHA256: hex.EncodeToString(sum[:]), Size: int64(len(data))}
	files := []oci.File{
		{Title: oci.LockTitle, MediaType: oci.MediaTypeLock, SHA256: fmt.Sprintf("%x", sha256.Sum256([]byte("lock"))), Size: 4,
			Open: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader("lock")), nil }},
		{Title: oci.Title(p.SHA256, ".zip"), MediaType: oci.MediaTypeArchive, SHA256: p.SHA256, Size: p.Size,
			Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }},
	}
	if _, err := r.Push(t.Context(), ref, files, oci.Annotations{Created: time.Unix(0, 0)}); err != nil {
		t.Fatal(err)
	}
	return proxy, r, Source{OCI: ref.String()}, p
}

// TestFetchOCIResumes: a blob cut halfway is resumed with Range and lands
// whole, checked.
func TestFetchOCIResumes(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789abcdef"), 64<<10)
	proxy, r, src, p := ociArchive(t, data)
	proxy.Fault(registrytest.Fault{Method: http.MethodGet, Path: `/blobs/sha256:` + p.SHA256 + `$`, CutAt: 0.5, Times: 1})
	proxy.ResetRequests()
	f := &Fetcher{Dir: t.TempDir(), Registry: r, InitialDelay: time.Millisecond, MaxDelay: time.Millisecond}
	res, err := f.Fetch(t.Context(), src, []lock.Pack{p})
	ref, _ := oci.ParseReference(src.OCI)
	if err != nil || len(res) != 1 || res[0].From != ref.Blob(p.SHA256) {
		t.Fatalf("Fetch(cut blob) = %+v, %v; want it from %s", res, err, ref.Blob(p.SHA256))
	}
	if err := lock.VerifyFile(f.Path(p.SHA256), p.Size, p.SHA256); err != nil {
		t.Fatal(err)
	}
	ranged := false
	for _, q := range proxy.Requests() {
		ranged = ranged || strings.HasPrefix(q.Range, "bytes=") && q.Range != "bytes=0-"
	}
	if !ranged {
		t.Errorf("requests %+v; want the rest asked for with Range", proxy.Requests())
	}
}

// TestFetchOCIWrongBytes: a blob with a byte changed fails that download
// and never reaches the folder.
func TestFetchOCIWrongBytes(t *testing.T) {
	data := bytes.Repeat([]byte("forge"), 10_000)
	proxy, r, src, p := ociArchive(t, data)
	proxy.Fault(registrytest.Fault{Method: http.MethodGet, Path: `/blobs/sha256:` + p.SHA256 + `$`, Corrupt: true})
	dir := t.TempDir()
	f := &Fetcher{Dir: dir, Registry: r, InitialDelay: time.Millisecond, MaxDelay: time.Millisecond}
	_, err := f.Fetch(t.Context(), src, []lock.Pack{p})
	if !errors.Is(err, lock.ErrWrongBytes) || !strings.Contains(err.Error(), "@sha256:"+p.SHA256) {
		t.Fatalf("Fetch(corrupt blob) = %v; want ErrWrongBytes naming the blob", err)
	}
	if names, _ := os.ReadDir(dir); len(names) != 0 {
		t.Fatalf("the folder holds %v after a wrong blob; want nothing", names)
	}
}

// TestCheckLayers: every pack must be a layer of its digest and size.
func TestCheckLayers(t *testing.T) {
	l := &lock.Lock{Packs: []lock.Pack{{ID: "alpha", Version: "1.0.0", SHA256: strings.Repeat("a", 64), Size: 10}}}
	if err := CheckLayers("set", l, map[string]int64{strings.Repeat("a", 64): 10}); err != nil {
		t.Errorf("CheckLayers(agreeing) = %v", err)
	}
	if err := CheckLayers("set", l, map[string]int64{strings.Repeat("b", 64): 10}); err == nil || !strings.Contains(err.Error(), "no layer of that digest") {
		t.Errorf("CheckLayers(missing) = %v", err)
	}
	if err := CheckLayers("set", l, map[string]int64{strings.Repeat("a", 64): 11}); err == nil || !strings.Contains(err.Error(), "has 11 bytes, the lock pins 10") {
		t.Errorf("CheckLayers(size) = %v", err)
	}
}
