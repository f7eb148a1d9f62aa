package main

import (
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/cmd/forgesync/cli"
	"github.com/mjolnir-forge/forgesync/cmd/forgesync/view"
)

// TestSummaryExitStatus: an archive waiting for the machine (a held file,
// a full disk) makes sync and install exit 2, printing why; a rejection
// alone exits 1, as before.
func TestSummaryExitStatus(t *testing.T) {
	waiting := api.Outcome{Archive: "a2.zip", Result: api.ResultWaiting, Reasons: []api.Reason{{Rule: "held",
		Message: "paks/x.pak is held by another program (the game?); close it — the archive waits in drop and is retried at the next pass"}}}
	rejected := api.Outcome{Archive: "bad.zip", Result: api.ResultRejected, Reasons: []api.Reason{{Rule: "x", Message: "bad"}}}
	for _, tt := range []struct {
		name     string
		outcomes []api.Outcome
		want     int
	}{
		{"nothing", []api.Outcome{}, cli.ExitOK},
		{"rejected", []api.Outcome{rejected}, cli.ExitInvalid},
		{"waiting", []api.Outcome{waiting}, cli.ExitFailure},
		{"both", []api.Outcome{rejected, waiting}, cli.ExitFailure},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			e := &cli.Env{Name: "sync", Stdout: &out, Stderr: &out}
			sum := &api.Summary{Outcomes: tt.outcomes, Published: []string{}, Warnings: []string{}}
			if got := printSummary(e, sum, view.WriteSummary); got != tt.want {
				t.Fatalf("printSummary(%s) = %d; want %d\n%s", tt.name, got, tt.want, out.String())
			}
			if tt.name == "waiting" && !strings.Contains(out.String(), "a2.zip: waiting\n  - paks/x.pak is held by another program") {
				t.Fatalf("printed %q; want the archive waiting and why", out.String())
			}
		})
	}
}
