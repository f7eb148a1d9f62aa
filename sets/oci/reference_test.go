package oci

import (
	"errors"
	"strings"
	"testing"
)

func TestParseReference(t *testing.T) {
	const dig = "sha256:" + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	good := []struct {
		in   string
		want Reference
		str  string
	}{
		{"oci://ghcr.io/league/packs:live", Reference{Host: "ghcr.io", Repository: "league/packs", Tag: "live"}, ""},
		{"OCI://127.0.0.1:5000/sets/a:v1.2", Reference{Host: "127.0.0.1:5000", Repository: "sets/a", Tag: "v1.2"}, "oci://127.0.0.1:5000/sets/a:v1.2"},
		{"oci://ghcr.io/league/packs@" + dig, Reference{Host: "ghcr.io", Repository: "league/packs", Digest: dig}, ""},
		// A tag and a digest: the digest pins it.
		{"oci://ghcr.io/league/packs:live@" + dig, Reference{Host: "ghcr.io", Repository: "league/packs", Digest: dig}, "oci://ghcr.io/league/packs@" + dig},
	}
	for _, tt := range good {
		got, err := ParseReference(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseReference(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
			continue
		}
		want := tt.str
		if want == "" {
			want = tt.in
		}
		if got.String() != want {
			t.Errorf("ParseReference(%q).String() = %q; want %q", tt.in, got.String(), want)
		}
	}
	bad := []struct{ in, want string }{
		{"https://ghcr.io/league/packs:live", "it must start with oci://"},
		{"oci://", "want oci://HOST/REPOSITORY:TAG"},
		{"oci://ghcr.io", "no repository after the host"},
		{"oci://ghcr.io/league/packs", "name a tag (:TAG) or a digest"},
		{"oci://ghcr.io/League/Packs:live", "invalid reference"},
		{"oci://ghcr.io/league/packs@sha256:abc", "invalid"},
		{"oci://ghcr.io/league/packs:bad tag", "want oci://HOST/REPOSITORY:TAG"},
		{"oci://bob:hunter2@ghcr.io/league/packs:live", "credentials do not belong in a reference"},
	}
	for _, tt := range bad {
		_, err := ParseReference(tt.in)
		if err == nil || !errors.Is(err, ErrReference) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseReference(%q) = %v; want ErrReference saying %q", tt.in, err, tt.want)
		}
		if err != nil && strings.Contains(err.Error(), "hunter2") {
			t.Errorf("ParseReference(%q) = %v; the password is in the error", tt.in, err)
		}
	}
}

func TestLoopbackAndPlainHTTP(t *testing.T) {
	r := New(Options{Insecure: []string{"registry.lan:5000", "zot.lan"}})
	for host, want := range map[string]bool{
		"127.0.0.1:5000": true, "localhost:5000": true, "[::1]:5000": true, "127.0.0.2": true,
		"registry.lan:5000": true, "zot.lan:8080": true, "registry.lan:5001": false,
		"ghcr.io": false, "10.0.0.1:5000": false,
	} {
		if got := r.plain(host); got != want {
			t.Errorf("plain(%q) = %v; want %v", host, got, want)
		}
	}
}

// FuzzParseReference: any text either parses to a reference whose String
// parses back to itself, or is refused with ErrReference; never a panic.
func FuzzParseReference(f *testing.F) {
	for _, s := range []string{"oci://ghcr.io/league/packs:live", "oci://127.0.0.1:5000/a/b@sha256:" + strings.Repeat("0", 64),
		"oci://", "oci://h", "oci://u:p@h/r:t", "OCI://H/R:T", "oci://h/r:t@sha512:" + strings.Repeat("0", 128)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseReference(s)
		if err != nil {
			if !errors.Is(err, ErrReference) {
				t.Fatalf("ParseReference(%q) = %v; want ErrReference", s, err)
			}
			return
		}
		back, err := ParseReference(r.String())
		if err != nil || back != r {
			t.Fatalf("ParseReference(%q) = %+v; its String %q parses to %+v, %v", s, r, r.String(), back, err)
		}
	})
}
