package packset

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/mjolnir-forge/forgesync/sets/oci"
)

// ErrURL is wrapped by every error about a URL that a lock may not use.
var ErrURL = errors.New("unusable URL")

// Source is where a lock or an archive is read from: an http(s) URL, a
// local file, or a set in an OCI registry. Exactly one of URL, Path and OCI
// is set.
type Source struct {
	URL  string `json:"url,omitempty"`  // an http or https URL
	Path string `json:"path,omitempty"` // a local file's path
	// OCI is a set in an OCI registry, oci://HOST/REPO:TAG or
	// oci://HOST/REPO@sha256:… as oci.Reference.String writes it
	// (SPEC §10.2b): its archives are the blobs by their SHA-256, not
	// its lock's URLs.
	OCI string `json:"oci,omitempty"`
	// Private is set by FetchLock when the lock at URL was served from a
	// loopback, private or link-local address, not through a proxy: its
	// mirrors may be on such addresses too (see Fetcher.AllowPrivate).
	Private bool `json:"-"`
}

// String returns the URL or the path.
func (s Source) String() string {
	switch {
	case s.URL != "":
		return s.URL
	case s.OCI != "":
		return s.OCI
	}
	return s.Path
}

// Redacted returns the URL with its password replaced (see Redact), or
// the path: what may be printed, logged, stored or put in an error.
func (s Source) Redacted() string {
	switch {
	case s.URL != "":
		return Redact(s.URL)
	case s.OCI != "":
		return s.OCI // a reference holds no credentials (sets/oci refuses them)
	}
	return s.Path
}

// Redact returns s with the password of a URL's user information replaced
// by "xxxxx" (url.URL.Redacted); text that is not such a URL is returned
// as it is, but for a "scheme://user:password@" prefix that does not
// parse, whose password is replaced all the same. Every URL forgesync
// prints, logs, stores or puts in an error or event goes through it.
func Redact(s string) string {
	if !strings.Contains(s, "@") {
		return s
	}
	if u, err := url.Parse(s); err == nil {
		if u.User == nil {
			return s
		}
		return u.Redacted()
	}
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok {
		return s
	}
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	at := strings.LastIndex(rest[:end], "@")
	if at < 0 {
		return s
	}
	user, _, hasPass := strings.Cut(rest[:at], ":")
	if !hasPass {
		return s
	}
	return scheme + "://" + user + ":xxxxx" + rest[at:]
}

// Remote reports whether s is an http(s) URL or a set in an OCI registry.
func (s Source) Remote() bool { return s.URL != "" || s.OCI != "" }

// LockSource returns where the lock that a user named lives: an http(s)
// URL, a file: URL, an oci:// reference, or a path; a folder (a path to a
// directory, or a URL ending in '/') means the forgepacks.lock inside it.
// Relative paths are made absolute against the working directory. Any
// other scheme is refused by name; a drive letter (C:\x, C:/x) is a path.
func LockSource(arg string) (Source, error) {
	if arg == "" {
		return Source{}, fmt.Errorf("no lock given: name a %s file, its folder, its http(s) URL or an oci:// reference", LockName)
	}
	shown := Redact(arg)
	if oci.IsReference(arg) {
		ref, err := oci.ParseReference(arg)
		if err != nil {
			return Source{}, fmt.Errorf("lock: %w", err)
		}
		return Source{OCI: ref.String()}, nil
	}
	if u, err := url.Parse(arg); err == nil && len(u.Scheme) > 1 {
		switch u.Scheme {
		case "http", "https":
			if u.Host == "" {
				return Source{}, fmt.Errorf("lock %q: %w: no host", shown, ErrURL)
			}
			if strings.HasSuffix(u.Path, "/") || u.Path == "" {
				u.Path = strings.TrimSuffix(u.Path, "/") + "/" + LockName
			}
			return Source{URL: u.String()}, nil
		case "file":
			p, err := fileURLPath(u)
			if err != nil {
				return Source{}, fmt.Errorf("lock %q: %w", shown, err)
			}
			arg = p
		default:
			return Source{}, fmt.Errorf("lock %q: %w: the scheme %q is not https, http, file or oci", shown, ErrURL, u.Scheme)
		}
	}
	p, err := filepath.Abs(arg)
	if err != nil {
		return Source{}, fmt.Errorf("lock %q: %w", arg, err)
	}
	if st, err := os.Stat(p); err == nil && st.IsDir() {
		p = filepath.Join(p, LockName)
	}
	return Source{Path: p}, nil
}

// SignatureSource returns where the signature of the lock at s is.
func SignatureSource(s Source) Source {
	if s.URL != "" {
		u, err := url.Parse(s.URL)
		if err == nil {
			u.Path += ".minisig"
			u.RawPath = ""
			return Source{URL: u.String()}
		}
		return Source{URL: s.URL + ".minisig"}
	}
	return Source{Path: s.Path + ".minisig"}
}

// Resolve returns the source of ref, a URL of a pack in the lock at base
// (SPEC §10.1): https and http URLs as they are, file: URLs as local paths,
// and relative URLs against the lock's own location (its folder, or its
// URL). Anything else is refused, naming the URL. Only a lock read from a
// local path may name local files: a server must not make a machine read
// its own disk, nor may a lock given as text (base is the zero Source: it
// has no location), whose sender the machine cannot vouch for; such a
// lock's relative URLs resolve to nothing.
// Errors name ref with its password redacted (see Redact).
func Resolve(base Source, ref string) (Source, error) {
	shown := Redact(ref)
	if why := checkURL(ref); why != "" {
		return Source{}, fmt.Errorf("%q %s: %w", shown, why, ErrURL)
	}
	u, err := url.Parse(ref)
	if err != nil {
		return Source{}, fmt.Errorf("%q: %w: %v", shown, ErrURL, requestError(err)) // without the URL
	}
	switch u.Scheme {
	case "http", "https":
		return Source{URL: u.String()}, nil
	case "file":
		if base.Remote() {
			return Source{}, fmt.Errorf("%q: %w: a lock served over http(s) may not name a local file", shown, ErrURL)
		}
		if base.Path == "" {
			return Source{}, fmt.Errorf("%q: %w: a lock given as text may not name a local file", shown, ErrURL)
		}
		p, err := fileURLPath(u)
		if err != nil {
			return Source{}, fmt.Errorf("%q: %w", shown, err)
		}
		return Source{Path: p}, nil
	case "":
		if base.Remote() {
			b, err := url.Parse(base.URL)
			if err != nil {
				return Source{}, fmt.Errorf("lock URL %q: %w: %v", Redact(base.URL), ErrURL, err)
			}
			return Source{URL: b.ResolveReference(u).String()}, nil
		}
		if base.Path == "" {
			return Source{}, fmt.Errorf("%q: %w: a relative URL needs the lock's location, and a lock given as text has none", shown, ErrURL)
		}
		if u.Host != "" || u.RawQuery != "" || u.Fragment != "" {
			return Source{}, fmt.Errorf("%q: %w: a relative URL beside a local lock is a path, without host, query or fragment", shown, ErrURL)
		}
		p := filepath.FromSlash(u.Path)
		if !filepath.IsAbs(p) {
			p = filepath.Join(filepath.Dir(base.Path), p)
		}
		return Source{Path: filepath.Clean(p)}, nil
	}
	return Source{}, fmt.Errorf("%q: %w: the scheme %q is not https, http or file", shown, ErrURL, u.Scheme)
}

// fileURLPath returns the local path of a file: URL (file:///srv/x.zip,
// file:///C:/packs/x.zip).
func fileURLPath(u *url.URL) (string, error) {
	if u.Host != "" && u.Host != "localhost" {
		return "", fmt.Errorf("%w: a file URL on another host (%s) is not read", ErrURL, u.Host)
	}
	p := u.Path
	if len(p) >= 3 && p[0] == '/' && p[2] == ':' { // /C:/… on Windows
		p = p[1:]
	}
	if p == "" {
		return "", fmt.Errorf("%w: a file URL without a path", ErrURL)
	}
	return filepath.FromSlash(p), nil
}

// DefaultURLTemplate is where `forgesync lock` and `export` say a pack's
// archive is: beside the lock, by content.
const DefaultURLTemplate = "packs/{sha256}{ext}"

// CheckTemplate reports why a URL template cannot name every pack's
// archive: it must hold {sha256} (one URL per archive), may hold {ext},
// nothing else in braces, and expand to a URL that a lock accepts.
func CheckTemplate(template string) error {
	if !strings.Contains(template, "{sha256}") {
		return fmt.Errorf("URL template %q: %w: it must contain {sha256}, so that each archive has its own URL", template, ErrURL)
	}
	_, err := ExpandURL(template, strings.Repeat("0", 64), ".zip")
	return err
}

// ExpandURL fills a URL template's {sha256} and {ext} (the archive's
// extension with its dot, e.g. ".tar.zst"), and checks that the result is
// a URL a lock accepts.
func ExpandURL(template, sha256, ext string) (string, error) {
	out := strings.NewReplacer("{sha256}", sha256, "{ext}", ext).Replace(template)
	if i := strings.IndexAny(out, "{}"); i >= 0 {
		return "", fmt.Errorf("URL template %q: %w: only {sha256} and {ext} are filled in", template, ErrURL)
	}
	if why := checkURL(out); why != "" {
		return "", fmt.Errorf("URL template %q gives %q, which %s: %w", template, out, why, ErrURL)
	}
	return out, nil
}

// ExportTarget checks where `forgesync export` is to write a set: an
// oci:// reference (returned parsed) or a folder (returned as dir). A
// target with any other scheme (s3://, gs://, https://, a typo such as
// htps://) is refused by name, never taken as a folder; a drive letter
// (C:\x, C:/x) is a folder.
func ExportTarget(arg string) (dir string, ref *oci.Reference, err error) {
	if oci.IsReference(arg) {
		r, err := oci.ParseReference(arg)
		if err != nil {
			return "", nil, fmt.Errorf("export: %w", err)
		}
		if r.Tag == "" {
			return "", nil, fmt.Errorf("export %s: %w: name the tag to push to (oci://HOST/REPOSITORY:TAG); the digest is what a push makes", r, oci.ErrReference)
		}
		return "", &r, nil
	}
	if scheme, _, ok := strings.Cut(arg, "://"); ok && len(scheme) > 1 && validScheme(scheme) {
		return "", nil, fmt.Errorf("export %q: %w: the scheme %q is not one forgesync writes to: give a folder (for a web server, bucket or CDN to serve) or oci://HOST/REPOSITORY:TAG", Redact(arg), ErrURL, scheme)
	}
	return arg, nil, nil
}

// validScheme reports whether s is a URL scheme (RFC 3986: a letter, then
// letters, digits, '+', '-' or '.').
func validScheme(s string) bool {
	for i, c := range s {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return s != ""
}
