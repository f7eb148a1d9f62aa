package intake

import (
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// CheckName reports every naming rule of SPEC §2 that the entry name
// breaks; nil means the name is safe to create below any folder on Windows,
// macOS and Linux. name is a slash-separated relative path as stored in an
// archive, without the trailing slash of a directory entry and without a
// leading "./" (see [cleanName]). It is a pure function of name and lim.
func CheckName(name string, lim Limits) []Problem {
	var ps []Problem
	add := func(rule, value string) { ps = append(ps, Problem{Entry: name, Rule: rule, Value: value}) }
	if name == "" {
		add(RuleEmptyName, "")
		return ps
	}
	if !utf8.ValidString(name) {
		add(RuleInvalidUTF8, fmt.Sprintf("%q", name))
	}
	if len(name) > lim.MaxPathBytes {
		add(RulePathTooLong, fmt.Sprintf("%d bytes, limit %d", len(name), lim.MaxPathBytes))
	}
	if strings.ContainsRune(name, '\\') {
		add(RuleBackslash, "")
	}
	if r, ok := controlRune(name); ok {
		add(RuleControlChar, fmt.Sprintf("%U", r))
	}
	if name[0] == '/' {
		add(RuleAbsolute, "")
	}
	rest := name
	if hasDriveLetter(name) {
		add(RuleDriveLetter, name[:2])
		rest = name[2:]
	}
	if i := strings.IndexAny(rest, `<>:"|?*`); i >= 0 {
		add(RuleWindowsChar, fmt.Sprintf("%q", rest[i]))
	}
	path := strings.TrimPrefix(name, "/")
	if depth := strings.Count(path, "/") + 1; depth > lim.MaxDepth {
		add(RuleTooDeep, fmt.Sprintf("%d levels, limit %d", depth, lim.MaxDepth))
	}
	// Report each component rule once per name, for the first offender.
	seen := map[string]bool{}
	once := func(rule, value string) {
		if !seen[rule] {
			seen[rule] = true
			add(rule, value)
		}
	}
	for c := range strings.SplitSeq(path, "/") {
		switch {
		case c == "":
			once(RuleEmptyComponent, "")
			continue
		case c == ".":
			once(RuleDotComponent, "")
			continue
		case c == "..":
			once(RuleDotDot, "")
			continue
		}
		if isReserved(c) {
			once(RuleReserved, c)
		}
		if last := c[len(c)-1]; last == '.' || last == ' ' {
			once(RuleTrailingDotSpace, fmt.Sprintf("%q", c))
		}
		if isShortName(c) {
			once(RuleShortName, c)
		}
	}
	return ps
}

// hasDriveLetter reports whether name starts like "C:".
func hasDriveLetter(name string) bool {
	if len(name) < 2 || name[1] != ':' {
		return false
	}
	c := name[0] | 0x20
	return c >= 'a' && c <= 'z'
}

// controlRune returns the first C0 or C1 control character in s, NUL and
// DEL included. Invalid UTF-8 bytes are reported by another rule.
func controlRune(s string) (rune, bool) {
	for _, r := range s {
		if r < 0x20 || (r >= 0x7f && r <= 0x9f) {
			return r, true
		}
	}
	return 0, false
}

// reservedNames are the device names Windows reserves in every folder,
// whatever the extension ("nul.txt" is NUL too) and whatever the case.
// The superscript digits ¹²³ count as digits for COM and LPT.
var reservedNames = func() map[string]bool {
	m := map[string]bool{"CON": true, "PRN": true, "AUX": true, "NUL": true, "CONIN$": true, "CONOUT$": true}
	for _, d := range []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "¹", "²", "³"} {
		m["COM"+d] = true
		m["LPT"+d] = true
	}
	return m
}()

// isReserved reports whether the path component c is a Windows device name.
// An ASCII base is upper-cased on the stack: strings.ToUpper allocated for
// every component in lower case, several for each name of a pack.
func isReserved(c string) bool {
	base, _, _ := strings.Cut(c, ".")
	base = strings.TrimRight(base, " ")
	if len(base) < 3 || len(base) > 8 {
		return false
	}
	var up [8]byte
	for i := 0; i < len(base); i++ {
		b := base[i]
		if b >= utf8.RuneSelf {
			// Unicode's upper case, which makes "conın$" (a dotless ı) CONIN$.
			return reservedNames[strings.ToUpper(base)]
		}
		if 'a' <= b && b <= 'z' {
			b -= 'a' - 'A'
		}
		up[i] = b
	}
	return reservedNames[string(up[:len(base)])]
}

// isShortName reports whether the path component c has the shape of a
// Windows 8.3 short name: 1 to 6 characters, "~", one or more digits, at
// most 8 characters before the dot, and an optional extension of 1 to 3
// characters ("AVERYL~1.PAK", "AB12CD~9"). NTFS and FAT answer such a name
// with the long-named file it aliases, so "AVERYL~1.PAK" may open
// "averylongname.pak" of the same archive or a file already in the game's
// folder. Any component of that shape is refused, not only one that
// aliases another entry of the archive: the alias Windows picks depends on
// what the target folder already holds, which the archive's bytes cannot
// tell, and a name must get the same verdict on every OS.
func isShortName(c string) bool {
	base, ext, dotted := strings.Cut(c, ".")
	if dotted && (len(ext) == 0 || len(ext) > 3 || strings.Contains(ext, ".")) {
		return false
	}
	if len(base) > 8 {
		return false
	}
	prefix, num, ok := strings.Cut(base, "~")
	if !ok || len(prefix) == 0 || len(prefix) > 6 || num == "" {
		return false
	}
	for i := 0; i < len(num); i++ {
		if num[i] < '0' || num[i] > '9' {
			return false
		}
	}
	return true
}

// cleanName turns a name as stored in an archive into the form CheckName
// and the layout rules take: the "./" prefix that `tar -C dir .` writes is
// dropped, and so is a directory's trailing slash. It reports whether a
// trailing slash marked the name as a directory. The bare "./" entry
// becomes "", which callers skip as the archive root itself.
func cleanName(raw string) (name string, slashDir bool) {
	name = raw
	for strings.HasPrefix(name, "./") {
		name = name[2:]
	}
	if strings.HasSuffix(name, "/") && name != "/" {
		name = strings.TrimSuffix(name, "/")
		slashDir = true
	}
	if raw == "." {
		name = ""
	}
	return name, slashDir
}

// foldKey returns the key under which two names count as the same entry:
// Unicode NFC, then full case folding (what case-insensitive file systems
// on Windows and macOS treat as one name, and more). An ASCII name is its
// own NFC form and folds A–Z to a–z alone, which strings.ToLower does
// without the Unicode tables (and without allocating when the name has no
// capital): 3,000 entries each look up every folder on their way, twice
// (in the child and again in the parent).
func foldKey(name string) string {
	for i := 0; i < len(name); i++ {
		if name[i] >= utf8.RuneSelf {
			return cases.Fold().String(norm.NFC.String(name))
		}
	}
	return strings.ToLower(name)
}

// IgnoredDropName reports whether a file in the drop folder is left alone
// until it is renamed, because its base name marks an unfinished download
// or a temp file, or is one of the files an OS writes into any folder
// (SPEC §2): *.part, *.crdownload, *.download, *.tmp, *.opdownload, *.!qB
// (in any case), ~*, .*, desktop.ini, Thumbs.db and *:Zone.Identifier.
func IgnoredDropName(name string) bool {
	base := filepath.Base(name)
	if strings.HasPrefix(base, "~") || strings.HasPrefix(base, ".") {
		return true
	}
	// The files an OS writes into any folder: Explorer's desktop.ini and
	// Thumbs.db, and the Zone.Identifier stream that a copy from NTFS
	// (WSL, Samba) leaves as a file named "x.zip:Zone.Identifier".
	lower := strings.ToLower(base)
	switch lower {
	case "desktop.ini", "thumbs.db":
		return true
	}
	if strings.HasSuffix(lower, ":zone.identifier") {
		return true
	}
	switch strings.ToLower(filepath.Ext(base)) {
	case ".part", ".crdownload", ".download", ".tmp", ".opdownload", ".!qb":
		return true
	}
	return false
}
