// Package native owns the portable C door runtime of the MJOLNIRLobby mod
// (lobby/forge_doors_runtime.h), its C tests, benchmark and fuzz harness,
// the module DLL built from it (forge_doors.dll), and the Go knowledge of
// that module: its file names, its versions, and the SPEC §7 version gate
// that says whether door automation and pack lifts can work with the
// installed MJOLNIR mods. It does not deploy anything; package deploy does.
package native

import "path"

// The module's files. The release bundle holds them under
// modules/<ModuleDir>/, and package deploy deploys them to <mods>/<ModuleDir>/.
const (
	// moduleDir is the folder of the module, relative to the mods folder
	// and to the bundle's modules/ folder.
	moduleDir = "MJOLNIRLobby/dlls"
	// moduleFile is the Windows module DLL.
	moduleFile = "forge_doors.dll"
	// versionFile names the module's version file beside the DLL.
	versionFile = "forge_doors.version"
)

// APIVersion is the module's C ABI version, FD_API_VERSION in
// forge_doors_runtime.h and forge_doors_api_version() in the DLL. A test
// keeps them equal.
const APIVersion = 1

// ModuleVersion is the runtime's SemVer, FD_MODULE_VERSION in the header.
const ModuleVersion = "1.0.0"

// ModulePath returns the slash-separated path of the DLL relative to the
// mods folder or the bundle's modules/ folder.
func ModulePath() string { return path.Join(moduleDir, moduleFile) }

// VersionPath returns the slash-separated path of the version file
// relative to the mods folder or the bundle's modules/ folder.
func VersionPath() string { return path.Join(moduleDir, versionFile) }
