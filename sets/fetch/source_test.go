package fetch

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/sets/lock"
)

func TestResolve(t *testing.T) {
	abs := func(p string) string { // a rooted path on this OS
		if runtime.GOOS == "windows" {
			return `C:` + filepath.FromSlash(p)
		}
		return p
	}
	web := Source{URL: "https://sets.example.org/league/forgepacks.lock"}
	local := Source{Path: abs("/srv/sets/forgepacks.lock")}
	tests := []struct {
		base Source
		ref  string
		want Source
		err  string
	}{
		{web, "packs/ab.zip", Source{URL: "https://sets.example.org/league/packs/ab.zip"}, ""},
		{web, "../other/ab.zip", Source{URL: "https://sets.example.org/other/ab.zip"}, ""},
		{web, "/root/ab.zip", Source{URL: "https://sets.example.org/root/ab.zip"}, ""},
		{web, "https://cdn.example.org/f/ab.zip", Source{URL: "https://cdn.example.org/f/ab.zip"}, ""},
		{web, "http://mirror.example.org/ab.zip", Source{URL: "http://mirror.example.org/ab.zip"}, ""},
		{web, "file:///etc/passwd", Source{}, "may not name a local file"},
		{local, "packs/ab.zip", Source{Path: filepath.Join(abs("/srv/sets"), "packs", "ab.zip")}, ""},
		{local, "https://cdn.example.org/f/ab.zip", Source{URL: "https://cdn.example.org/f/ab.zip"}, ""},
		{local, "file:///srv/packs/ab.zip", Source{Path: filepath.FromSlash("/srv/packs/ab.zip")}, ""},
		{local, "file://otherhost/ab.zip", Source{}, "another host"},
		{local, "ftp://x.org/ab.zip", Source{}, `"ftp://x.org/ab.zip" has the scheme "ftp"`},
		{local, "javascript:alert(1)", Source{}, `has the scheme "javascript"`},
		{Source{}, "packs/ab.zip", Source{}, "needs the lock's location"},
		// A lock given as text (no location) names no local file.
		{Source{}, "file:///etc/passwd", Source{}, "a lock given as text may not name a local file"},
		{Source{}, "https://cdn.example.org/f/ab.zip", Source{URL: "https://cdn.example.org/f/ab.zip"}, ""},
	}
	for _, tc := range tests {
		got, err := resolve(tc.base, tc.ref)
		if tc.err != "" {
			if err == nil || !errors.Is(err, lock.ErrURL) || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Resolve(%v, %q) = %v, %v; want error %q", tc.base, tc.ref, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Resolve(%v, %q) = %+v, %v; want %+v", tc.base, tc.ref, got, err, tc.want)
		}
	}
}

func TestLockSource(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "set.lock")
	os.WriteFile(file, nil, 0o644)
	tests := []struct {
		arg  string
		want Source
		err  bool
	}{
		{"https://sets.example.org/league/", Source{URL: "https://sets.example.org/league/forgepacks.lock"}, false},
		{"https://sets.example.org", Source{URL: "https://sets.example.org/forgepacks.lock"}, false},
		{"http://127.0.0.1:8080/s/forgepacks.lock", Source{URL: "http://127.0.0.1:8080/s/forgepacks.lock"}, false},
		{dir, Source{Path: filepath.Join(dir, lock.LockName)}, false},
		{file, Source{Path: file}, false},
		{"ftp://x.org/forgepacks.lock", Source{}, true},
		{"", Source{}, true},
	}
	for _, tc := range tests {
		got, err := LockSource(tc.arg)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("LockSource(%q) = %+v, %v; want %+v (error %v)", tc.arg, got, err, tc.want, tc.err)
		}
	}
	if s := signatureSource(Source{URL: "https://x.org/a/forgepacks.lock"}); s.URL != "https://x.org/a/forgepacks.lock.minisig" {
		t.Errorf("SignatureSource = %v", s)
	}
}

// TestLockSourceSchemes: an oci:// reference is a source; an unknown
// scheme is refused by name; a drive letter is a path.
func TestLockSourceSchemes(t *testing.T) {
	src, err := LockSource("oci://ghcr.io/league/packs:live")
	if err != nil || src.OCI != "oci://ghcr.io/league/packs:live" || !src.Remote() || src.String() != src.OCI {
		t.Errorf("LockSource(oci) = %+v, %v", src, err)
	}
	for _, arg := range []string{"s3://bucket/forgepacks.lock", "gs://b/l", "ocl://ghcr.io/o/r:live", "htps://cdn.example.org/l"} {
		scheme, _, _ := strings.Cut(arg, "://")
		if _, err := LockSource(arg); err == nil || !strings.Contains(err.Error(), `the scheme "`+scheme+`"`) {
			t.Errorf("LockSource(%q) = %v; want the scheme named", arg, err)
		}
	}
	if _, err := LockSource("oci://ghcr.io/league"); err == nil || !strings.Contains(err.Error(), "name a tag") {
		t.Errorf("LockSource(oci without tag) = %v", err)
	}
	for _, arg := range []string{`C:\sets\forgepacks.lock`, `C:/sets/forgepacks.lock`} {
		src, err := LockSource(arg)
		if err != nil || src.Path == "" {
			t.Errorf("LockSource(%q) = %+v, %v; want a path", arg, src, err)
		}
	}
}

// TestSourceErrorsRedacted: an error about a URL with a password names it
// without the password.
func TestSourceErrorsRedacted(t *testing.T) {
	if _, err := LockSource("gopher://user:s3cret@host/x"); err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("LockSource(gopher with a password) = %v; want an error without the password", err)
	}
	if _, err := resolve(Source{URL: "https://host/forgepacks.lock"}, "ftp://user:s3cret@host/a.zip"); err == nil || strings.Contains(err.Error(), "s3cret") || !errors.Is(err, lock.ErrURL) {
		t.Errorf("Resolve(ftp with a password) = %v; want ErrURL without the password", err)
	}
}
