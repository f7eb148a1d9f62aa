package pipeline

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestRetry: a rejected archive goes back into drop with its note and
// record gone, and installs once what refused it is gone; an unknown name
// moves nothing.
func TestRetry(t *testing.T) {
	e := newEnv(t)
	p := e.open(t)
	e.dropPack(t, "a.zip", spec{id: "pack-a", version: "1.1.0"})
	if _, err := p.SyncDrop(t.Context()); err != nil {
		t.Fatal(err)
	}
	e.dropPack(t, "old.zip", spec{id: "pack-a", version: "1.0.0"}) // a downgrade
	e.dropPack(t, "bad.zip", spec{id: "pack-b", version: "1.0.0", doors: 1, bad: true})
	if _, err := p.SyncDrop(t.Context()); err != nil {
		t.Fatal(err)
	}
	rejected := filepath.Join(e.drop, rejectedDir)
	if _, err := p.Retry(RetryOptions{Archives: []string{"old.zip", "nope.zip"}}); !errors.Is(err, errNotRejected) {
		t.Fatalf("Retry(old.zip, nope.zip) = %v; want ErrNotRejected", err)
	}
	if _, err := os.Stat(filepath.Join(rejected, "old.zip")); err != nil {
		t.Fatalf("a refused retry moved old.zip: %v", err)
	}
	if _, err := p.Remove(t.Context(), "pack-a"); err != nil {
		t.Fatal(err)
	}
	sum, err := p.RetrySync(t.Context(), RetryOptions{Archives: []string{filepath.Join("drop", "rejected", "old.zip")}})
	if err != nil || len(sum.Outcomes) != 1 || sum.Outcomes[0].Result != ResultInstalled || sum.Outcomes[0].Archive != "old.zip" {
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
	moved, err := p.Retry(RetryOptions{All: true})
	if err != nil || len(moved) != 1 || moved[0] != "bad.zip" {
		t.Fatalf("Retry(all) = %v, %v; want bad.zip", moved, err)
	}
	if recs, _ := Rejections(e.drop, e.state); len(recs) != 0 {
		t.Errorf("Rejections after retrying all = %+v; want none", recs)
	}
}

// TestStaleNotesGoAtTheNextPass: a note whose archive the player deleted,
// or whose archive is now installed (from the same bytes), is removed at
// the next pass with its record; the note of an archive still refused
// stays.
func TestStaleNotesGoAtTheNextPass(t *testing.T) {
	e := newEnv(t)
	p := e.open(t)
	e.dropPack(t, "a.zip", spec{id: "pack-a", version: "1.1.0"})
	if _, err := p.SyncDrop(t.Context()); err != nil {
		t.Fatal(err)
	}
	e.dropPack(t, "old.zip", spec{id: "pack-a", version: "1.0.0"})
	e.dropPack(t, "gone.zip", spec{id: "pack-g", version: "1.0.0", doors: 1, bad: true})
	e.dropPack(t, "bad.zip", spec{id: "pack-b", version: "1.0.0", doors: 1, bad: true})
	if _, err := p.SyncDrop(t.Context()); err != nil {
		t.Fatal(err)
	}
	rejected := filepath.Join(e.drop, rejectedDir)
	os.Remove(filepath.Join(rejected, "gone.zip"))
	if _, err := p.Install(t.Context(), filepath.Join(rejected, "old.zip"), InstallOptions{Force: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.SyncDrop(t.Context()); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{"gone.zip.txt": false, "old.zip.txt": false, "bad.zip.txt": true} {
		_, err := os.Stat(filepath.Join(rejected, name))
		if got := err == nil; got != want {
			t.Errorf("drop/rejected/%s there = %v after the next pass; want %v", name, got, want)
		}
	}
	if recs, err := loadRejections(e.state); err != nil || len(recs) != 1 || recs[0].Archive != "bad.zip" {
		t.Errorf("records = %+v, %v; want bad.zip's alone", recs, err)
	}
}

// TestRunnerRejectionsAreFresh: status lists what drop/rejected/ holds now,
// not what it held at the last pass.
func TestRunnerRejectionsAreFresh(t *testing.T) {
	e := newEnv(t)
	r := startRunner(t, e.options(), RunnerOptions{})
	e.dropPack(t, "bad.zip", spec{id: "pack-b", version: "1.0.0", doors: 1, bad: true})
	if _, err := r.SyncDrop(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n := len(r.Rejections()); n != 1 || r.Status().Counts.Rejected != 1 {
		t.Fatalf("rejections = %d; want 1", n)
	}
	os.Remove(filepath.Join(e.drop, rejectedDir, "bad.zip"))
	if n := len(r.Rejections()); n != 0 || r.Status().Counts.Rejected != 0 {
		t.Errorf("rejections after the player deleted bad.zip = %d, status counts %d; want 0", n, r.Status().Counts.Rejected)
	}
}
