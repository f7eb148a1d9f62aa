package native

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/mjolnir-forge/forgesync/internal/semver"
)

// What make dist writes and the tests read back: the version file's line.

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
		return ModuleInfo{}, fmt.Errorf("%s: want one line ending in a newline", versionFile)
	}
	f := strings.Split(line, " ")
	if len(f) != 4 || f[0] != "forge_doors" || f[2] != "api" {
		return ModuleInfo{}, fmt.Errorf("%s: want %q, got %q", versionFile, "forge_doors VERSION api N", line)
	}
	if _, err := semver.Parse(f[1]); err != nil {
		return ModuleInfo{}, fmt.Errorf("%s: %w", versionFile, err)
	}
	api, err := strconv.Atoi(f[3])
	if err != nil || api < 1 || f[3] != strconv.Itoa(api) {
		return ModuleInfo{}, fmt.Errorf("%s: api version %q is not a positive integer", versionFile, f[3])
	}
	return ModuleInfo{Version: f[1], APIVersion: api}, nil
}
