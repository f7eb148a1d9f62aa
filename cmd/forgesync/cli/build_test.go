package cli

import (
	"runtime/debug"
	"testing"
)

// TestVersionFromBuildInfo: a binary built with plain `go build` in a git
// checkout (no ldflags) takes its commit and date from Go's build
// information, a `go install module@v` one its version; the linker's values
// win; nothing known says "unknown".
func TestVersionFromBuildInfo(t *testing.T) {
	info := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
		{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "abc123"},
		{Key: "vcs.time", Value: "2026-11-30T08:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	if got, want := buildOf(DevVersion, "", "", info).String(), "forgesync 0.1.0-dev (commit abc123-dirty, built 2026-11-30T08:00:00Z)"; got != want {
		t.Errorf("build of a dirty checkout = %q; want %q", got, want)
	}
	if got, want := buildOf("2.0.0", "fed", "2026-12-02T00:00:00Z", info), (Build{"2.0.0", "fed", "2026-12-02T00:00:00Z"}); got != want {
		t.Errorf("build with ldflags = %+v; want %+v", got, want)
	}
	installed := &debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}}
	if got, want := buildOf(DevVersion, "", "", installed).String(), "forgesync v1.4.0 (commit unknown, built unknown)"; got != want {
		t.Errorf("build of go install = %q; want %q", got, want)
	}
	if got, want := buildOf(DevVersion, "", "", nil).String(), "forgesync 0.1.0-dev (commit unknown, built unknown)"; got != want {
		t.Errorf("build without information = %q; want %q", got, want)
	}
}
