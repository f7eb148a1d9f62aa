package lock

import (
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/sets/settest"
)

func TestRedactText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"fetch https://user:s3cret@host/x.zip: HTTP 500", "fetch https://user:xxxxx@host/x.zip: HTTP 500"},
		{`"http://a:b@h/1" and "https://c:d@h:8443/2"`, `"http://a:xxxxx@h/1" and "https://c:xxxxx@h:8443/2"`},
		{"https://user@host/x and https://host:8443/x", "https://user@host/x and https://host:8443/x"},
		{"https://user:xxxxx@host/", "https://user:xxxxx@host/"},
		{"no URL here: a:b@c", "no URL here: a:b@c"},
	}
	for _, tt := range tests {
		if got := RedactText(tt.in); got != tt.want {
			t.Errorf("RedactText(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

// TestRedactLock: a lock whose urls, index or chunks hold a password (in
// plain text, or spelled with TOML escapes) is kept without it and pins
// the same set; a lock without one is kept byte for byte.
func TestRedactLock(t *testing.T) {
	if out, held, err := RedactLock(LockName, []byte(settest.GoodLock)); err != nil || held || string(out) != settest.GoodLock {
		t.Errorf("RedactLock(no password) = %q, %v, %v; want the text as it is", out, held, err)
	}
	tests := map[string]string{
		"urls": settest.Edit(t, `"https://mirror.example.org/forge/`, `"https://league:s3cret@mirror.example.org/forge/`),
		"chunks and index": strings.Replace(settest.Edit(t, `urls = ["file:///srv/forge/a.zip"]`,
			`urls = ["file:///srv/forge/a.zip"]`+"\n"+`index = {url = "https://u:s3cret@cdn.example.org/a.caibx", sha256 = "`+settest.HashC+`"}`),
			"\n[[pack]]", "chunks = [\"https://u:s3cret@cdn.example.org/chunks/\"]\n\n[[pack]]", 1),
		"a comment":    settest.Edit(t, "# a comment", "# mirror https://u:s3cret@old.example.org/"),
		"TOML escapes": settest.Edit(t, `"https://mirror.example.org/forge/`, `"https://league:s3cret\u0040mirror.example.org/forge/`),
	}
	for name, text := range tests {
		t.Run(name, func(t *testing.T) {
			out, held, err := RedactLock(LockName, []byte(text))
			if err != nil || !held || strings.Contains(string(out), "s3cret") {
				t.Fatalf("RedactLock = %v, %v:\n%s\nwant the lock without its password", held, err, out)
			}
			l, err := Decode(LockName, out, DecodeOptions{})
			if err != nil || l.Fingerprint() != settest.FpAB || len(l.Packs) != 2 {
				t.Errorf("the redacted lock = %+v, %v; want the same set", l, err)
			}
		})
	}
}

// TestDecodeErrorWithoutPassword: a lock refused for a URL names it
// without its password.
func TestDecodeErrorWithoutPassword(t *testing.T) {
	for _, u := range []string{"ftp://league:s3cret@mirror.example.org/a.zip", "https://league:s3cret@mirror.example.org/%zz.zip"} {
		_, err := Decode(LockName, []byte(settest.Edit(t, `"file:///srv/forge/a.zip"`, `"`+u+`"`)), DecodeOptions{})
		if err == nil || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "league:xxxxx@mirror.example.org") {
			t.Errorf("Decode(a bad URL %q) = %v; want it refused, named without its password", u, err)
		}
	}
}
