package packset

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"aead.dev/minisign"
)

// Export is ExportWith with the default options and the given name,
// template and key, as the tests written before ExportWith call it.
func Export(ctx context.Context, dir, name string, packs []Kept, template string, key *minisign.PrivateKey) (*Lock, error) {
	return ExportWith(ctx, dir, packs, ExportOptions{Name: name, Template: template, Key: key})
}

// keptPacks writes archives into a folder as a machine keeps them.
func keptPacks(t *testing.T) ([]Kept, map[string][]byte) {
	t.Helper()
	dir := t.TempDir()
	var kept []Kept
	want := map[string][]byte{}
	for i, name := range []string{"foundry-wide.zip", "gate-pack.TAR.ZST"} {
		data, p := archive(strings.Split(name, ".")[0], 20000+i)
		path := filepath.Join(dir, name)
		os.WriteFile(path, data, 0o644)
		kept = append(kept, Kept{ID: p.ID, Version: p.Version, SHA256: p.SHA256, Path: path, Ext: ArchiveExt(name)})
		want[p.SHA256] = data
	}
	return kept, want
}

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
	f, _ := newFetcher(t)
	src, _ := LockSource(srv.URL + "/")
	lf, err := f.FetchLock(t.Context(), src, Validators{})
	if err != nil {
		t.Fatal(err)
	}
	v, err := Verify(lf.Data, lf.Signature, []minisign.PublicKey{pub})
	if err != nil || v.State != Verified || !strings.Contains(v.TrustedComment, l.Fingerprint()) {
		t.Errorf("Verify(exported) = %+v, %v", v, err)
	}
	got, err := Decode(src.URL, lf.Data, DecodeOptions{})
	if err != nil || got.Fingerprint() != l.Fingerprint() || got.Name != "league" {
		t.Fatalf("Decode(exported) = %+v, %v", got, err)
	}
	if !strings.HasSuffix(got.Packs[1].URLs[0], ".tar.zst") {
		t.Errorf("URL = %q; want the archive's extension", got.Packs[1].URLs[0])
	}
	if _, err := f.Fetch(t.Context(), lf.Source, got.Packs); err != nil {
		t.Fatalf("Fetch(exported) = %v", err)
	}
	checkLanded(t, f.Dir, want)

	// Exporting again unsigned replaces the lock and drops the stale signature.
	if _, err := Export(t.Context(), out, "league", kept, "https://cdn.example.org/f/{sha256}{ext}", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, SignatureName)); !os.IsNotExist(err) {
		t.Errorf("a stale signature stayed: %v", err)
	}
	text, _ := os.ReadFile(filepath.Join(out, LockName))
	if !strings.Contains(string(text), `urls = ["https://cdn.example.org/f/`) {
		t.Errorf("the template was not used:\n%s", text)
	}
}

func TestExportRefusesDamagedArchive(t *testing.T) {
	kept, _ := keptPacks(t)
	data, _ := os.ReadFile(kept[0].Path)
	data[10] ^= 0xff
	os.WriteFile(kept[0].Path, data, 0o644)
	out := t.TempDir()
	if _, err := Export(t.Context(), out, "", kept, "", nil); !errors.Is(err, ErrWrongBytes) {
		t.Fatalf("Export(damaged) = %v; want ErrWrongBytes", err)
	}
	if _, err := os.Stat(filepath.Join(out, LockName)); !os.IsNotExist(err) {
		t.Errorf("a lock was written for an incomplete folder")
	}
	if names := dirNames(t, filepath.Join(out, "packs")); len(names) != 0 {
		t.Errorf("packs/ holds %v; want nothing (the damaged copy is refused)", names)
	}
}

func TestCompare(t *testing.T) {
	m := []Installed{{ID: "alpha-pack", Version: "1.0.0", SHA256: hashA, Enabled: true}, {ID: "zeta-pack", Version: "2.0.0-rc.1", SHA256: hashB, Enabled: true}}
	set := []Entry{{ID: "alpha-pack", Version: "1.0.0", SHA256: hashA}, {ID: "zeta-pack", Version: "2.0.0-rc.1", SHA256: hashB}}
	c := Compare(m, set)
	if !c.Equal || c.Set != fpAB || c.Machine != fpAB || c.Differences == nil {
		t.Errorf("Compare(equal) = %+v", c)
	}
	c = Compare(m[:1], set)
	if c.Equal || len(c.Differences) != 1 || c.Differences[0].Kind != Missing {
		t.Errorf("Compare(missing) = %+v", c)
	}
}
