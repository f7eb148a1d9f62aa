package daemon

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// errNoServiceManager is returned by [DetectServiceManager] on a machine
// without systemd, launchd or the Windows service manager: forgesync then
// installs no service rather than fall back to SysV or upstart scripts.
var errNoServiceManager = errors.New("no service manager forgesync supports")

// serviceManager is the init system a service is installed with.
type serviceManager struct {
	// Name is systemd, launchd or windows.
	Name string
	// User is set for a service of the current user.
	User bool
	// Home is the user's home folder, for a user service's file.
	Home string
}

// DetectServiceManager finds the service manager of an OS goos whose file
// system starts at root ("/" on a real machine; a test gives a temp
// folder): systemd when root/run/systemd/system is a folder (as
// sd_booted(3) checks), launchd on darwin, the service manager on windows.
// Anywhere else it fails with [errNoServiceManager] and one sentence
// saying what to do instead, with configFile, the config the service
// would have run with.
func DetectServiceManager(goos, root, configFile string) (string, error) {
	switch goos {
	case "windows":
		return "windows", nil
	case "darwin":
		return "launchd", nil
	case "linux":
		dir := filepath.Join(root, "run", "systemd", "system")
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			return "systemd", nil
		}
		return "", noManagerError(fmt.Sprintf("this machine does not run systemd (there is no %s), so forgesync installs no service: %s", dir, withoutService(configFile)))
	}
	return "", noManagerError(fmt.Sprintf("forgesync installs services with systemd, launchd or the Windows service manager, and %s has none of them: %s", goos, withoutService(configFile)))
}

// withoutService says what a machine without a service manager forgesync
// supports does instead, for the config at configFile: the daemon under
// its own supervisor, an XDG autostart entry that starts it at login, or
// a Steam launch option that syncs before the game starts.
func withoutService(configFile string) string {
	exe, err := os.Executable()
	if err != nil {
		exe = "forgesync"
	}
	daemonLine := shellWord(exe) + " daemon --config " + shellWord(configFile)
	return fmt.Sprintf("run `%s` under your own supervisor instead, or start it at login with an XDG autostart entry "+
		"(~/.config/autostart/forgesync.desktop saying Exec=%s), or sync before the game starts with its Steam launch option "+
		"`%s sync; %%command%%` (the README's \"Running without systemd\" has all of them)", daemonLine, daemonLine, shellWord(exe))
}

// shellWord quotes s for a POSIX shell when it holds anything but letters,
// digits and -_./:=+,@%.
func shellWord(s string) string {
	plain := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=+,@%", r)) {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// noManagerError is the one sentence of [errNoServiceManager].
type noManagerError string

func (e noManagerError) Error() string        { return string(e) }
func (e noManagerError) Is(target error) bool { return target == errNoServiceManager }

// Files lists what installing the service named name writes: the unit or
// property list file, or the Windows service manager's registry key.
func (m serviceManager) Files(name string) []string {
	switch m.Name {
	case "systemd":
		if m.User {
			return []string{filepath.Join(m.Home, ".config", "systemd", "user", name+".service")}
		}
		return []string{"/etc/systemd/system/" + name + ".service"}
	case "launchd":
		if m.User {
			return []string{m.Home + "/Library/LaunchAgents/" + name + ".plist"}
		}
		return []string{"/Library/LaunchDaemons/" + name + ".plist"}
	case "windows":
		return []string{`HKLM\SYSTEM\CurrentControlSet\Services\` + name + " (the Windows service manager's entry)"}
	}
	return nil
}
