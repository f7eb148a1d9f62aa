package pipeline

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/inventory/rejection"
)

// TestRejectionReasonsAreData checks that the reasons of a rejection reach
// the note, and a later process, as the data the verdict made: the rule,
// the JSON path and the line survive, and the note is rendered from them.
func TestRejectionReasonsAreData(t *testing.T) {
	e := newEnv(t)
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	opts := e.options()
	opts.Now = func() time.Time { return at }
	p, _, err := Open(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	e.dropPack(t, "bad.zip", spec{id: "bad-pack", version: "1.0.0", doors: 1, bad: true})
	sum, err := p.SyncDrop(t.Context())
	if err != nil || len(sum.Outcomes) != 1 {
		t.Fatalf("Sync = %+v, %v", sum, err)
	}
	reasons := sum.Outcomes[0].Reasons
	if len(reasons) != 1 || reasons[0].Path != "pieces[0].door.travel_m" || reasons[0].Rule == "" || reasons[0].Line == 0 || reasons[0].Value != "40" {
		t.Fatalf("reasons = %+v; want the travel_m rule with its path, line and value", reasons)
	}
	note, err := os.ReadFile(filepath.Join(e.drop, rejectedDir, "bad.zip.txt"))
	if want := rejection.Note("bad.zip", "bad.zip", at, reasons); err != nil || string(note) != string(want) {
		t.Fatalf("bad.zip.txt = %q, %v; want %q", note, err, want)
	}
	p.Close()

	// Another process reads the same data back, and never the note: a
	// note edited by hand changes nothing.
	if err := os.WriteFile(filepath.Join(e.drop, rejectedDir, "bad.zip.txt"), []byte("- edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p = e.open(t)
	got, err := Rejections(e.drop, e.state)
	want := []rejection.Record{{Archive: "bad.zip", Time: at, Pack: "bad-pack", Version: "1.0.0", Reasons: reasons}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("Rejections = %+v, %v; want %+v", got, err, want)
	}

	// A rejected archive the user deletes leaves the list, and its record
	// goes at the next rejection.
	if err := os.Remove(filepath.Join(e.drop, rejectedDir, "bad.zip")); err != nil {
		t.Fatal(err)
	}
	if got, err := Rejections(e.drop, e.state); err != nil || len(got) != 0 {
		t.Fatalf("Rejections after delete = %+v, %v; want none", got, err)
	}
	if err := os.WriteFile(filepath.Join(e.drop, "junk.zip"), []byte("not an archive"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := p.SyncDrop(t.Context()); err != nil {
		t.Fatal(err)
	}
	recs, err := loadRejections(e.state)
	if err != nil || len(recs) != 1 || recs[0].Archive != "junk.zip" {
		t.Fatalf("records = %+v, %v; want only junk.zip", recs, err)
	}
}

// TestNoteOfAnInstallRuleRejection: an archive refused because the same
// version is installed from other bytes is valid; its note says how to
// force it, under the name it has in drop/rejected/, and not that scan
// shows the same verdict.
func TestNoteOfAnInstallRuleRejection(t *testing.T) {
	e := newEnv(t)
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	opts := e.options()
	opts.Now = func() time.Time { return at }
	p, _, err := Open(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	e.dropPack(t, "a.zip", spec{id: "pack-a", version: "1.0.0"})
	if _, err := p.SyncDrop(t.Context()); err != nil {
		t.Fatal(err)
	}
	e.dropPack(t, "a.zip", spec{id: "pack-a", version: "1.0.0", salt: "other bytes"})
	if _, err := p.SyncDrop(t.Context()); err != nil {
		t.Fatal(err)
	}
	note, err := os.ReadFile(filepath.Join(e.drop, rejectedDir, "a.zip.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want := "\nThe pack itself is valid (`forgesync scan` finds nothing wrong in it): the packs installed now refuse it.\n" +
		"To replace the installed copy with this one: forgesync install --force a.zip (in drop/rejected/)\n"
	if !strings.HasSuffix(string(note), want) || strings.Contains(string(note), "same verdict") {
		t.Errorf("note =\n%s\nwant it to end with\n%s", note, want)
	}
}
