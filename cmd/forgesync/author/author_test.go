package author

import (
	"testing"

	"github.com/mjolnir-forge/forgesync/cmd/forgesync/cli"
)

// TestWorkflowRelease: the workflow init writes pins the release that ran
// it; a development or describe build, which no release has, takes the
// latest.
func TestWorkflowRelease(t *testing.T) {
	for v, want := range map[string]string{"1.4.0": "1.4.0", cli.DevVersion: "latest", "1.4.0-3-gabc1234-dirty": "latest", "1.5.0-rc.1": "latest", "abc1234": "latest"} {
		if got := workflowRelease(v); got != want {
			t.Errorf("workflowRelease(%q) = %q; want %q", v, got, want)
		}
	}
}
