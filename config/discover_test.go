package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// accounts returns the Envs of a player and of a machine service (a
// system unit running as root) on one Linux machine rooted at root.
func accounts(root string) (user, svc Env) {
	userVars := map[string]string{"XDG_CONFIG_HOME": filepath.Join(root, "home", "player", ".config")}
	user = Env{GOOS: "linux", Root: root, Home: filepath.Join(root, "home", "player"), Getenv: func(k string) string { return userVars[k] }}
	svc = Env{GOOS: "linux", Root: root, Home: filepath.Join(root, "root"), Getenv: func(string) string { return "" }, Machine: true}
	return user, svc
}

func write(t *testing.T, path, text string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestDiscoverOrder(t *testing.T) {
	root := t.TempDir()
	user, _ := accounts(root)
	vars := map[string]string{"XDG_CONFIG_HOME": filepath.Join(root, "home", "player", ".config")}
	user.Getenv = func(k string) string { return vars[k] }
	check := func(flag, wantPath, wantHow string) {
		t.Helper()
		p, how, err := user.Discover(flag)
		if err != nil || p != wantPath || how != wantHow {
			t.Fatalf("Discover(%q) = %q, %q, %v; want %q, %q", flag, p, how, err, wantPath, wantHow)
		}
	}
	check("", "", "")
	machine := write(t, user.MachineFile(), "")
	check("", machine, "the machine's file")
	userFile := write(t, user.UserFile(), "")
	check("", userFile, "the user's file")
	vars[EnvVar] = "/from/env.toml"
	check("", "/from/env.toml", "$FORGESYNC_CONFIG")
	check("/from/flag.toml", "/from/flag.toml", "--config")
}

// TestServiceAndCLIAgree resolves one configuration file for the machine
// service and for the player who installs it: they must reach the same
// state, socket and game folders, or install is refused naming the key.
func TestServiceAndCLIAgree(t *testing.T) {
	root := t.TempDir()
	user, svc := accounts(root)
	state := filepath.Join(root, "srv", "forgesync")
	cases := []struct {
		name, file, text, wantKey string
	}{
		{"state named", filepath.Join(root, "cfg", "a.toml"), "[paths]\nmods = '/games/Mods'\npaks = '/games/Paks'\nstate = '" + state + "'\n", ""},
		{"state by default in a user file", filepath.Join(root, "cfg", "b.toml"), "[paths]\nmods = '/games/Mods'\npaks = '/games/Paks'\n", "paths.state"},
		{"home-relative mods", filepath.Join(root, "cfg", "c.toml"), "[paths]\nmods = '~/Mods'\npaks = '/games/Paks'\nstate = '" + state + "'\n", "paths.mods"},
		{"the machine's file", user.MachineFile(), "[paths]\nmods = '/games/Mods'\npaks = '/games/Paks'\n", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			write(t, c.file, c.text)
			err := checkServiceAgrees(c.file, user, svc)
			if c.wantKey == "" {
				if err != nil {
					t.Fatalf("CheckServiceAgrees = %v; want agreement", err)
				}
				data, _ := os.ReadFile(c.file)
				u, _ := ParseEnv(c.file, data, user)
				s, _ := ParseEnv(c.file, data, svc)
				if u.Paths.State != s.Paths.State || u.Paths.Socket != s.Paths.Socket {
					t.Fatalf("state %q / %q, socket %q / %q; want the same for both", u.Paths.State, s.Paths.State, u.Paths.Socket, s.Paths.Socket)
				}
				return
			}
			if !errors.Is(err, errServiceDisagrees) || !strings.Contains(err.Error(), c.wantKey) {
				t.Fatalf("CheckServiceAgrees = %v; want ErrServiceDisagrees naming %s", err, c.wantKey)
			}
		})
	}
}

func TestMachineServiceState(t *testing.T) {
	root := t.TempDir()
	_, svc := accounts(root)
	c, err := ParseEnv(filepath.Join(root, "x.toml"), nil, svc)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(root, "var", "lib", "forgesync"); c.Paths.State != want {
		t.Fatalf("machine service state = %q; want %q", c.Paths.State, want)
	}
	win := Env{GOOS: "windows", Machine: true, Getenv: func(k string) string {
		return map[string]string{"ProgramData": `C:\ProgramData`, "LOCALAPPDATA": `C:\Windows\System32\config\systemprofile\AppData\Local`}[k]
	}}
	if got := win.MachineStateDir(); got != `C:\ProgramData\forgesync` {
		t.Fatalf("Windows machine state = %q; want C:\\ProgramData\\forgesync", got)
	}
	if got := win.MachineFile(); got != `C:\ProgramData\forgesync\forgesync.toml` {
		t.Fatalf("Windows machine file = %q", got)
	}
}

func TestWindowsPathHint(t *testing.T) {
	_, err := parse("/x/forgesync.toml", []byte("[paths]\nmods = \"C:\\Games\\Mods\"\n"))
	if !errors.Is(err, errInvalid) || !strings.Contains(err.Error(), "single quotes") || !strings.Contains(err.Error(), "forward slashes") || !strings.Contains(err.Error(), ":2:") {
		t.Fatalf("parse(double-quoted backslashes) = %v; want the hint of SPEC §1 on line 2", err)
	}
}

func TestBOMAndCRLF(t *testing.T) {
	text := "\ufeff[paths]\r\nmods = 'C:/Games/Mods'\r\npaks = \"/games/Paks\"\r\n[log]\r\nlevel = \"debug\"\r\n"
	c, err := parse(filepath.Join(t.TempDir(), "forgesync.toml"), []byte(text))
	if err != nil {
		t.Fatalf("parse(BOM, CRLF) = %v", err)
	}
	if c.Paths.Paks != "/games/Paks" || c.Log.Level.String() != "DEBUG" {
		t.Fatalf("parse(BOM, CRLF) = %+v", c)
	}
}

func TestAPIListenLoopbackOnly(t *testing.T) {
	for addr, ok := range map[string]bool{
		"127.0.0.1:8384": true, "[::1]:8384": true, "localhost:8384": true,
		"0.0.0.0:8384": false, ":8384": false, "192.168.1.2:8384": false, "example.org:80": false, "127.0.0.1": false,
	} {
		_, err := parse("/x/f.toml", []byte("[api]\nlisten = \""+addr+"\"\n"))
		if (err == nil) != ok {
			t.Errorf("parse(api.listen = %q) = %v; want ok %v", addr, err, ok)
		}
	}
}

func TestLogFileDefault(t *testing.T) {
	c, err := parse("/x/f.toml", []byte("[paths]\nstate = '/srv/fs'\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Log.File != filepath.Join("/srv/fs", "logs", "forgesync.log") {
		t.Fatalf("log.file = %q; want <state>/logs/forgesync.log", c.Log.File)
	}
	c, _ = parse("/x/f.toml", []byte("[log]\nfile = 'l/f.log'\n"))
	if c.Log.File != "/x/l/f.log" {
		t.Fatalf("log.file = %q; want it resolved against the config folder", c.Log.File)
	}
}

func TestServiceInstallChecks(t *testing.T) {
	root := t.TempDir()
	user, svc := accounts(root)
	if err := checkServiceInstall("windows", `C:\cfg.toml`, true, user, svc); !errors.Is(err, errUserServiceWindows) || !strings.Contains(err.Error(), "administrator") {
		t.Fatalf("--user on Windows = %v; want a refusal saying why", err)
	}
	if err := checkServiceInstall("linux", "", false, user, svc); err == nil || !strings.Contains(err.Error(), "--config") {
		t.Fatalf("no config = %v; want a refusal", err)
	}
	f := write(t, filepath.Join(root, "cfg", "u.toml"), "[paths]\nmods = '/g/Mods'\npaks = '/g/Paks'\n")
	if err := checkServiceInstall("linux", f, true, user, svc); err != nil {
		t.Fatalf("--user on Linux = %v; want it accepted", err)
	}
	if err := checkServiceInstall("linux", f, false, user, svc); !errors.Is(err, errServiceDisagrees) {
		t.Fatalf("machine service with a user file and default state = %v; want ErrServiceDisagrees", err)
	}
}
