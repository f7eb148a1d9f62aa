package export

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"aead.dev/minisign"

	"github.com/mjolnir-forge/forgesync/sets/fetch"
	"github.com/mjolnir-forge/forgesync/sets/lock"
	"github.com/mjolnir-forge/forgesync/sets/settest"
)

// TestExportServeFetch exports a signed set, serves the folder over HTTP,
// and fetches it into a fresh folder: the same fingerprint, the same bytes,
// a valid signature.
func TestExportServeFetch(t *testing.T) {
	kept, want := keptPacks(t)
	if kept[1].Ext != ".tar.zst" {
		t.Fatalf("ArchiveExt = %q", kept[1].Ext)
	}
	pub, priv, err := minisign.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	l, err := Export(t.Context(), out, "league", kept, "", &priv)
	if err != nil {
		t.Fatalf("Export = %v", err)
	}
	for sha := range want {
		if l.Packs[0].SHA256 != sha && l.Packs[1].SHA256 != sha {
			t.Errorf("lock lacks %s", sha)
		}
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(out)))
	defer srv.Close()
	f := &fetch.Fetcher{Dir: t.TempDir()}
	src, _ := fetch.LockSource(srv.URL + "/")
	lf, err := f.FetchLock(t.Context(), src, fetch.Validators{})
	if err != nil {
		t.Fatal(err)
	}
	v, err := lock.Verify(lf.Data, lf.Signature, []minisign.PublicKey{pub})
	if err != nil || v.State != lock.Verified || !strings.Contains(v.TrustedComment, l.Fingerprint()) {
		t.Errorf("Verify(exported) = %+v, %v", v, err)
	}
	got, err := lock.Decode(src.URL, lf.Data, lock.DecodeOptions{})
	if err != nil || got.Fingerprint() != l.Fingerprint() || got.Name != "league" {
		t.Fatalf("Decode(exported) = %+v, %v", got, err)
	}
	if !strings.HasSuffix(got.Packs[1].URLs[0], ".tar.zst") {
		t.Errorf("URL = %q; want the archive's extension", got.Packs[1].URLs[0])
	}
	if _, err := f.Fetch(t.Context(), lf.Source, got.Packs); err != nil {
		t.Fatalf("Fetch(exported) = %v", err)
	}
	if names := settest.DirNames(t, f.Dir); len(names) != len(want) {
		t.Errorf("fetched %v; want exactly %d archives", names, len(want))
	}
	for sha := range want {
		if err := lock.VerifyFile(f.Path(sha), int64(len(want[sha])), sha); err != nil {
			t.Errorf("fetched archive: %v", err)
		}
	}

	// Exporting again unsigned replaces the lock and drops the stale signature.
	if _, err := Export(t.Context(), out, "league", kept, "https://cdn.example.org/f/{sha256}{ext}", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, lock.SignatureName)); !os.IsNotExist(err) {
		t.Errorf("a stale signature stayed: %v", err)
	}
	text, _ := os.ReadFile(filepath.Join(out, lock.LockName))
	if !strings.Contains(string(text), `urls = ["https://cdn.example.org/f/`) {
		t.Errorf("the template was not used:\n%s", text)
	}
}
