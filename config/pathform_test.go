package config

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestWindowsPathForms holds that a path a Windows user writes in a form
// that names no fixed folder (drive-relative, root-relative, an unexpanded
// %VAR%) is refused with the reason and the fix, instead of being resolved
// below the config file's folder. The Windows rules run on every OS
// through Env.GOOS.
func TestWindowsPathForms(t *testing.T) {
	vars := map[string]string{"LOCALAPPDATA": `C:\Users\ana\AppData\Local`}
	getenv := func(k string) string { return vars[k] }
	win := Env{GOOS: "windows", Getenv: getenv, Home: `C:\Users\ana`}
	lin := Env{GOOS: "linux", Getenv: getenv, Home: "/home/ana"}
	for _, tc := range []struct {
		name, env, line, key string
		want                 []string // substrings of the message; nil: accepted
	}{
		{"drive-relative", "windows", `mods = 'C:fs'`, "paths.mods", []string{`'C:fs'`, "current folder of drive C:", `'C:\fs'`}},
		{"drive-relative lower case", "windows", `state = 'd:state'`, "paths.state", []string{`'d:state'`, `'d:\state'`}},
		{"root-relative backslash", "windows", `socket = '\fs\forgesync.sock'`, "paths.socket", []string{`'\fs\forgesync.sock'`, "current drive", `'C:\fs\forgesync.sock'`}},
		{"root-relative slash", "windows", `paks = '/games/paks'`, "paths.paks", []string{`'/games/paks'`, "current drive"}},
		{"unexpanded variable", "windows", `state = '%LOCALAPPDATA%\x'`, "paths.state", []string{`'%LOCALAPPDATA%\x'`, "%LOCALAPPDATA%", "not expanded", `'C:\Users\ana\AppData\Local\x'`}},
		{"unexpanded unknown variable", "windows", `drop = 'C:\%NOPE%\drop'`, "paths.drop", []string{"%NOPE%", "not expanded", "not set"}},
		{"variable in log file", "windows", "[log]\nfile = '%TEMP%\\fs.log'", "log.file", []string{"%TEMP%"}},
		{"variable in modules", "windows", "[deploy]\nmodules = '%ProgramFiles(x86)%\\fs'", "deploy.modules", []string{"%ProgramFiles(x86)%"}},
		{"drive-relative set source", "windows", "[sets]\nsource = 'C:lock.json'", "sets.source", []string{`'C:lock.json'`}},
		{"full path", "windows", `mods = 'C:\Games\Mods'`, "", nil},
		{"forward slashes", "windows", `mods = "C:/Games/Mods"`, "", nil},
		{"UNC path", "windows", `mods = '\\nas\games\Mods'`, "", nil},
		{"extended-length path", "windows", `mods = '\\?\C:\Games\Mods'`, "", nil},
		{"relative", "windows", `mods = 'game\Mods'`, "", nil},
		{"home", "windows", `mods = '~\Games\Mods'`, "", nil},
		{"percent alone", "windows", `mods = 'C:\100% done'`, "", nil},

		{"windows path on linux", "linux", `mods = 'C:\Games\Mods'`, "", nil}, // a relative name on Linux
		{"drive-relative on linux", "linux", `mods = 'C:fs'`, "", nil},
		{"root-relative backslash on linux", "linux", `mods = '\fs'`, "", nil},
		{"variable on linux", "linux", `state = '%LOCALAPPDATA%/x'`, "paths.state", []string{"%LOCALAPPDATA%", "not expanded"}},
		{"absolute on linux", "linux", `mods = '/srv/game/Mods'`, "", nil},
		{"relative on linux", "linux", `mods = 'game/Mods'`, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := lin
			if tc.env == "windows" {
				env = win
			}
			text := tc.line
			if !strings.HasPrefix(text, "[") {
				text = "[paths]\n" + text
			}
			path := filepath.Join(t.TempDir(), "forgesync.toml")
			_, err := ParseEnv(path, []byte(text+"\n"), env)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("ParseEnv(%q) = %v; want accepted", text, err)
				}
				return
			}
			var ce *fileError
			if !errors.As(err, &ce) || len(ce.Problems) != 1 {
				t.Fatalf("ParseEnv(%q) = %v; want one problem", text, err)
			}
			p := ce.Problems[0]
			if p.Key != tc.key || p.Line != 2 {
				t.Errorf("problem at %s line %d; want %s line 2", p.Key, p.Line, tc.key)
			}
			for _, w := range tc.want {
				if !strings.Contains(p.Message, w) {
					t.Errorf("message %q; want it to contain %q", p.Message, w)
				}
			}
		})
	}
}
