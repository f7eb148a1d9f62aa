package fetch

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/mjolnir-forge/forgesync/sets/lock"
	"github.com/mjolnir-forge/forgesync/sets/oci"
)

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

// Redacted returns the URL with its password replaced (see lock.Redact), or
// the path: what may be printed, logged, stored or put in an error.
func (s Source) Redacted() string {
	switch {
	case s.URL != "":
		return lock.Redact(s.URL)
	case s.OCI != "":
		return s.OCI // a reference holds no credentials (sets/oci refuses them)
	}
	return s.Path
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
		return Source{}, fmt.Errorf("no lock given: name a %s file, its folder, its http(s) URL or an oci:// reference", lock.LockName)
	}
	shown := lock.Redact(arg)
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
				return Source{}, fmt.Errorf("lock %q: %w: no host", shown, lock.ErrURL)
			}
			if strings.HasSuffix(u.Path, "/") || u.Path == "" {
				u.Path = strings.TrimSuffix(u.Path, "/") + "/" + lock.LockName
			}
			return Source{URL: u.String()}, nil
		case "file":
			p, err := fileURLPath(u)
			if err != nil {
				return Source{}, fmt.Errorf("lock %q: %w", shown, err)
			}
			arg = p
		default:
			return Source{}, fmt.Errorf("lock %q: %w: the scheme %q is not https, http, file or oci", shown, lock.ErrURL, u.Scheme)
		}
	}
	p, err := filepath.Abs(arg)
	if err != nil {
		return Source{}, fmt.Errorf("lock %q: %w", arg, err)
	}
	if st, err := os.Stat(p); err == nil && st.IsDir() {
		p = filepath.Join(p, lock.LockName)
	}
	return Source{Path: p}, nil
}

// signatureSource returns where the signature of the lock at s is.
func signatureSource(s Source) Source {
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

// resolve returns the source of ref, a URL of a pack in the lock at base
// (SPEC §10.1): https and http URLs as they are, file: URLs as local paths,
// and relative URLs against the lock's own location (its folder, or its
// URL). Anything else is refused, naming the URL. Only a lock read from a
// local path may name local files: a server must not make a machine read
// its own disk, nor may a lock given as text (base is the zero Source: it
// has no location), whose sender the machine cannot vouch for; such a
// lock's relative URLs resolve to nothing.
// Errors name ref with its password redacted (see lock.Redact).
func resolve(base Source, ref string) (Source, error) {
	shown := lock.Redact(ref)
	if why := lock.CheckURL(ref); why != "" {
		return Source{}, fmt.Errorf("%q %s: %w", shown, why, lock.ErrURL)
	}
	u, err := url.Parse(ref)
	if err != nil {
		return Source{}, fmt.Errorf("%q: %w: %v", shown, lock.ErrURL, requestError(err)) // without the URL
	}
	switch u.Scheme {
	case "http", "https":
		return Source{URL: u.String()}, nil
	case "file":
		if base.Remote() {
			return Source{}, fmt.Errorf("%q: %w: a lock served over http(s) may not name a local file", shown, lock.ErrURL)
		}
		if base.Path == "" {
			return Source{}, fmt.Errorf("%q: %w: a lock given as text may not name a local file", shown, lock.ErrURL)
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
				return Source{}, fmt.Errorf("lock URL %q: %w: %v", lock.Redact(base.URL), lock.ErrURL, err)
			}
			return Source{URL: b.ResolveReference(u).String()}, nil
		}
		if base.Path == "" {
			return Source{}, fmt.Errorf("%q: %w: a relative URL needs the lock's location, and a lock given as text has none", shown, lock.ErrURL)
		}
		if u.Host != "" || u.RawQuery != "" || u.Fragment != "" {
			return Source{}, fmt.Errorf("%q: %w: a relative URL beside a local lock is a path, without host, query or fragment", shown, lock.ErrURL)
		}
		p := filepath.FromSlash(u.Path)
		if !filepath.IsAbs(p) {
			p = filepath.Join(filepath.Dir(base.Path), p)
		}
		return Source{Path: filepath.Clean(p)}, nil
	}
	return Source{}, fmt.Errorf("%q: %w: the scheme %q is not https, http or file", shown, lock.ErrURL, u.Scheme)
}

// fileURLPath returns the local path of a file: URL (file:///srv/x.zip,
// file:///C:/packs/x.zip).
func fileURLPath(u *url.URL) (string, error) {
	if u.Host != "" && u.Host != "localhost" {
		return "", fmt.Errorf("%w: a file URL on another host (%s) is not read", lock.ErrURL, u.Host)
	}
	p := u.Path
	if len(p) >= 3 && p[0] == '/' && p[2] == ':' { // /C:/… on Windows
		p = p[1:]
	}
	if p == "" {
		return "", fmt.Errorf("%w: a file URL without a path", lock.ErrURL)
	}
	return filepath.FromSlash(p), nil
}
