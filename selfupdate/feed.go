package selfupdate

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"aead.dev/minisign"

	"github.com/mjolnir-forge/forgesync/internal/errkind"
	"github.com/mjolnir-forge/forgesync/internal/semver"
	"github.com/mjolnir-forge/forgesync/sets/fetch"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// releaseKey is the minisign public key that signs the project's
// releases, set at link time (`make release`: -X
// github.com/mjolnir-forge/forgesync/selfupdate.releaseKey=RW…); a
// binary built without one refuses to update.
var releaseKey string

// defaultFeed is the folder the project's newest release is served from,
// overridable at link time and by [update] feed.
var defaultFeed = "https://github.com/mjolnir-forge/forgesync/releases/latest/download/"

// The names of the feed's files: what `make release` writes.
const (
	sumsName = "SHA256SUMS"
	sigName  = sumsName + ".minisig"
)

// Bounds of what the feed may send.
const (
	maxSumsBytes = 64 << 10
	maxSigBytes  = 4 << 10
	// maxArchiveBytes bounds a release archive (one is about 10 MiB):
	// SHA256SUMS names no sizes, so a server that sends more is cut off
	// here, and the SHA-256 catches one that sends less.
	maxArchiveBytes = 256 << 20
)

// Errors a caller may test for.
var (
	// errNoKey is returned by a binary built without the release key.
	errNoKey = errors.New("this forgesync was built without the release key, so it cannot check an update: download the release by hand (see the README's Install), or build with `make release RELEASE_KEY=RW…`")
	// errBadSignature is wrapped when SHA256SUMS.minisig does not check.
	errBadSignature = errors.New("the release's signature does not check")
	// errNoArchive is wrapped when the feed has no archive for this OS.
	errNoArchive = errors.New("no release archive for this system")
)

// Options says where the feed is and what this binary is.
type Options struct {
	// Feed is the URL of the folder holding SHA256SUMS, its signature and
	// the archives; empty means the built-in feed.
	Feed string
	// Key is the release public key (minisign); empty means the one built
	// in.
	Key string
	// Current is this binary's version.
	Current string
	// GOOS and GOARCH choose the archive; empty means this binary's.
	GOOS, GOARCH string
	// Client makes the requests; nil means a client that refuses
	// non-public addresses unless the feed itself names one.
	Client *http.Client
	// Timeout bounds the whole check or download; 0 means 10 minutes.
	Timeout time.Duration
}

// Release is what the feed offers this machine.
type Release struct {
	Current   string `json:"current"`
	Latest    string `json:"latest"`
	Available bool   `json:"available"` // Latest is newer than Current
	Archive   string `json:"archive"`   // its file name
	URL       string `json:"-"`
	SHA256    []byte `json:"-"`
	// SignedBy is the key id of the signature that checked.
	SignedBy string `json:"signed_by"`
}

// Check reads the feed, checks its signature and returns the release for
// this OS. It changes nothing on disk.
func Check(ctx context.Context, o Options) (Release, error) {
	o = o.filled()
	if o.Key == "" {
		return Release{}, errkind.Wrap(errkind.Unavailable, fmt.Errorf("selfupdate: %w", errNoKey))
	}
	key, err := lock.ParsePublicKey(o.Key)
	if err != nil {
		return Release{}, fmt.Errorf("selfupdate: the built-in release key: %w", err)
	}
	base, err := feedURL(o.Feed)
	if err != nil {
		return Release{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	client := o.client(base)
	sums, err := get(ctx, client, base.JoinPath(sumsName), maxSumsBytes)
	if err != nil {
		return Release{}, err
	}
	sig, err := get(ctx, client, base.JoinPath(sigName), maxSigBytes)
	if err != nil {
		return Release{}, err
	}
	signedBy, err := verify(key, sums, sig)
	if err != nil {
		return Release{}, fmt.Errorf("selfupdate: %s from %s: %w; nothing was changed (is [update] feed the project's?)", sigName, redact(base), err)
	}
	r, err := pick(sums, o.GOOS, o.GOARCH)
	if err != nil {
		return Release{}, fmt.Errorf("selfupdate: %s from %s: %w", sumsName, redact(base), err)
	}
	r.Current, r.SignedBy, r.URL = o.Current, signedBy, base.JoinPath(r.Archive).String()
	r.Available = Newer(r.Latest, o.Current)
	return r, nil
}

func (o Options) filled() Options {
	if o.Feed == "" {
		o.Feed = defaultFeed
	}
	if o.Key == "" {
		o.Key = releaseKey
	}
	if o.GOOS == "" {
		o.GOOS = goos
	}
	if o.GOARCH == "" {
		o.GOARCH = goarch
	}
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Minute
	}
	return o
}

// client returns o.Client, or the default client: one whose every dial,
// redirects included, must reach a public address, unless the feed
// itself names a loopback or private address (a test, a LAN mirror).
func (o Options) client(base *url.URL) *http.Client {
	c := o.Client
	if c == nil {
		c = &http.Client{Transport: &http.Transport{Proxy: http.ProxyFromEnvironment, ResponseHeaderTimeout: 30 * time.Second, TLSHandshakeTimeout: 15 * time.Second}}
	}
	if localHost(base.Hostname()) {
		return c
	}
	return fetch.GuardClientSaying(c, "a release feed on the internet may send forgesync only to public addresses")
}

// localHost reports whether host is "localhost" or a loopback or private
// IP address.
func localHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && (ip.Unmap().IsLoopback() || ip.Unmap().IsPrivate())
}

// verify checks that sig is key's signature of sums and returns the key
// id.
func verify(key minisign.PublicKey, sums, sig []byte) (string, error) {
	var s minisign.Signature
	if err := s.UnmarshalText(bytes.ReplaceAll(sig, []byte("\r\n"), []byte("\n"))); err != nil {
		return "", fmt.Errorf("%w: not a minisign signature: %w", errBadSignature, err)
	}
	want := lock.KeyID(key.ID())
	if s.KeyID != key.ID() {
		return "", fmt.Errorf("%w: it is signed by key %s, not by the release key %s this forgesync was built with", errBadSignature, lock.KeyID(s.KeyID), want)
	}
	if !minisign.Verify(key, sums, sig) {
		return "", fmt.Errorf("%w: the signature by the release key %s does not match %s (edited after signing, or another release's)", errBadSignature, want, sumsName)
	}
	return want, nil
}

// feedURL parses the feed's URL as a folder.
func feedURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, errkind.Errorf(errkind.Invalid, "selfupdate: [update] feed %q: want the http or https URL of the folder holding %s", redactString(s), sumsName)
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	return u, nil
}

// get returns the body of u, at most limit bytes.
func get(ctx context.Context, c *http.Client, u *url.URL, limit int64) ([]byte, error) {
	resp, err := open(ctx, c, u)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("selfupdate: read %s: %w; nothing was changed, try again later", redact(u), err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("selfupdate: %s is over %d bytes, which no release's is; nothing was changed", redact(u), limit)
	}
	return data, nil
}

// open sends a GET for u and returns a 200 answer.
func open(ctx context.Context, c *http.Client, u *url.URL) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("selfupdate: %s: %w", redact(u), err)
	}
	resp, err := c.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL once, redacted, not twice
		}
		return nil, errkind.Wrap(errkind.Unavailable, fmt.Errorf("selfupdate: get %s: %w; nothing was changed", redact(u), err))
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, errkind.Wrap(errkind.Unavailable, fmt.Errorf("selfupdate: get %s: %s; nothing was changed (is [update] feed right?)", redact(u), resp.Status))
	}
	return resp, nil
}

// pick returns the release of SHA256SUMS for goos/goarch: its one archive
// forgesync_<version>_<goos>_<goarch>.zip (Windows) or .tar.gz.
func pick(sums []byte, goos, goarch string) (Release, error) {
	ext := ".tar.gz"
	if goos == "windows" {
		ext = ".zip"
	}
	suffix := "_" + goos + "_" + goarch + ext
	var found []Release
	sc := bufio.NewScanner(bytes.NewReader(sums))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSuffix(sc.Text(), "\r")
		sum, name, ok := strings.Cut(line, "  ")
		if line == "" {
			continue
		}
		h, err := hex.DecodeString(sum)
		if !ok || err != nil || len(h) != 32 {
			return Release{}, fmt.Errorf("line %d: want \"SHA-256  NAME\" as sha256sum writes it, got %q", n, line)
		}
		if !strings.HasPrefix(name, "forgesync_") || !strings.HasSuffix(name, suffix) {
			continue
		}
		v := strings.TrimSuffix(strings.TrimPrefix(name, "forgesync_"), suffix)
		if _, err := semver.Parse(v); err != nil {
			return Release{}, fmt.Errorf("line %d: %s: version %q: %w", n, name, v, err)
		}
		found = append(found, Release{Latest: v, Archive: name, SHA256: h})
	}
	switch {
	case len(found) == 0:
		return Release{}, fmt.Errorf("%w (%s/%s): no forgesync_VERSION%s in it", errNoArchive, goos, goarch, suffix)
	case len(found) > 1:
		return Release{}, fmt.Errorf("%d archives for %s/%s (%s, %s): a feed holds one release", len(found), goos, goarch, found[0].Archive, found[1].Archive)
	}
	return found[0], nil
}

// Newer reports whether version latest is newer than current; a current
// that is not a semantic version is older than any release.
func Newer(latest, current string) bool {
	l, err := semver.Parse(latest)
	if err != nil {
		return false
	}
	c, err := semver.Parse(current)
	return err != nil || semver.Compare(l, c) > 0
}

// redact returns u without its user information and query (a token a
// feed's URL might carry).
func redact(u *url.URL) string {
	c := *u
	c.User, c.RawQuery, c.Fragment = nil, "", ""
	return c.String()
}

func redactString(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(not a URL)"
	}
	return redact(u)
}
