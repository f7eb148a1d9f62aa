package export

import (
	"fmt"
	"strings"

	"github.com/mjolnir-forge/forgesync/sets/lock"
	"github.com/mjolnir-forge/forgesync/sets/oci"
)

// DefaultURLTemplate is where `forgesync lock` and `export` say a pack's
// archive is: beside the lock, by content.
const DefaultURLTemplate = "packs/{sha256}{ext}"

// checkTemplate reports why a URL template cannot name every pack's
// archive: it must hold {sha256} (one URL per archive), may hold {ext},
// nothing else in braces, and expand to a URL that a lock accepts.
func checkTemplate(template string) error {
	if !strings.Contains(template, "{sha256}") {
		return fmt.Errorf("URL template %q: %w: it must contain {sha256}, so that each archive has its own URL", template, lock.ErrURL)
	}
	_, err := expandURL(template, strings.Repeat("0", 64), ".zip")
	return err
}

// expandURL fills a URL template's {sha256} and {ext} (the archive's
// extension with its dot, e.g. ".tar.zst"), and checks that the result is
// a URL a lock accepts.
func expandURL(template, sha256, ext string) (string, error) {
	out := strings.NewReplacer("{sha256}", sha256, "{ext}", ext).Replace(template)
	if i := strings.IndexAny(out, "{}"); i >= 0 {
		return "", fmt.Errorf("URL template %q: %w: only {sha256} and {ext} are filled in", template, lock.ErrURL)
	}
	if why := lock.CheckURL(out); why != "" {
		return "", fmt.Errorf("URL template %q gives %q, which %s: %w", template, out, why, lock.ErrURL)
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
		return "", nil, fmt.Errorf("export %q: %w: the scheme %q is not one forgesync writes to: give a folder (for a web server, bucket or CDN to serve) or oci://HOST/REPOSITORY:TAG", lock.Redact(arg), lock.ErrURL, scheme)
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
