//go:build !windows

package setup

// registrySteamPath returns where the registry says Steam is installed:
// only Windows has one.
func registrySteamPath() string { return "" }
