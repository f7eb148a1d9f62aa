package native

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrSemVer is returned (wrapped) for text that is not a Semantic Versioning
// 2.0.0 version.
var ErrSemVer = errors.New("not a semantic version (MAJOR.MINOR.PATCH[-pre][+build])")

// SemVer is a parsed Semantic Versioning 2.0.0 version.
type SemVer struct {
	Major, Minor, Patch uint64
	Pre                 []string // dot-separated pre-release identifiers
	Build               string   // build metadata; ignored by Compare
}

// ParseSemVer parses MAJOR.MINOR.PATCH[-pre][+build] strictly: no leading
// "v", no leading zeros in numeric parts, no empty identifiers.
func ParseSemVer(s string) (SemVer, error) {
	bad := func(why string) (SemVer, error) {
		return SemVer{}, fmt.Errorf("%q: %w: %s", s, ErrSemVer, why)
	}
	var v SemVer
	rest := s
	if i := strings.IndexByte(rest, '+'); i >= 0 {
		v.Build = rest[i+1:]
		rest = rest[:i]
		for _, id := range strings.Split(v.Build, ".") {
			if id == "" || !isIdent(id) {
				return bad("bad build metadata")
			}
		}
	}
	if i := strings.IndexByte(rest, '-'); i >= 0 {
		pre := rest[i+1:]
		rest = rest[:i]
		for _, id := range strings.Split(pre, ".") {
			if id == "" || !isIdent(id) {
				return bad("bad pre-release identifier")
			}
			if isDigits(id) && len(id) > 1 && id[0] == '0' {
				return bad("numeric pre-release identifier with a leading zero")
			}
			v.Pre = append(v.Pre, id)
		}
	}
	parts := strings.Split(rest, ".")
	if len(parts) != 3 {
		return bad("want three numbers")
	}
	nums := [3]*uint64{&v.Major, &v.Minor, &v.Patch}
	for i, p := range parts {
		if p == "" || !isDigits(p) || (len(p) > 1 && p[0] == '0') {
			return bad("numbers must be digits without leading zeros")
		}
		n, err := strconv.ParseUint(p, 10, 64)
		if err != nil {
			return bad("number too large")
		}
		*nums[i] = n
	}
	return v, nil
}

// String formats the version in its canonical form.
func (v SemVer) String() string {
	s := fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch)
	if len(v.Pre) > 0 {
		s += "-" + strings.Join(v.Pre, ".")
	}
	if v.Build != "" {
		s += "+" + v.Build
	}
	return s
}

// Compare returns -1, 0 or +1 as v has lower, equal or higher precedence
// than w (SemVer 2.0.0 §11; build metadata does not count).
func (v SemVer) Compare(w SemVer) int {
	for _, c := range [][2]uint64{{v.Major, w.Major}, {v.Minor, w.Minor}, {v.Patch, w.Patch}} {
		if c[0] != c[1] {
			if c[0] < c[1] {
				return -1
			}
			return 1
		}
	}
	// A version without pre-release identifiers ranks above one with them.
	switch {
	case len(v.Pre) == 0 && len(w.Pre) == 0:
		return 0
	case len(v.Pre) == 0:
		return 1
	case len(w.Pre) == 0:
		return -1
	}
	for i := 0; i < len(v.Pre) && i < len(w.Pre); i++ {
		if c := compareIdent(v.Pre[i], w.Pre[i]); c != 0 {
			return c
		}
	}
	switch {
	case len(v.Pre) < len(w.Pre):
		return -1
	case len(v.Pre) > len(w.Pre):
		return 1
	}
	return 0
}

// compareIdent orders pre-release identifiers: numeric ones numerically and
// below alphanumeric ones, alphanumeric ones in ASCII order.
func compareIdent(a, b string) int {
	an, bn := isDigits(a), isDigits(b)
	switch {
	case an && bn:
		// no leading zeros: a longer number is larger
		if len(a) != len(b) {
			if len(a) < len(b) {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	case an:
		return -1
	case bn:
		return 1
	}
	return strings.Compare(a, b)
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func isIdent(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-') {
			return false
		}
	}
	return true
}
