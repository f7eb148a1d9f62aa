package main

import (
	"cmp"
	"fmt"
	"runtime/debug"
)

// devVersion is the version of a binary nobody stamped one into.
const devVersion = "0.1.0-dev"

// commit and buildDate are the commit the binary was built from and when
// (RFC 3339, UTC: the commit's time, so that two builds of one commit are
// the same bytes), set at link time by `make dist` and `make release`. A
// binary built with plain `go build` in a git checkout takes them from the
// build information Go stamps into it instead.
var commit, buildDate string

// build is what `version` prints and `status` reports.
type build struct {
	Version   string `json:"version"`
	Commit    string `json:"commit"`
	BuildDate string `json:"build_date"`
}

// currentBuild is this binary's build.
func currentBuild() build {
	info, _ := debug.ReadBuildInfo()
	return buildOf(version, commit, buildDate, info)
}

// buildOf fills what the linker did not set from Go's build information
// (nil: none): the module version of a `go install module@version`, and
// vcs.revision (with "-dirty" for uncommitted changes) and vcs.time of a
// build in a git checkout.
func buildOf(v, c, d string, info *debug.BuildInfo) build {
	b := build{Version: v, Commit: c, BuildDate: d}
	if info == nil {
		return b
	}
	if b.Version == devVersion && info.Main.Version != "" && info.Main.Version != "(devel)" {
		b.Version = info.Main.Version
	}
	var rev, at string
	dirty := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if b.Commit == "" && rev != "" {
		b.Commit = rev
		if dirty {
			b.Commit += "-dirty"
		}
	}
	b.BuildDate = cmp.Or(b.BuildDate, at)
	return b
}

// String is the line `forgesync version` prints.
func (b build) String() string {
	return fmt.Sprintf("forgesync %s (commit %s, built %s)", b.Version, cmp.Or(b.Commit, "unknown"), cmp.Or(b.BuildDate, "unknown"))
}
