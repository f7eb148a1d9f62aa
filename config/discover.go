package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/mjolnir-forge/forgesync/internal/samepath"
)

// fileName is the configuration file's name in the user's and the
// machine's configuration folders.
const fileName = "forgesync.toml"

// EnvVar names the environment variable that points at a configuration
// file, second in the discovery order after --config.
const EnvVar = "FORGESYNC_CONFIG"

// Env is what resolving a configuration depends on besides the file: the
// account's environment and whether the process is a machine service. The
// service and the player's CLI resolve the same file with different Envs;
// [checkServiceAgrees] proves the results are the same.
type Env struct {
	// GOOS is the operating system whose rules apply; runtime.GOOS when
	// empty.
	GOOS string
	// Getenv reads the account's environment; os.Getenv when nil.
	Getenv func(string) string
	// Home is the account's home folder; os.UserHomeDir when empty.
	Home string
	// Root prefixes the machine's fixed folders (/etc, /var/lib) outside
	// Windows; "" is the real root. Tests point it at a temp folder.
	Root string
	// Machine is set for a machine service (Windows: LocalSystem; Linux:
	// a system unit): its state defaults to [MachineStateDir].
	Machine bool
}

// Process returns the Env of the running process, a machine service when
// machine is set.
func Process(machine bool) Env { return Env{Machine: machine} }

func (e Env) goos() string {
	if e.GOOS != "" {
		return e.GOOS
	}
	return runtime.GOOS
}

func (e Env) getenv(k string) string {
	if e.Getenv != nil {
		return e.Getenv(k)
	}
	return os.Getenv(k)
}

// Var returns the account's environment variable k, as e reads it.
func (e Env) Var(k string) string { return e.getenv(k) }

// HomeDir returns the account's home folder, as e knows it ("" when
// none).
func (e Env) HomeDir() string { return e.home() }

// OS returns the operating system whose rules e applies.
func (e Env) OS() string { return e.goos() }

func (e Env) home() string {
	if e.Home != "" || e.Getenv != nil {
		return e.Home
	}
	h, _ := os.UserHomeDir()
	return h
}

// join joins with the separator of e's operating system, so that tests of
// the Windows rules run anywhere.
func (e Env) join(elem ...string) string {
	if e.goos() == "windows" && runtime.GOOS != "windows" {
		return strings.Join(elem, `\`)
	}
	return filepath.Join(elem...)
}

// UserFile returns the user's configuration file:
// %APPDATA%\forgesync\forgesync.toml on Windows,
// $XDG_CONFIG_HOME/forgesync/forgesync.toml (~/.config by default)
// elsewhere; "" when the environment names no such folder.
func (e Env) UserFile() string {
	if e.goos() == "windows" {
		if d := e.getenv("APPDATA"); d != "" {
			return e.join(d, "forgesync", fileName)
		}
		return ""
	}
	if d := e.getenv("XDG_CONFIG_HOME"); d != "" && filepath.IsAbs(d) {
		return e.join(d, "forgesync", fileName)
	}
	if h := e.home(); h != "" {
		return e.join(h, ".config", "forgesync", fileName)
	}
	return ""
}

// MachineFile returns the machine's configuration file:
// %ProgramData%\forgesync\forgesync.toml on Windows,
// /etc/forgesync/forgesync.toml elsewhere.
func (e Env) MachineFile() string {
	if e.goos() == "windows" {
		d := e.getenv("ProgramData")
		if d == "" {
			d = `C:\ProgramData`
		}
		return e.join(d, "forgesync", fileName)
	}
	return filepath.Join(e.Root+"/etc", "forgesync", fileName)
}

// MachineStateDir returns a machine service's state folder:
// %ProgramData%\forgesync on Windows, /var/lib/forgesync elsewhere.
func (e Env) MachineStateDir() string {
	if e.goos() == "windows" {
		d := e.getenv("ProgramData")
		if d == "" {
			d = `C:\ProgramData`
		}
		return e.join(d, "forgesync")
	}
	return filepath.Join(e.Root+"/var/lib", "forgesync")
}

// UserStateDir returns the account's own state folder:
// %LOCALAPPDATA%\forgesync on Windows, $XDG_STATE_HOME/forgesync
// (~/.local/state by default) elsewhere.
func (e Env) UserStateDir() string {
	if e.goos() == "windows" {
		if d := e.getenv("LOCALAPPDATA"); d != "" {
			return e.join(d, "forgesync")
		}
		if h := e.home(); h != "" {
			return e.join(h, "AppData", "Local", "forgesync")
		}
		return ""
	}
	if d := e.getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return e.join(d, "forgesync")
	}
	if h := e.home(); h != "" {
		return e.join(h, ".local", "state", "forgesync")
	}
	return ""
}

// defaultState is the state folder when the config names none: a machine
// service's, or the CLI's reading the machine's own configuration file
// (so that it finds the machine service), else the account's.
func (e Env) defaultState(file string) string {
	if e.Machine || (file != "" && samepath.Same(file, e.MachineFile())) {
		return e.MachineStateDir()
	}
	return e.UserStateDir()
}

// Discover returns the configuration file to use, in SPEC §1's order: the
// --config flag, then $FORGESYNC_CONFIG, then the user's file, then the
// machine's file (each of the last two only when it exists). It returns ""
// when there is none; how says where the file came from.
func (e Env) Discover(flagPath string) (path, how string, err error) {
	if flagPath != "" {
		return flagPath, "--config", nil
	}
	if p := e.getenv(EnvVar); p != "" {
		return p, "$" + EnvVar, nil
	}
	for _, c := range []struct{ path, how string }{{e.UserFile(), "the user's file"}, {e.MachineFile(), "the machine's file"}} {
		if c.path == "" {
			continue
		}
		fi, err := os.Stat(c.path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", "", fmt.Errorf("config %s: %w", c.path, err)
		}
		if fi.Mode().IsRegular() {
			return c.path, c.how, nil
		}
	}
	return "", "", nil
}

// errServiceDisagrees is returned, wrapped with the key and both values,
// when a configuration resolves to different places for the service
// account and the installing user.
var errServiceDisagrees = errors.New("the service and your CLI would not agree")

// checkServiceAgrees resolves the configuration file at path for the
// service account and for the installing user and reports the first place
// (state, socket, mods, paks, drop, modules, log file) where they differ, with what
// to write in the file to make them agree.
func checkServiceAgrees(path string, user, svc Env) error {
	data, err := readConfig(path)
	if err != nil {
		return err
	}
	u, err := ParseEnv(path, data, user)
	if err != nil {
		return err
	}
	s, err := ParseEnv(path, data, svc)
	if err != nil {
		return err
	}
	for _, p := range []struct{ key, user, svc string }{
		{"paths.state", u.Paths.State, s.Paths.State},
		{"paths.socket", u.Paths.Socket, s.Paths.Socket},
		{"paths.mods", u.Paths.Mods, s.Paths.Mods},
		{"paths.paks", u.Paths.Paks, s.Paths.Paks},
		{"paths.drop", u.Paths.Drop, s.Paths.Drop},
		{"deploy.modules", u.Deploy.Modules, s.Deploy.Modules},
		{"log.file", u.Log.File, s.Log.File},
	} {
		if !samepath.Same(p.user, p.svc) {
			hint := fmt.Sprintf("set %s to an absolute path in %s", p.key, path)
			if p.key == "paths.state" {
				hint = fmt.Sprintf("set [paths] state = '%s' in %s, or install with the machine's file %s", s.Paths.State, path, svc.MachineFile())
			}
			return fmt.Errorf("%s: %s is %s for the service but %s for you (%s): %w",
				path, p.key, p.svc, p.user, hint, errServiceDisagrees)
		}
	}
	return nil
}

// machineService returns the Env of this machine's service account
// (Windows: LocalSystem, whose profile is under system32; elsewhere: a
// system unit running as root with systemd's bare environment), for
// [checkServiceAgrees].
func machineService() Env {
	if runtime.GOOS == "windows" {
		root := os.Getenv("SystemRoot")
		if root == "" {
			root = `C:\Windows`
		}
		profile := filepath.Join(root, "System32", "config", "systemprofile")
		vars := map[string]string{
			"ProgramData":  os.Getenv("ProgramData"),
			"SystemRoot":   root,
			"APPDATA":      filepath.Join(profile, "AppData", "Roaming"),
			"LOCALAPPDATA": filepath.Join(profile, "AppData", "Local"),
			"USERPROFILE":  profile,
		}
		return Env{Machine: true, Home: profile, Getenv: func(k string) string { return vars[k] }}
	}
	home := "/root"
	if runtime.GOOS == "darwin" {
		home = "/var/root"
	}
	return Env{Machine: true, Home: home, Getenv: func(string) string { return "" }}
}

// errUserServiceWindows is returned by [CheckServiceInstall] for --user on
// Windows.
var errUserServiceWindows = errors.New("--user is not available on Windows: Windows has no per-user services that start with the user's session without storing the password; run `forgesync service install` from an administrator prompt instead: the machine service runs as LocalSystem, keeps its state in %ProgramData%\\forgesync, and your CLI finds it through the same config file")

// CheckServiceInstall reports what stops `service install` with the
// configuration file at path: --user on Windows, no file, a relative file,
// or (for a machine service) a file that resolves otherwise for the
// service account than for the installing user.
func CheckServiceInstall(path string, userService bool) error {
	return checkServiceInstall(runtime.GOOS, path, userService, Process(false), machineService())
}

func checkServiceInstall(goos, path string, userService bool, user, svc Env) error {
	if userService && goos == "windows" {
		return errUserServiceWindows
	}
	if path == "" {
		return fmt.Errorf("no configuration file: pass --config FILE, or create %s (yours) or %s (the machine's); the service reads it at every start", user.UserFile(), user.MachineFile())
	}
	if !filepath.IsAbs(path) {
		return fmt.Errorf("config %s: a service starts in another working directory, so its config path must be absolute", path)
	}
	if userService {
		return nil // the same account: it resolves alike
	}
	return checkServiceAgrees(path, user, svc)
}
