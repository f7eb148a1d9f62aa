package daemon

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// ErrNoServiceManager is returned by [DetectServiceManager] on a machine
// without systemd, launchd or the Windows service manager: forgesync then
// installs no service rather than fall back to SysV or upstart scripts.
var ErrNoServiceManager = errors.New("no service manager forgesync supports")

// ServiceManager is the init system a service is installed with.
type ServiceManager struct {
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
// Anywhere else it fails with [ErrNoServiceManager] and one sentence
// saying what to do instead.
func DetectServiceManager(goos, root string) (string, error) {
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
		return "", noManagerError(fmt.Sprintf("this machine does not run systemd (there is no %s), so forgesync installs no service: run `forgesync daemon --config FILE` under your own supervisor instead (the README's \"Running without systemd\" has a unit and a compose example)", dir))
	}
	return "", noManagerError(fmt.Sprintf("forgesync installs services with systemd, launchd or the Windows service manager, and %s has none of them: run `forgesync daemon --config FILE` under your own supervisor instead", goos))
}

// noManagerError is the one sentence of [ErrNoServiceManager].
type noManagerError string

func (e noManagerError) Error() string        { return string(e) }
func (e noManagerError) Is(target error) bool { return target == ErrNoServiceManager }

// Files lists what installing the service named name writes: the unit or
// property list file, or the Windows service manager's registry key.
func (m ServiceManager) Files(name string) []string {
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
