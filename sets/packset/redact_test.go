package packset

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
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
	if out, held, err := RedactLock(LockName, []byte(goodLock)); err != nil || held || string(out) != goodLock {
		t.Errorf("RedactLock(no password) = %q, %v, %v; want the text as it is", out, held, err)
	}
	tests := map[string]string{
		"urls": edit(t, `"https://mirror.example.org/forge/`, `"https://league:s3cret@mirror.example.org/forge/`),
		"chunks and index": strings.Replace(edit(t, `urls = ["file:///srv/forge/a.zip"]`,
			`urls = ["file:///srv/forge/a.zip"]`+"\n"+`index = {url = "https://u:s3cret@cdn.example.org/a.caibx", sha256 = "`+hashC+`"}`),
			"\n[[pack]]", "chunks = [\"https://u:s3cret@cdn.example.org/chunks/\"]\n\n[[pack]]", 1),
		"a comment":    edit(t, "# a comment", "# mirror https://u:s3cret@old.example.org/"),
		"TOML escapes": edit(t, `"https://mirror.example.org/forge/`, `"https://league:s3cret\u0040mirror.example.org/forge/`),
	}
	for name, text := range tests {
		t.Run(name, func(t *testing.T) {
			out, held, err := RedactLock(LockName, []byte(text))
			if err != nil || !held || strings.Contains(string(out), "s3cret") {
				t.Fatalf("RedactLock = %v, %v:\n%s\nwant the lock without its password", held, err, out)
			}
			l, err := Decode(LockName, out, DecodeOptions{})
			if err != nil || l.Fingerprint() != fpAB || len(l.Packs) != 2 {
				t.Errorf("the redacted lock = %+v, %v; want the same set", l, err)
			}
		})
	}
}

// TestDecodeErrorWithoutPassword: a lock refused for a URL names it
// without its password.
func TestDecodeErrorWithoutPassword(t *testing.T) {
	for _, u := range []string{"ftp://league:s3cret@mirror.example.org/a.zip", "https://league:s3cret@mirror.example.org/%zz.zip"} {
		_, err := Decode(LockName, []byte(edit(t, `"file:///srv/forge/a.zip"`, `"`+u+`"`)), DecodeOptions{})
		if err == nil || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "league:xxxxx@mirror.example.org") {
			t.Errorf("Decode(a bad URL %q) = %v; want it refused, named without its password", u, err)
		}
	}
}

// TestDiffLockWithoutPassword: `forgesync diff` of a lock behind a
// password, whose URLs hold it too, shows neither; nor does its error for
// a lock it refuses.
func TestDiffLockWithoutPassword(t *testing.T) {
	var lock string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != "league" || p != "s3cret" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		if r.URL.Path != "/set/"+LockName {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(lock))
	}))
	defer srv.Close()
	authed := "http://league:s3cret@" + srv.Listener.Addr().String()
	sum := sha256.Sum256([]byte("an archive"))
	e := Entry{ID: "alpha-pack", Version: "1.0.0", SHA256: hex.EncodeToString(sum[:])}
	text, err := Encode(&Lock{Chunks: []string{authed + "/chunks/"}, Packs: []Pack{{ID: e.ID, Version: e.Version, SHA256: e.SHA256, Size: 10,
		URLs: []string{authed + "/a.zip"}, Index: &IndexRef{URL: authed + "/a.caibx", SHA256: hashA}}}})
	if err != nil {
		t.Fatal(err)
	}
	lock = string(text)
	none := func(context.Context) ([]Installed, error) { return nil, nil }
	f := &Fetcher{AllowPrivate: true}
	rep, err := DiffLock(t.Context(), f, authed+"/set/", nil, none)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	WriteDiff(&b, rep)
	js, _ := json.Marshal(rep)
	if strings.Contains(b.String()+string(js), "s3cret") || rep.Source != "http://league:xxxxx@"+srv.Listener.Addr().String()+"/set/"+LockName {
		t.Errorf("diff shows the password:\n%s\n%s", b.String(), js)
	}
	lock = strings.Replace(lock, `version = "1.0.0"`, `version = "one"`, 1)
	if _, err := DiffLock(t.Context(), f, authed+"/set/", nil, none); err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("DiffLock(a bad lock) = %v; want it refused, without the password", err)
	}
}
