package cli

import (
	"errors"
	"fmt"
	"testing"

	"github.com/mjolnir-forge/forgesync/daemon"
	"github.com/mjolnir-forge/forgesync/internal/errkind"
)

// TestKindsExitAlikeThroughTheDaemon walks every kind through both
// tables: a failure decided locally and the same failure read back from the
// daemon's answer exit alike and say the same words.
func TestKindsExitAlikeThroughTheDaemon(t *testing.T) {
	for _, k := range errkind.Kinds {
		local := fmt.Errorf("enable x: %w", errkind.Wrap(k, errors.New("no")))
		a := daemon.Answer(k)
		remote := error(&daemon.APIError{Status: a.Status, Code: a.Code, Message: local.Error()})
		if got, want := exitStatus(remote), exitStatus(local); got != want {
			t.Errorf("kind %v: exit %d through the daemon (%d %s, read back as %v); want %d as locally",
				k, got, a.Status, a.Code, errkind.Of(remote), want)
		}
		if remote.Error() != local.Error() {
			t.Errorf("kind %v: the daemon's answer says %q; want %q", k, remote, local)
		}
	}
}
