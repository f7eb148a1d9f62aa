package setup

import (
	"path/filepath"

	"golang.org/x/sys/windows/registry"
)

// registrySteamPath returns where the registry says Steam is installed
// (HKCU\Software\Valve\Steam, SteamPath, written with forward slashes);
// "" when it names none.
func registrySteamPath() string {
	k, err := registry.OpenKey(registry.CURRENT_USER, `Software\Valve\Steam`, registry.QUERY_VALUE)
	if err != nil {
		return ""
	}
	defer k.Close()
	p, _, err := k.GetStringValue("SteamPath")
	if err != nil || p == "" {
		return ""
	}
	return filepath.Clean(filepath.FromSlash(p))
}
