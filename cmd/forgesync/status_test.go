package main

import (
	"encoding/json"
	"testing"

	"github.com/mjolnir-forge/forgesync/cmd/forgesync/cli"
)

// TestStatusJSONSaysWhere: status --json of a running daemon names the
// socket it answered on and the daemon's log file (empty: a daemon in a
// terminal logs there), beside the status the socket serves.
func TestStatusJSONSaysWhere(t *testing.T) {
	g := newGame(t)
	g.start(t)
	code, out, errs := runCLI(t, "status", "--json", "--config", g.config)
	if code != cli.ExitOK {
		t.Fatalf("status --json = %d\n%s%s", code, out, errs)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("status --json: %v\n%s", err, out)
	}
	if got["socket"] != g.sock {
		t.Errorf("status --json socket = %v; want %q\n%s", got["socket"], g.sock, out)
	}
	if lf, ok := got["log_file"]; !ok || lf != "" {
		t.Errorf("status --json log_file = %v (present %v); want \"\" for a daemon logging to its terminal\n%s", lf, ok, out)
	}
	if got["state"] != "idle" || got["pid"] == nil {
		t.Errorf("status --json lost the status itself:\n%s", out)
	}
}
