package lock

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"unicode"
)

// ErrURL is wrapped by every error about a URL that a lock may not use.
var ErrURL = errors.New("unusable URL")

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

// isFileURL reports whether s, a URL CheckURL accepts, is a file: URL.
func isFileURL(s string) bool {
	scheme, _, ok := strings.Cut(s, ":")
	return ok && strings.EqualFold(scheme, "file")
}

// isAbsoluteURL reports whether s, a URL CheckURL accepts, is an http(s)
// or file: URL rather than one relative to the lock.
func isAbsoluteURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && u.Scheme != ""
}

// CheckURL returns why s cannot be a URL that a lock names (a pack's
// mirror, its index, a chunk store), or "" when it can be: at most 2,048
// bytes without spaces or control characters, no unexpanded template, and
// an https or http URL with a host, a file: URL or a relative one.
func CheckURL(s string) string {
	if s == "" {
		return "is empty"
	}
	if len(s) > maxURLBytes {
		return fmt.Sprintf("is over %d bytes", maxURLBytes)
	}
	for _, r := range s {
		if r <= ' ' || r == 0x7f || !unicode.IsPrint(r) {
			return "contains a space or a control character (write it %-encoded)"
		}
	}
	if strings.Contains(s, "{sha256}") || strings.Contains(s, "{ext}") {
		return "contains an unexpanded template; write the archive's URL"
	}
	u, err := url.Parse(s)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the error without the URL, which may hold a password
		}
		return "is not a URL: " + err.Error()
	}
	switch u.Scheme {
	case "https", "http":
		if u.Host == "" {
			return "has no host"
		}
	case "file", "":
	default:
		return fmt.Sprintf("has the scheme %q; a lock accepts https, http, file and relative URLs", u.Scheme)
	}
	return ""
}
