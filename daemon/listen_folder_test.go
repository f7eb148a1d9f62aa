package daemon

import (
	"errors"
	"strings"
	"testing"
)

// TestDecideFolder holds SPEC §8's promise that forgesync never changes a
// folder it does not own: shared folders are refused with the reason and
// the fix, and only a folder forgesync created, an empty one or one
// already private is tightened. The Windows rules run here too.
func TestDecideFolder(t *testing.T) {
	winEnv := map[string]string{
		"ProgramData": `C:\ProgramData`, "USERPROFILE": `C:\Users\ana`, "LOCALAPPDATA": `C:\Users\ana\AppData\Local`,
		"APPDATA": `C:\Users\ana\AppData\Roaming`, "SystemRoot": `C:\Windows`, "TEMP": `C:\Users\ana\AppData\Local\Temp`,
	}
	win := sharedFolders("windows", func(k string) string { return winEnv[k] }, "")
	unix := sharedFolders("linux", func(string) string { return "" }, "/home/ana")
	for _, tc := range []struct {
		name    string
		f       folderFacts
		tighten bool
		refuse  []string // substrings of the error; nil: no error
	}{
		{"unix new folder", folderFacts{Path: "/var/lib/forgesync", Created: true}, true, nil},
		{"unix empty folder", folderFacts{Path: "/home/ana/fs", Empty: true}, true, nil},
		{"unix private folder", folderFacts{Path: "/home/ana/.local/state/forgesync", Private: true}, true, nil},
		{"unix folder with other files", folderFacts{Path: "/home/ana/games"}, false, nil},
		{"unix root", folderFacts{Path: "/", Private: true}, false, []string{"folder /:", "root of a drive", "/run/forgesync/forgesync.sock"}},
		{"unix /run", folderFacts{Path: "/run"}, false, []string{"folder /run:", "other programs share", "e.g. [paths] socket = '/run/forgesync/forgesync.sock'"}},
		{"unix /var/run", folderFacts{Path: "/var/run/"}, false, []string{"/var/run", "other programs share"}},
		{"unix /tmp", folderFacts{Path: "/tmp", Sticky: true, WorldWritable: true}, false, []string{"sticky", "/tmp/forgesync/forgesync.sock"}},
		{"unix sticky", folderFacts{Path: "/srv/drop", Sticky: true}, false, []string{"sticky"}},
		{"unix world-writable", folderFacts{Path: "/srv/drop", WorldWritable: true, Empty: true}, false, []string{"writable by every user"}},
		{"unix other owner", folderFacts{Path: "/srv/alice", OtherOwner: "uid 1000", Empty: true}, false, []string{"another user (uid 1000)"}},
		{"unix home", folderFacts{Path: "/home/ana", Private: true}, false, []string{"other programs share"}},
		{"unix above home", folderFacts{Path: "/home"}, false, []string{"other programs share"}},
		{"unix /var holds shared folders", folderFacts{Path: "/var"}, false, []string{"holds /var/"}},
		{"unix below a shared folder", folderFacts{Path: "/run/forgesync", Created: true}, true, nil},

		{"windows new folder", folderFacts{GOOS: "windows", Path: `C:\Users\ana\AppData\Local\forgesync`, Created: true}, true, nil},
		{"windows our folder", folderFacts{GOOS: "windows", Path: `D:\fs`, Private: true}, true, nil},
		{"windows folder with other files", folderFacts{GOOS: "windows", Path: `D:\Games`}, false, nil},
		{"windows drive root", folderFacts{GOOS: "windows", Path: `C:\`, Empty: true}, false, []string{`folder C:\:`, "root of a drive", `[paths] socket = 'C:\forgesync\forgesync.sock'`}},
		{"windows other drive root", folderFacts{GOOS: "windows", Path: `d:`}, false, []string{"root of a drive"}},
		{"windows extended-length root", folderFacts{GOOS: "windows", Path: `\\?\C:\`}, false, []string{"root of a drive"}},
		{"windows share root", folderFacts{GOOS: "windows", Path: `\\nas\games`}, false, []string{"root of a drive"}},
		{"windows ProgramData", folderFacts{GOOS: "windows", Path: `c:\programdata`}, false, []string{"other programs share"}},
		{"windows profile", folderFacts{GOOS: "windows", Path: `C:\Users\ana`}, false, []string{"other programs share"}},
		{"windows profiles", folderFacts{GOOS: "windows", Path: `C:\Users`}, false, []string{"other programs share"}},
		{"windows AppData", folderFacts{GOOS: "windows", Path: `C:\Users\ana\AppData`}, false, []string{`holds C:\Users\ana\AppData\`}},
		{"windows LOCALAPPDATA", folderFacts{GOOS: "windows", Path: `C:\Users\ana\AppData\Local\`}, false, []string{"other programs share"}},
		{"windows temp", folderFacts{GOOS: "windows", Path: `C:/Users/ana/AppData/Local/Temp`}, false, []string{"other programs share"}},
		{"windows below ProgramData", folderFacts{GOOS: "windows", Path: `C:\ProgramData\forgesync`, Created: true}, true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := tc.f
			f.Shared = unix
			if f.GOOS == "windows" {
				f.Shared = win
			}
			tighten, err := decideFolder("status socket", f)
			if tc.refuse == nil {
				if err != nil || tighten != tc.tighten {
					t.Fatalf("decideFolder(%+v) = %v, %v; want %v, nil", tc.f, tighten, err, tc.tighten)
				}
				return
			}
			if !errors.Is(err, errSharedFolder) || tighten {
				t.Fatalf("decideFolder(%+v) = %v, %v; want ErrSharedFolder", tc.f, tighten, err)
			}
			for _, w := range tc.refuse {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("decideFolder(%s) = %q; want it to say %q", tc.f.Path, err, w)
				}
			}
		})
	}
}

func TestDecideFolderStateExample(t *testing.T) {
	_, err := decideFolder("state", folderFacts{GOOS: "windows", Path: `C:\`})
	if err == nil || !strings.Contains(err.Error(), `state folder C:\:`) || !strings.Contains(err.Error(), `[paths] state = 'C:\forgesync'`) {
		t.Fatalf("decideFolder(state, C:\\) = %v; want the state folder refused with [paths] state = 'C:\\forgesync'", err)
	}
}
