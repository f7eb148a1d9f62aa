//go:build !windows

package setup

// hkcu is nil: only Windows has a registry.
var hkcu registryKeys
