// Package samepath owns the one rule for whether two paths name the same
// place on disk. A path's spelling is not its identity: Windows (and macOS,
// and a case-folding Linux volume) ignore letter case, a trailing separator
// or a "." changes nothing, and a service started in system32 sees relative
// paths differently. Every comparison of paths that decides what forgesync
// owns, deletes or refuses goes through [Key], [Same] or [Within].
package samepath

import (
	"os"
	"path/filepath"
	"strings"
)

// Key returns the form of p that two spellings of the same place share:
// absolute, cleaned, and case-folded where the platform's file systems
// ignore case (Windows, macOS). It is what maps of paths are keyed by. A
// case-folding volume on Linux is caught by [Same] and [Within], which ask
// the file system when the files exist.
func Key(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		p = a
	}
	p = filepath.Clean(strings.TrimPrefix(p, `\\?\`))
	if foldCase {
		p = strings.ToLower(strings.ToUpper(p))
	}
	return p
}

// Same reports whether a and b name the same place: the same [Key], or, when
// both exist, the same file according to the file system (a case-folding
// volume, a second spelling through a link or a mount).
func Same(a, b string) bool {
	if Key(a) == Key(b) {
		return true
	}
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	if err != nil {
		return false
	}
	return os.SameFile(fa, fb)
}

// Within reports whether p is root or lies under it, whatever the spelling
// of either, and returns p relative to root (in p's own spelling). It
// compares keys first, then walks up p's existing parents asking the file
// system whether one of them is root.
func Within(root, p string) (string, bool) {
	kr, kp := Key(root), Key(p)
	abs := p
	if a, err := filepath.Abs(p); err == nil {
		abs = filepath.Clean(a)
	}
	if kp == kr {
		return ".", true
	}
	prefix := kr
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	if strings.HasPrefix(kp, prefix) && len(abs) == len(kp) {
		return abs[len(prefix):], true
	}
	rootInfo, err := os.Stat(root)
	if err != nil {
		return "", false
	}
	for dir := abs; ; {
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		if fi, err := os.Stat(parent); err == nil && os.SameFile(fi, rootInfo) {
			rel, err := filepath.Rel(parent, abs)
			if err != nil {
				return "", false
			}
			return rel, true
		}
		dir = parent
	}
}

// Overlap reports whether a and b are the same folder or one lies inside
// the other, whatever their spelling.
func Overlap(a, b string) bool {
	if _, ok := Within(a, b); ok {
		return true
	}
	_, ok := Within(b, a)
	return ok
}
