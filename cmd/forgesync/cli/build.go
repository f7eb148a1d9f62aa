package cli

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"runtime/debug"
)

// DevVersion is the version of a binary nobody stamped one into.
const DevVersion = "0.1.0-dev"

// Build is what `version` prints and `status` reports: the program's
// version, the commit it was built from and when (RFC 3339, UTC: the
// commit's time, so that two builds of one commit are the same bytes). The
// linker sets them (`make dist`, `make release`); a binary built with plain
// `go build` in a git checkout takes them from the build information Go
// stamps into it instead.
type Build struct {
	Version   string `json:"version"`
	Commit    string `json:"commit"`
	BuildDate string `json:"build_date"`
}

// CurrentBuild is this binary's build: the version, commit and date the
// linker set, filled from the build information Go stamps into the binary
// where the linker set none (see [buildOf]).
func CurrentBuild(version, commit, buildDate string) Build {
	info, _ := debug.ReadBuildInfo()
	return buildOf(version, commit, buildDate, info)
}

// buildOf fills what the linker did not set from Go's build information
// (nil: none): the module version of a `go install module@version`, and
// vcs.revision (with "-dirty" for uncommitted changes) and vcs.time of a
// build in a git checkout.
func buildOf(v, c, d string, info *debug.BuildInfo) Build {
	b := Build{Version: v, Commit: c, BuildDate: d}
	if info == nil {
		return b
	}
	if b.Version == DevVersion && info.Main.Version != "" && info.Main.Version != "(devel)" {
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
func (b Build) String() string {
	return fmt.Sprintf("forgesync %s (commit %s, built %s)", b.Version, cmp.Or(b.Commit, "unknown"), cmp.Or(b.BuildDate, "unknown"))
}

// VersionCommand is the command that prints the build build returns, as
// a line of words or, with --json, its fields.
func VersionCommand(build func() Build) *Command {
	return &Command{
		Name: "version", Summary: "print the version, commit and build date", NoConfig: true, Nargs: NoArgs,
		Run: func(ctx context.Context, e *Env, args []string) int {
			return Show(e, build(), func(w io.Writer, b Build) error {
				_, err := fmt.Fprintln(w, b)
				return err
			})
		},
	}
}
