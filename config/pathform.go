package config

import (
	"fmt"
	"regexp"
	"strings"
)

// envVarRef matches a %NAME% reference as cmd.exe writes one
// (%ProgramFiles(x86)% included).
var envVarRef = regexp.MustCompile(`%([A-Za-z_][A-Za-z0-9_()]*)%`)

// pathFormProblem returns why the path p, as written in the config file,
// cannot be resolved as meant on e's operating system, or "" when it can.
// It is checked before a relative path is joined to the config's folder,
// because each of these forms would otherwise land there silently:
//
//   - %NAME% is never expanded, on any OS (a service runs with another
//     account's variables, so the same file would mean two folders);
//   - on Windows, a drive-relative path ("C:fs") depends on the drive's
//     current folder and a root-relative one ("\fs", "/fs") on the
//     current drive, neither of which a service has.
//
// Elsewhere "C:fs" and "\fs" are legitimate relative names (a colon and a
// backslash are ordinary characters in a Linux file name) and resolve
// against the config's folder like any other.
func (e Env) pathFormProblem(p string) string {
	if refs := envVarRef.FindAllStringSubmatch(p, -1); refs != nil {
		msg := fmt.Sprintf("%s in '%s' is not expanded (forgesync reads no environment variables in paths: a service would see another account's)", refs[0][0], p)
		expanded, unset := p, ""
		for _, r := range refs {
			v := e.getenv(r[1])
			if v == "" {
				unset = r[0]
				break
			}
			expanded = strings.ReplaceAll(expanded, r[0], v)
		}
		if unset != "" {
			return msg + fmt.Sprintf("; write the folder itself (%s is not set here)", unset)
		}
		return msg + fmt.Sprintf("; write the folder itself, such as '%s'", expanded)
	}
	if e.goos() != "windows" {
		return "" // "C:fs" and "\fs" are plain relative names here
	}
	drive := len(p) >= 2 && p[1] == ':' && (p[0]|0x20) >= 'a' && (p[0]|0x20) <= 'z'
	sep := func(c byte) bool { return c == '\\' || c == '/' }
	switch {
	case drive && (len(p) == 2 || !sep(p[2])):
		return fmt.Sprintf("'%s' is relative to the current folder of drive %s, which a service does not have: write the full path, such as '%s\\%s'", p, p[:2], p[:2], p[2:])
	case len(p) >= 1 && sep(p[0]) && (len(p) == 1 || !sep(p[1])):
		return fmt.Sprintf("'%s' is relative to the current drive, which a service does not have: write the full path with its drive, such as 'C:%s'", p, p)
	}
	return ""
}
