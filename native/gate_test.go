package native

import (
	"strings"
	"testing"
	"testing/fstest"
)

func modsFS(forge, lobby, loader string) fstest.MapFS {
	m := fstest.MapFS{}
	for mod, v := range map[string]string{ModForge: forge, ModLobby: lobby, ModLevelLoader: loader} {
		if v != "-" {
			m[mod+"/version.txt"] = &fstest.MapFile{Data: []byte(v)}
		}
	}
	return m
}

func TestCheckGates(t *testing.T) {
	tests := []struct {
		name                 string
		forge, lobby, loader string // "-": no version.txt
		doors, lifts         bool
		states               [3]ModState
		reasons              []string // substrings, in order
	}{
		{name: "all minimum", forge: "0.4.0\n", lobby: "0.19.2\n", loader: "0.9.8\n",
			doors: true, lifts: true, states: [3]ModState{ModOK, ModOK, ModOK}},
		{name: "newer, CRLF and BOM", forge: "\xef\xbb\xbf0.5.1\r\n", lobby: "1.0.0", loader: " 0.10.0 \n",
			doors: true, lifts: true, states: [3]ModState{ModOK, ModOK, ModOK}},
		{name: "older Forge", forge: "0.3.9\n", lobby: "0.19.2\n", loader: "0.9.8\n",
			doors: false, lifts: true, states: [3]ModState{ModOld, ModOK, ModOK},
			reasons: []string{"MJOLNIRForge 0.3.9 is older than 0.4.0, and its save path would serialize the animated door position"}},
		{name: "Forge pre-release ranks below the release", forge: "0.4.0-rc.2\n", lobby: "0.19.2\n", loader: "0.9.8\n",
			doors: false, lifts: true, states: [3]ModState{ModOld, ModOK, ModOK},
			reasons: []string{"MJOLNIRForge 0.4.0-rc.2 is older than 0.4.0"}},
		{name: "older Lobby", forge: "0.4.0\n", lobby: "0.19.1\n", loader: "0.9.8\n",
			doors: false, lifts: true, states: [3]ModState{ModOK, ModOld, ModOK},
			reasons: []string{"MJOLNIRLobby 0.19.1 is older than 0.19.2"}},
		{name: "older LevelLoader", forge: "0.4.0\n", lobby: "0.19.2\n", loader: "0.9.7\n",
			doors: false, lifts: false, states: [3]ModState{ModOK, ModOK, ModOld},
			reasons: []string{"pack lifts disabled: MJOLNIRLevelLoader 0.9.7 is older than 0.9.8", "work only together"}},
		{name: "missing Forge", forge: "-", lobby: "0.19.2\n", loader: "0.9.8\n",
			doors: false, lifts: true, states: [3]ModState{ModMissing, ModOK, ModOK},
			reasons: []string{"door automation disabled: MJOLNIRForge is not installed (no MJOLNIRForge/version.txt)"}},
		{name: "nothing installed", forge: "-", lobby: "-", loader: "-",
			states:  [3]ModState{ModMissing, ModMissing, ModMissing},
			reasons: []string{"MJOLNIRForge is not installed", "MJOLNIRLobby is not installed", "MJOLNIRLevelLoader is not installed"}},
		{name: "a leading v, as mods tag releases", forge: "v0.4.0\n", lobby: "v0.19.2\r\n", loader: "V0.9.8",
			doors: true, lifts: true, states: [3]ModState{ModOK, ModOK, ModOK}},
		{name: "invalid versions", forge: "vv0.4.0\n", lobby: "0.19.2\n0.19.3\n", loader: "\n",
			states:  [3]ModState{modInvalid, modInvalid, modInvalid},
			reasons: []string{"MJOLNIRForge/version.txt", "more than one line", "empty"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := CheckGates(modsFS(tt.forge, tt.lobby, tt.loader))
			if g.DoorAutomation != tt.doors || g.PackLifts != tt.lifts {
				t.Errorf("CheckGates: doors %v lifts %v; want %v %v (reasons %q)", g.DoorAutomation, g.PackLifts, tt.doors, tt.lifts, g.Reasons)
			}
			for i, m := range g.Mods {
				if m.State != tt.states[i] {
					t.Errorf("CheckGates: %s state %q (%s); want %q", m.Mod, m.State, m.Reason, tt.states[i])
				}
			}
			all := strings.Join(g.Reasons, "\n")
			at := 0
			for _, want := range tt.reasons {
				i := strings.Index(all[at:], want)
				if i < 0 {
					t.Errorf("CheckGates reasons %q; want %q (in order)", g.Reasons, want)
					break
				}
				at += i + len(want)
			}
			if len(tt.reasons) == 0 && len(g.Reasons) != 0 {
				t.Errorf("CheckGates reasons %q; want none", g.Reasons)
			}
		})
	}
}

// TestCheckGatesInvalidShowsTheValue: a version.txt that is not a version
// is shown as written, in the state's version and in its reason, never as
// an empty version.
func TestCheckGatesInvalidShowsTheValue(t *testing.T) {
	g := CheckGates(modsFS("0.4.0\n", "v0.19\n", "0.9.8\n"))
	lobby := g.Mods[1]
	if lobby.State != modInvalid || lobby.Version != "v0.19" || !strings.Contains(lobby.Reason, `MJOLNIRLobby/version.txt: "v0.19": not a semantic version`) {
		t.Errorf("CheckGates(v0.19) lobby = %+v; want invalid, version v0.19, the value in the reason", lobby)
	}
}

func TestCheckGatesUnreadable(t *testing.T) {
	m := modsFS("0.4.0\n", "0.19.2\n", "0.9.8\n")
	m["MJOLNIRForge/version.txt"] = &fstest.MapFile{Data: []byte(strings.Repeat("1", maxVersionFile+1))}
	g := CheckGates(m)
	if g.Mods[0].State != modUnreadable || g.DoorAutomation {
		t.Errorf("CheckGates with a huge version.txt: %+v; want unreadable Forge, no doors", g.Mods[0])
	}
}

func TestCheckGatesDir(t *testing.T) {
	dir := t.TempDir()
	g := CheckGatesDir(dir)
	if g.DoorAutomation || g.PackLifts || g.Mods[2].State != ModMissing {
		t.Errorf("CheckGatesDir(empty) = %+v; want nothing working", g)
	}
}

func TestVersionFile(t *testing.T) {
	info, err := ParseVersionFile(VersionFileContents())
	if err != nil || info.Version != ModuleVersion || info.APIVersion != APIVersion {
		t.Errorf("ParseVersionFile(%q) = %+v, %v", VersionFileContents(), info, err)
	}
	for _, bad := range []string{"", "forge_doors 1.0.0 api 1", "forge_doors 1.0 api 1\n", "forge_doors 1.0.0 api 01\n",
		"forge_doors 1.0.0 api 0\n", "forge_doors 1.0.0 abi 1\n", "forge_doors 1.0.0 api 1\r\n"} {
		if _, err := ParseVersionFile([]byte(bad)); err == nil {
			t.Errorf("ParseVersionFile(%q) = nil error; want one", bad)
		}
	}
	if ModulePath() != "MJOLNIRLobby/dlls/forge_doors.dll" || VersionPath() != "MJOLNIRLobby/dlls/forge_doors.version" {
		t.Errorf("ModulePath, VersionPath = %q, %q", ModulePath(), VersionPath())
	}
}
