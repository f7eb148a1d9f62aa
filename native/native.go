// Package native owns the portable C door runtime of the MJOLNIRLobby mod
// (lobby/forge_doors_runtime.h), its C tests, benchmark and fuzz harness,
// the module DLL built from it (forge_doors.dll), and the Go knowledge of
// that module: its file names, its versions, and the SPEC §7 version gate
// that says whether door automation and pack lifts can work with the
// installed MJOLNIR mods. It does not deploy anything; package deploy does.
package native

import (
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/mjolnir-forge/forgesync/internal/semver"
)

// The module's files. The release bundle holds them under
// modules/<ModuleDir>/, and package deploy deploys them to <mods>/<ModuleDir>/.
const (
	// ModuleDir is the folder of the module, relative to the mods folder
	// and to the bundle's modules/ folder.
	ModuleDir = "MJOLNIRLobby/dlls"
	// ModuleFile is the Windows module DLL.
	ModuleFile = "forge_doors.dll"
	// VersionFile names the module's version file beside the DLL.
	VersionFile = "forge_doors.version"
)

// APIVersion is the module's C ABI version, FD_API_VERSION in
// forge_doors_runtime.h and forge_doors_api_version() in the DLL. A test
// keeps them equal.
const APIVersion = 1

// ModuleVersion is the runtime's SemVer, FD_MODULE_VERSION in the header.
const ModuleVersion = "1.0.0"

// ModulePath returns the slash-separated path of the DLL relative to the
// mods folder or the bundle's modules/ folder.
func ModulePath() string { return path.Join(ModuleDir, ModuleFile) }

// VersionPath returns the slash-separated path of the version file
// relative to the mods folder or the bundle's modules/ folder.
func VersionPath() string { return path.Join(ModuleDir, VersionFile) }

// VersionFileContents returns the bytes of forge_doors.version for this
// build: "forge_doors <module version> api <api version>\n". make dist
// writes the same line.
func VersionFileContents() []byte {
	return fmt.Appendf(nil, "forge_doors %s api %d\n", ModuleVersion, APIVersion)
}

// ModuleInfo is what a forge_doors.version file says.
type ModuleInfo struct {
	Version    string `json:"version"`
	APIVersion int    `json:"api_version"`
}

// ParseVersionFile reads the contents of a forge_doors.version file.
func ParseVersionFile(b []byte) (ModuleInfo, error) {
	line, ok := strings.CutSuffix(string(b), "\n")
	if !ok || strings.ContainsAny(line, "\r\n") {
		return ModuleInfo{}, fmt.Errorf("%s: want one line ending in a newline", VersionFile)
	}
	f := strings.Split(line, " ")
	if len(f) != 4 || f[0] != "forge_doors" || f[2] != "api" {
		return ModuleInfo{}, fmt.Errorf("%s: want %q, got %q", VersionFile, "forge_doors VERSION api N", line)
	}
	if _, err := semver.Parse(f[1]); err != nil {
		return ModuleInfo{}, fmt.Errorf("%s: %w", VersionFile, err)
	}
	api, err := strconv.Atoi(f[3])
	if err != nil || api < 1 || f[3] != strconv.Itoa(api) {
		return ModuleInfo{}, fmt.Errorf("%s: api version %q is not a positive integer", VersionFile, f[3])
	}
	return ModuleInfo{Version: f[1], APIVersion: api}, nil
}
