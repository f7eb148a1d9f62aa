//go:build !windows

package cli

// windowsOnly names the global flags that mean something on Windows only:
// they are still accepted (a service installed by an older forgesync
// passes --owner) but left out of the help.
var windowsOnly = map[string]bool{"owner": true}
