package daemon

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"unicode"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/internal/errkind"
	"github.com/mjolnir-forge/forgesync/sets/follow"
)

// The bounds of a forgesync:// link (SPEC §14): a whole link, and the set
// URL inside it.
const (
	maxLinkBytes    = 4096
	maxLinkURLBytes = 2048
	maxLinkKeyBytes = 256
)

// Link is a parsed forgesync://set?url=URL[&key=KEY] link: the lock (an
// http(s) URL or an oci:// reference) and the minisign key the host says
// signs it, which is trusted only if [sets] trusted_keys lists it.
type Link struct {
	URL string `json:"url"`
	Key string `json:"key,omitempty"`
}

// ParseLink reads a forgesync:// link strictly: the scheme forgesync, the
// action set, the parameters url (once, http, https or oci) and key (at
// most once, one base64 line) and nothing else, within length bounds. Its
// errors say which rule the link broke and show the part at fault, quoted.
func ParseLink(s string) (Link, error) {
	if len(s) > maxLinkBytes {
		return Link{}, fmt.Errorf("link: %d bytes, more than the %d a forgesync:// link may have", len(s), maxLinkBytes)
	}
	if i := strings.IndexFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }); i >= 0 {
		return Link{}, fmt.Errorf("link: a space or control character at byte %d; a forgesync:// link has none", i+1)
	}
	u, err := url.Parse(s)
	if err != nil {
		return Link{}, fmt.Errorf("link: %w", err)
	}
	switch {
	case !strings.EqualFold(u.Scheme, "forgesync"):
		return Link{}, fmt.Errorf("link %q: scheme %q; want forgesync://set?url=…", short(s), u.Scheme)
	case u.Opaque != "" || u.User != nil || !strings.EqualFold(u.Host, "set") || (u.Path != "" && u.Path != "/") || u.Fragment != "":
		return Link{}, fmt.Errorf("link %q: want forgesync://set?url=URL[&key=KEY], nothing else before or after the parameters", short(s))
	}
	q, err := linkParams(u.RawQuery)
	if err != nil {
		return Link{}, fmt.Errorf("link %q: %w", short(s), err)
	}
	l := Link{URL: q["url"], Key: q["key"]}
	return l, l.check()
}

// linkParams reads a link's parameters: url and key, each at most once.
// A value is percent-decoded, and a '+' stays a '+' (a minisign key has
// them), unlike in a form.
func linkParams(raw string) (map[string]string, error) {
	q := map[string]string{}
	for part := range strings.SplitSeq(raw, "&") {
		k, v, _ := strings.Cut(part, "=")
		if k != "url" && k != "key" {
			return nil, fmt.Errorf("unknown parameter %q; a link takes url and key only", short(k))
		}
		if _, twice := q[k]; twice {
			return nil, fmt.Errorf("parameter %s given twice; give it once", k)
		}
		val, err := url.PathUnescape(v)
		if err != nil {
			return nil, fmt.Errorf("parameter %s: %w", k, err)
		}
		q[k] = val
	}
	return q, nil
}

// check applies the rules of a link's parameters.
func (l Link) check() error {
	if l.URL == "" {
		return fmt.Errorf("link: no url parameter; want forgesync://set?url=URL, the set's lock")
	}
	if len(l.URL) > maxLinkURLBytes {
		return fmt.Errorf("link: url is %d bytes, more than %d", len(l.URL), maxLinkURLBytes)
	}
	u, err := url.Parse(l.URL)
	if err != nil {
		return fmt.Errorf("link: url %q: %w", short(l.URL), err)
	}
	switch strings.ToLower(u.Scheme) {
	case "https", "http", "oci":
	default:
		return fmt.Errorf("link: url %q: scheme %q; a set comes from https://, http:// or oci:// only", short(l.URL), u.Scheme)
	}
	if u.Host == "" || u.User != nil {
		return fmt.Errorf("link: url %q: want a host and no user or password", short(l.URL))
	}
	if len(l.Key) > maxLinkKeyBytes {
		return fmt.Errorf("link: key is %d bytes, more than %d", len(l.Key), maxLinkKeyBytes)
	}
	if i := strings.IndexFunc(l.Key, func(r rune) bool { return !isBase64(r) }); i >= 0 {
		return fmt.Errorf("link: key: character %q at byte %d; want a minisign public key, one base64 line", l.Key[i], i+1)
	}
	return nil
}

func isBase64(r rune) bool {
	return r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '+' || r == '/' || r == '=')
}

// short cuts s for an error message.
func short(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}

// previewer is a [Backend] that previews a set a link names (POST
// /v1/set/preview).
type previewer interface {
	SetPreview(ctx context.Context, req api.SetPreviewRequest) (*api.SetPreview, error)
}

// postSetPreview answers POST /v1/set/preview {"url": URL, "key": KEY}:
// the set compared with the machine, nothing applied.
func (s *server) postSetPreview(w http.ResponseWriter, r *http.Request) error {
	const hint = `send {"url": "https://…" or "oci://…", "key": "RW…"}`
	pv, ok := s.b.(previewer)
	if !ok {
		return errkind.New(errkind.NotFound, "this daemon serves no pack sets")
	}
	var req api.SetPreviewRequest
	if err := s.readBody(w, r, &req, hint); err != nil {
		return err
	}
	if err := (Link{URL: req.URL, Key: req.Key}).check(); err != nil {
		return errkind.Wrap(errkind.Invalid, err)
	}
	res, err := pv.SetPreview(r.Context(), req)
	if err != nil {
		return err
	}
	s.writeJSON(w, http.StatusOK, res)
	return nil
}

// SetPreview answers POST /v1/set/preview.
func (b setsBackend) SetPreview(ctx context.Context, req api.SetPreviewRequest) (*api.SetPreview, error) {
	installed, err := b.r.Installed()
	if err != nil {
		return nil, err
	}
	p, err := b.sets().Preview(ctx, req.URL, req.Key, installed)
	if err != nil {
		return nil, errkind.Wrap(errkind.Invalid, err)
	}
	out := &api.SetPreview{Source: p.Source, Name: p.Name, SignedBy: p.Signature.SignedBy(), LinkKey: p.LinkKey, Trusted: p.Trusted,
		Trust: trustWords(p), Comparison: wireComparison(p.Comparison), Pinned: p.Pinned,
		TotalBytes: p.TotalBytes, DownloadBytes: p.DownloadBytes, Warnings: p.Warnings}
	if out.Warnings == nil {
		out.Warnings = []string{}
	}
	return out, nil
}

// trustWords says who signed a previewed set and whether this machine
// trusts them, for a player deciding to join it.
func trustWords(p *follow.Preview) string {
	by := p.Signature.SignedBy()
	switch {
	case p.Trusted:
		return "Signed by key " + by + ", one of the keys this machine trusts ([sets] trusted_keys)."
	case by != "" && by == p.LinkKey:
		return "Signed by key " + by + ", the key the link names. This key is NOT one of the keys this machine trusts ([sets] trusted_keys): anyone can make a link, so join only if you know the host who sent it."
	case p.Signature.KeyID != "":
		return "The set claims to be signed by key " + p.Signature.KeyID + ", but this machine trusts no key and the link names none, so nobody checked it. Join only if you know the host who sent it."
	}
	return "This set is NOT signed: whoever can change the file at " + p.Source + " can change what you install. Join only if you know the host who sent it."
}
