package pipeline

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/mjolnir-forge/forgesync/api"
)

// TestRetry: a rejected archive goes back into drop with its note and
// record gone, and installs once what refused it is gone; an unknown name
// moves nothing.
func TestRetry(t *testing.T) {
	e := newEnv(t)
	p := e.open(t)
	e.dropPack(t, "a.zip", spec{id: "pack-a", version: "1.1.0"})
	if _, err := p.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	e.dropPack(t, "old.zip", spec{id: "pack-a", version: "1.0.0"}) // a downgrade
	e.dropPack(t, "bad.zip", spec{id: "pack-b", version: "1.0.0", doors: 1, bad: true})
	if _, err := p.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	rejected := filepath.Join(e.drop, RejectedDir)
	if _, err := p.Retry([]string{"old.zip", "nope.zip"}, false); !errors.Is(err, ErrNotRejected) {
		t.Fatalf("Retry(old.zip, nope.zip) = %v; want ErrNotRejected", err)
	}
	if _, err := os.Stat(filepath.Join(rejected, "old.zip")); err != nil {
		t.Fatalf("a refused retry moved old.zip: %v", err)
	}
	if _, err := p.Remove(t.Context(), "pack-a"); err != nil {
		t.Fatal(err)
	}
	sum, err := p.RetrySync(t.Context(), []string{filepath.Join("drop", "rejected", "old.zip")}, false)
	if err != nil || len(sum.Outcomes) != 1 || sum.Outcomes[0].Result != api.ResultInstalled || sum.Outcomes[0].Archive != "old.zip" {
		t.Fatalf("RetrySync(old.zip) = %+v, %v; want old.zip installed", sum, err)
	}
	for _, f := range []string{"old.zip", "old.zip.txt"} {
		if _, err := os.Stat(filepath.Join(rejected, f)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("drop/rejected/%s after the retry: %v; want it gone", f, err)
		}
	}
	recs, err := Rejections(e.drop, e.state)
	if err != nil || len(recs) != 1 || recs[0].Archive != "bad.zip" {
		t.Fatalf("Rejections = %+v, %v; want bad.zip alone", recs, err)
	}
	moved, err := p.Retry(nil, true)
	if err != nil || len(moved) != 1 || moved[0] != "bad.zip" {
		t.Fatalf("Retry(all) = %v, %v; want bad.zip", moved, err)
	}
	if recs, _ := Rejections(e.drop, e.state); len(recs) != 0 {
		t.Errorf("Rejections after retrying all = %+v; want none", recs)
	}
}
