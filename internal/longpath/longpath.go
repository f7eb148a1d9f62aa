// Package longpath owns the one rule for handing a Windows path longer
// than MAX_PATH (260 characters) to a Windows call that does not lengthen
// it itself, as package os does: ACL calls of golang.org/x/sys/windows
// and fsnotify's CreateFile. [Extend] gives such a call the \\?\ form;
// [Strip] turns a name that comes back in that form into the usual one.
//
// Both work on the Windows spelling of a path and are pure string
// functions, so they are tested on every OS; callers use them on Windows
// only.
package longpath

import "strings"

// limit is the length from which [Extend] lengthens a path: MAX_PATH less
// the 12 characters that CreateDirectory keeps for an 8.3 file name.
const limit = 248

// Extend returns p in its extended-length form (\\?\C:\… or
// \\?\UNC\server\share\…) when p is an absolute drive or UNC path of
// [limit] characters or more, and p unchanged otherwise: a short path, a
// relative one (which the \\?\ form cannot express) or one already in a
// \\?\ or \\.\ form. Forward slashes become backslashes and "." and ".."
// components are resolved, since the \\?\ form passes names through as
// they are.
func Extend(p string) string {
	if len(p) < limit || strings.HasPrefix(p, `\\?\`) || strings.HasPrefix(p, `\\.\`) {
		return p
	}
	s := strings.ReplaceAll(p, "/", `\`)
	switch {
	case len(s) >= 3 && s[1] == ':' && s[2] == '\\' && isLetter(s[0]):
		return `\\?\` + s[:3] + clean(s[3:])
	case strings.HasPrefix(s, `\\`) && len(s) > 2 && s[2] != '\\':
		return `\\?\UNC\` + clean(s[2:])
	}
	return p
}

// Strip returns p without the \\?\ prefix of an extended-length path:
// \\?\C:\x becomes C:\x and \\?\UNC\server\share becomes \\server\share.
func Strip(p string) string {
	if rest, ok := strings.CutPrefix(p, `\\?\UNC\`); ok {
		return `\\` + rest
	}
	if rest, ok := strings.CutPrefix(p, `\\?\`); ok && len(rest) >= 2 && rest[1] == ':' && isLetter(rest[0]) {
		return rest
	}
	return p
}

func isLetter(c byte) bool {
	c |= 0x20
	return c >= 'a' && c <= 'z'
}

// clean resolves "." and ".." and drops empty components of a
// backslash-separated relative path, keeping a trailing separator off.
func clean(rel string) string {
	var out []string
	for _, c := range strings.Split(rel, `\`) {
		switch c {
		case "", ".":
		case "..":
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
		default:
			out = append(out, c)
		}
	}
	return strings.Join(out, `\`)
}
