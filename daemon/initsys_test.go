package daemon

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestServiceManagerDetected(t *testing.T) {
	root := t.TempDir()
	_, err := DetectServiceManager("linux", root, "/etc/forgesync/forgesync.toml")
	if !errors.Is(err, errNoServiceManager) || strings.Contains(err.Error(), errNoServiceManager.Error()) {
		t.Errorf("linux without /run/systemd/system: %v; want one sentence matching ErrNoServiceManager", err)
	}
	// A file where the folder should be is no systemd either.
	if err := os.MkdirAll(filepath.Join(root, "run", "systemd"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "run", "systemd", "system"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := DetectServiceManager("linux", root, "/etc/forgesync/forgesync.toml"); !errors.Is(err, errNoServiceManager) {
		t.Errorf("a file at run/systemd/system: %v", err)
	}
	root = t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "run", "systemd", "system"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got, err := DetectServiceManager("linux", root, "/etc/forgesync/forgesync.toml"); got != "systemd" || err != nil {
		t.Errorf("linux with systemd: %q, %v", got, err)
	}
}

func TestServiceManagerFiles(t *testing.T) {
	tests := []struct {
		m    serviceManager
		want string
	}{
		{serviceManager{Name: "systemd"}, "/etc/systemd/system/forgesync.service"},
		{serviceManager{Name: "systemd", User: true, Home: "/home/p"}, filepath.Join("/home/p", ".config", "systemd", "user", "forgesync.service")},
		{serviceManager{Name: "launchd"}, "/Library/LaunchDaemons/forgesync.plist"},
		{serviceManager{Name: "launchd", User: true, Home: "/Users/p"}, "/Users/p/Library/LaunchAgents/forgesync.plist"},
		{serviceManager{Name: "windows"}, `HKLM\SYSTEM\CurrentControlSet\Services\forgesync (the Windows service manager's entry)`},
	}
	for _, tc := range tests {
		if got := tc.m.Files("forgesync"); len(got) != 1 || got[0] != tc.want {
			t.Errorf("%+v: %q; want %q", tc.m, got, tc.want)
		}
	}
}
