package lock

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
)

// userinfoPassword matches the user information of a URL with a password
// in free text: the scheme and user (group 1), the password (group 2) and
// the '@' after it.
var userinfoPassword = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://[^\s/?#@:"'\\]*):([^\s/?#@"'\\]*)@`)

// RedactText returns s with the password of every URL in it replaced by
// "xxxxx", as [Redact] does for one URL: for text that may name URLs
// anywhere (an error, a log line, a lock's text).
func RedactText(s string) string {
	return userinfoPassword.ReplaceAllString(s, "${1}:xxxxx@")
}

// RedactLock returns what may be kept of a lock's text: data itself when
// no URL it names (chunks, urls, index) holds a password, else the text
// with every password replaced by "xxxxx" (see [RedactText]; when the text
// spells a URL so that its password is not found there, the lock as
// [Encode] writes it, its URLs redacted), and whether it held one. A
// redacted text is no longer the text a signature covers, nor one whose
// mirrors can be reached: it says what the lock pinned, for status. name is
// used in errors only.
func RedactLock(name string, data []byte) ([]byte, bool, error) {
	l, err := Decode(name, data, DecodeOptions{Have: HaveAll})
	if err != nil {
		return nil, false, err
	}
	if !lockHoldsPassword(l) && RedactText(string(data)) == string(data) {
		return data, false, nil
	}
	text := []byte(RedactText(string(data)))
	if back, err := Decode(name, text, DecodeOptions{Have: HaveAll}); err == nil && !lockHoldsPassword(back) && back.Fingerprint() == l.Fingerprint() {
		return text, true, nil
	}
	red := *l
	red.Chunks = redactAll(l.Chunks)
	red.Packs = slices.Clone(l.Packs)
	for i, p := range red.Packs {
		red.Packs[i].URLs = redactAll(p.URLs)
		if p.Index != nil {
			red.Packs[i].Index = &IndexRef{URL: Redact(p.Index.URL), SHA256: p.Index.SHA256}
		}
	}
	text, err = Encode(&red)
	if err != nil {
		return nil, true, fmt.Errorf("%s: redact its passwords: %w", name, err)
	}
	return text, true, nil
}

// lockHoldsPassword reports whether a URL that l names holds a password
// (other than the "xxxxx" of a redacted one).
func lockHoldsPassword(l *Lock) bool {
	held := func(s string) bool {
		u, err := url.Parse(s)
		if err != nil {
			return Redact(s) != s
		}
		p, ok := u.User.Password()
		return ok && p != "xxxxx"
	}
	if slices.ContainsFunc(l.Chunks, held) {
		return true
	}
	for _, p := range l.Packs {
		if slices.ContainsFunc(p.URLs, held) || p.Index != nil && held(p.Index.URL) {
			return true
		}
	}
	return false
}

// redactAll returns urls, each with its password redacted.
func redactAll(urls []string) []string {
	if urls == nil {
		return nil
	}
	out := make([]string, len(urls))
	for i, u := range urls {
		out[i] = Redact(u)
	}
	return out
}
