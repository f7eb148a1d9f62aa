package fetch

import (
	"errors"
	"net/http"
	"net/netip"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/sets/lock"
	"github.com/mjolnir-forge/forgesync/sets/settest"
)

func TestAddressKind(t *testing.T) {
	for addr, want := range map[string]string{
		"127.0.0.1": "loopback", "::1": "loopback", "10.1.2.3": "private", "172.16.0.1": "private", "192.168.1.1": "private",
		"fd00::1": "private", "169.254.169.254": "link-local", "fe80::1": "link-local", "0.0.0.0": "unspecified",
		"100.64.0.1": "reserved", "::ffff:127.0.0.1": "loopback", "239.1.2.3": "multicast",
		"93.184.215.14": "", "2606:4700::1111": "",
	} {
		if got := addressKind(netip.MustParseAddr(addr)); got != want {
			t.Errorf("addressKind(%s) = %q; want %q", addr, got, want)
		}
	}
}

func TestPublicLockRefusesPrivateMirror(t *testing.T) {
	m := newMirror(t)
	data, p := archive("inside-pack", 300)
	m.files["/x.zip"] = data
	p.URLs = []string{m.url("/x.zip")}
	// A lock served from a public address (no request goes there).
	public := Source{URL: "http://198.51.100.7/set/forgepacks.lock"}

	f, s := newFetcher(t)
	_, err := f.Fetch(t.Context(), public, []lock.Pack{p})
	if !errors.Is(err, ErrPrivateAddress) || !strings.Contains(err.Error(), "127.0.0.1, a loopback address") || !strings.Contains(err.Error(), "allow_private_mirrors") {
		t.Errorf("Fetch(public lock naming a loopback mirror) = %v; want ErrPrivateAddress naming the address and the key", err)
	}
	if n := len(m.requests()); n != 0 || s.count() != 0 {
		t.Errorf("the loopback mirror got %d requests after %d back-offs; want none, and no retry", n, s.count())
	}

	allowed := []struct {
		name string
		f    func(*Fetcher)
		base Source
	}{
		{"allow_private_mirrors", func(f *Fetcher) { f.AllowPrivate = true }, public},
		{"lock served from a private address", func(*Fetcher) {}, Source{URL: public.URL, Private: true}},
		{"lock read from a file", func(*Fetcher) {}, Source{Path: "/srv/forgepacks.lock"}},
	}
	for _, tc := range allowed {
		f, _ := newFetcher(t)
		tc.f(f)
		if res, err := f.Fetch(t.Context(), tc.base, []lock.Pack{p}); err != nil || len(res) != 1 {
			t.Errorf("%s: Fetch = %+v, %v; want the archive", tc.name, res, err)
		}
	}
}

func TestFetchLockFromLoopbackIsPrivate(t *testing.T) {
	m := newMirror(t)
	m.files["/set/forgepacks.lock"] = []byte(settest.GoodLock)
	f, _ := newFetcher(t)
	src, err := LockSource(m.url("/set/"))
	if err != nil {
		t.Fatal(err)
	}
	lf, err := f.FetchLock(t.Context(), src, Validators{})
	if err != nil || !lf.Source.Private {
		t.Errorf("FetchLock(loopback) = %+v, %v; want a source marked private", lf, err)
	}
}

func TestGuardClientRefusesAtDial(t *testing.T) {
	m := newMirror(t)
	m.files["/x.zip"] = []byte("x")
	// A client with its own transport is guarded on its dials too.
	c := guardClient(&http.Client{Transport: &http.Transport{}})
	resp, err := c.Get(m.url("/x.zip"))
	if err == nil {
		resp.Body.Close()
	}
	if !errors.Is(err, ErrPrivateAddress) || len(m.requests()) != 0 {
		t.Errorf("guarded Get(loopback) = %v, %d requests; want ErrPrivateAddress and none", err, len(m.requests()))
	}
}
