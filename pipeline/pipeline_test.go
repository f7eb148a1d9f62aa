package pipeline

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/installer/store"
	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
	"github.com/mjolnir-forge/forgesync/internal/errkind"
	"github.com/mjolnir-forge/forgesync/inventory"
	"github.com/mjolnir-forge/forgesync/inventory/rejection"
)

func TestSyncInstallsAndPublishes(t *testing.T) {
	e := newEnv(t)
	e.dropPack(t, "lifts.zip", spec{id: "lift-pack", version: "1.0.0", lifts: 2})
	e.dropPack(t, "doors.zip", spec{id: "door-pack", version: "1.0.0", doors: 2, content: map[string]string{"D.pak": "pak-bytes"}})
	e.dropPack(t, "bad.zip", spec{id: "bad-pack", version: "1.0.0", doors: 1, bad: true})
	if err := os.WriteFile(filepath.Join(e.drop, "notes.txt"), []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.drop, "big.zip.part"), []byte("half"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := e.open(t)
	sum, err := p.SyncDrop(t.Context())
	if err != nil {
		t.Fatalf("Sync = %v", err)
	}
	want := map[string]Result{"lifts.zip": ResultInstalled, "doors.zip": ResultInstalled, "bad.zip": ResultRejected, "notes.txt": ResultRejected}
	if got := results(sum); !mapsEqual(got, want) {
		t.Fatalf("Sync results = %v; want %v", got, want)
	}
	if !strings.Contains(e.inv("installed.txt"), `mjolnir\forge\door-pack\door_1`) || !strings.Contains(e.inv("lifts.txt"), "BP_Lift01") {
		t.Fatalf("inventory lacks the packs:\n%s\n%s", e.inv("installed.txt"), e.inv("lifts.txt"))
	}
	if got, _ := os.ReadFile(filepath.Join(e.paks, "MJOLNIRForge", "door-pack", "D.pak")); string(got) != "pak-bytes" {
		t.Fatalf("content not placed: %q", got)
	}
	// Rejections sit beside their reasons; unfinished downloads are left alone.
	reasons, err := os.ReadFile(filepath.Join(e.drop, rejectedDir, "bad.zip.txt"))
	if err != nil || !strings.Contains(string(reasons), "pieces[0].door.travel_m") {
		t.Fatalf("bad.zip.txt = %q, %v", reasons, err)
	}
	if r, _ := os.ReadFile(filepath.Join(e.drop, rejectedDir, "notes.txt.txt")); !strings.Contains(string(r), "not an archive") {
		t.Errorf("notes.txt.txt = %q; want not an archive", r)
	}
	if got := listFiles(t, e.drop); !slices.Equal(got, []string{"big.zip.part", "rejected/bad.zip", "rejected/bad.zip.txt", "rejected/notes.txt", "rejected/notes.txt.txt"}) {
		t.Fatalf("drop holds %v", got)
	}
	if left := listFiles(t, filepath.Join(e.state, store.ProcessingDir)); len(left) != 0 {
		t.Fatalf("processing still holds %v", left)
	}
	// A second pass with nothing new rewrites nothing.
	sum, err = p.SyncDrop(t.Context())
	if err != nil || len(sum.Outcomes) != 0 || len(sum.Published) != 0 {
		t.Fatalf("idle Sync = %+v, %v; want nothing done", sum, err)
	}
}

func mapsEqual[K comparable, V comparable](a, b map[K]V) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func TestVersionRules(t *testing.T) {
	skipUnderRace(t)
	e := newEnv(t)
	e.keep = 1 // no older generation keeps a replaced archive
	p := e.open(t)
	v1 := spec{id: "abc-pack", version: "1.0.0", doors: 1, content: map[string]string{"old.pak": "old", "keep.pak": "k1"}}
	e.dropPack(t, "v1.zip", v1)
	mustSync(t, p, map[string]Result{"v1.zip": ResultInstalled})

	// The same bytes again: already installed, removed from drop.
	e.dropPack(t, "again.zip", v1)
	mustSync(t, p, map[string]Result{"again.zip": ResultAlready})
	if _, err := os.Stat(filepath.Join(e.drop, "again.zip")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("already-installed archive still in drop")
	}

	// Same version, other bytes: rejected unless forced.
	other := v1
	other.salt = "different bytes"
	e.dropPack(t, "other.zip", other)
	mustSync(t, p, map[string]Result{"other.zip": ResultRejected})
	sum, err := p.Install(t.Context(), filepath.Join(e.drop, rejectedDir, "other.zip"), InstallOptions{Force: true})
	if err != nil || results(sum)["other.zip"] != ResultReinstalled {
		t.Fatalf("Install --force = %+v, %v; want reinstalled", sum, err)
	}

	// Upgrade replaces content: the file the new version lacks is removed
	// after publication, the old kept archive goes.
	v2 := spec{id: "abc-pack", version: "1.1.0", doors: 2, content: map[string]string{"keep.pak": "k2", "new.pak": "n"}}
	e.dropPack(t, "v2.zip", v2)
	mustSync(t, p, map[string]Result{"v2.zip": ResultUpgraded})
	if got := listFiles(t, e.paks); !slices.Equal(got, []string{"MJOLNIRForge/abc-pack/keep.pak", "MJOLNIRForge/abc-pack/new.pak"}) {
		t.Fatalf("paks after upgrade = %v", got)
	}
	if got := listFiles(t, filepath.Join(e.state, store.ArchivesDir)); len(got) != 1 || !strings.HasPrefix(got[0], "abc-pack-1.1.0-") {
		t.Fatalf("kept archives = %v; want only 1.1.0", got)
	}

	// Downgrade refused, then forced.
	e.dropPack(t, "v1-again.zip", v1)
	sum = mustSync(t, p, map[string]Result{"v1-again.zip": ResultRejected})
	if r := sum.Outcomes[0].Reasons; len(r) != 1 || r[0].Rule != inventory.RuleDowngrade || !strings.Contains(r[0].Message, "older than the installed 1.1.0") {
		t.Errorf("downgrade reason = %v", sum.Outcomes[0].Reasons)
	}
	// An explicit install is held to the same rule without --force.
	sum, err = p.Install(t.Context(), filepath.Join(e.drop, rejectedDir, "v1-again.zip"), InstallOptions{})
	if err != nil || results(sum)["v1-again.zip"] != ResultRejected {
		t.Fatalf("Install downgrade without --force = %+v, %v; want rejected", sum, err)
	}
	sum, err = p.Install(t.Context(), filepath.Join(e.drop, rejectedDir, "v1-again.zip"), InstallOptions{Force: true})
	if err != nil || results(sum)["v1-again.zip"] != ResultDowngraded {
		t.Fatalf("Install --force downgrade = %+v, %v", sum, err)
	}
}

func mustSync(t *testing.T, p *Pipeline, want map[string]Result) *Summary {
	t.Helper()
	sum, err := p.SyncDrop(t.Context())
	if err != nil {
		t.Fatalf("Sync = %v", err)
	}
	if got := results(sum); !mapsEqual(got, want) {
		t.Fatalf("Sync results = %v; want %v (%+v)", got, want, sum.Outcomes)
	}
	return sum
}

func TestDisableRemoveAndLimits(t *testing.T) {
	e := newEnv(t)
	e.keep = 1 // no older generation keeps a replaced archive
	p := e.open(t)
	e.dropPack(t, "a.zip", spec{id: "doors-a", version: "1.0.0", doors: 200})
	e.dropPack(t, "b.zip", spec{id: "doors-b", version: "1.0.0", doors: 56})
	mustSync(t, p, map[string]Result{"a.zip": ResultInstalled, "b.zip": ResultInstalled})
	if n := strings.Count(e.inv("doors.txt"), "\n"); n != 257 {
		t.Fatalf("doors.txt has %d lines; want header + 256", n)
	}
	// The 257th door is refused as a whole, naming the packs.
	e.dropPack(t, "c.zip", spec{id: "doors-c", version: "1.0.0", doors: 1})
	sum := mustSync(t, p, map[string]Result{"c.zip": ResultRejected})
	if r := sum.Outcomes[0].Reasons; len(r) != 1 || r[0].Rule != inventory.RuleDoorLimit || !strings.Contains(r[0].Message, "doors-a (200)") || !strings.Contains(r[0].Message, "257") {
		t.Fatalf("257th door reason = %+v", r)
	}

	// Disable: rows leave the text files, the pack stays in installed.json.
	if _, err := p.Disable(t.Context(), "doors-b"); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(e.inv("doors.txt"), "doors-b") || strings.Contains(e.inv("installed.txt"), "doors-b") {
		t.Fatalf("disabled pack still in text files")
	}
	if j := e.inv("installed.json"); !strings.Contains(j, `"id": "doors-b"`) || !strings.Contains(j, `"enabled": false`) {
		t.Fatalf("installed.json lost the disabled pack:\n%s", j)
	}
	// Enabling it back is fine (256); with c installed meanwhile it is refused.
	e.dropPack(t, "c2.zip", spec{id: "doors-c", version: "1.0.0", doors: 1})
	mustSync(t, p, map[string]Result{"c2.zip": ResultInstalled})
	if _, err := p.Enable(t.Context(), "doors-b"); !errors.Is(err, errkind.Refused) || !strings.Contains(err.Error(), "257") {
		t.Fatalf("Enable over the limit = %v; want errkind.Refused naming 257", err)
	}
	if _, err := p.Enable(t.Context(), "nope"); !errors.Is(err, ErrNotInstalled) {
		t.Fatalf("Enable(unknown) = %v", err)
	}

	// Removing every door pack leaves a header-only doors.txt.
	for _, id := range []string{"doors-a", "doors-b", "doors-c"} {
		if _, err := p.Remove(t.Context(), id); err != nil {
			t.Fatalf("Remove(%s) = %v", id, err)
		}
	}
	if got := e.inv("doors.txt"); got != "forge-doors 1\n" {
		t.Fatalf("doors.txt after removing every door pack = %q", got)
	}
	if got := listFiles(t, filepath.Join(e.state, store.ArchivesDir)); len(got) != 0 {
		t.Fatalf("kept archives after removal: %v", got)
	}
}

func TestLiftClassWarning(t *testing.T) {
	e := newEnv(t)
	p := e.open(t)
	e.dropPack(t, "lifts.zip", spec{id: "many-lifts", version: "1.0.0", lifts: 17})
	sum := mustSync(t, p, map[string]Result{"lifts.zip": ResultInstalled})
	if len(sum.Warnings) != 1 || !strings.Contains(sum.Warnings[0], "BP_Lift16.BP_Lift16_C") {
		t.Fatalf("warnings = %v; want one naming the ignored 17th class", sum.Warnings)
	}
}

func TestSecondWriterIsRefused(t *testing.T) {
	e := newEnv(t)
	e.open(t)
	_, _, err := Open(t.Context(), e.options())
	if !errors.Is(err, store.ErrLocked) || !strings.Contains(err.Error(), "pid") {
		t.Fatalf("second Open = %v; want ErrLocked naming the pid", err)
	}
}

// TestFailedPublishLosesNothing: a publication that fails (the game holds
// a file past the retry window) is a warning, not a failure: the archive
// is installed (the state is committed) and the next pass publishes.
func TestFailedPublishLosesNothing(t *testing.T) {
	e := newEnv(t)
	locked := false
	opts := e.options()
	opts.Renamer = atomicfile.Renamer{
		Rename: func(o, n string) error {
			if locked && strings.HasSuffix(n, "installed.txt") {
				return syscall.EBUSY
			}
			return os.Rename(o, n)
		},
		Busy:    func(err error) bool { return errors.Is(err, syscall.EBUSY) },
		MaxWait: time.Millisecond,
		Sleep:   func(time.Duration) {},
	}
	p, _, err := Open(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	locked = true
	e.dropPack(t, "a.zip", spec{id: "pack-a", version: "1.0.0", doors: 1})
	sum, err := p.SyncDrop(t.Context())
	if err != nil || results(sum)["a.zip"] != ResultInstalled || !sum.Waiting() || !slices.ContainsFunc(sum.Pending, func(r rejection.Reason) bool {
		return strings.HasSuffix(r.File, "installed.txt") && strings.Contains(r.Message, "held by another program") && strings.Contains(r.Message, "next pass")
	}) {
		t.Fatalf("Sync with installed.txt held = %+v, %v; want the pack installed and the publication pending, naming installed.txt", sum, err)
	}
	// The state was committed before the publication failed: the pack is
	// installed, and the next pass finishes publishing it.
	if strings.Contains(e.inv("installed.txt"), "pack-a") || !strings.Contains(e.inv("doors.txt"), "pack-a") {
		t.Fatalf("after the failed rename: installed.txt must be old and doors.txt new:\n%s\n%s", e.inv("installed.txt"), e.inv("doors.txt"))
	}
	locked = false
	sum, err = p.SyncDrop(t.Context())
	if err != nil || !slices.Contains(sum.Published, "installed.txt") {
		t.Fatalf("Sync after the lock went = %+v, %v; want installed.txt published", sum, err)
	}
	if !strings.Contains(e.inv("installed.txt"), "pack-a") {
		t.Fatalf("installed.txt lacks the pack:\n%s", e.inv("installed.txt"))
	}
	if got := listFiles(t, filepath.Join(e.state, store.ArchivesDir)); len(got) != 1 {
		t.Fatalf("kept archives = %v; want the one installed", got)
	}
	if got := listFiles(t, filepath.Join(e.state, store.ProcessingDir)); len(got) != 0 {
		t.Fatalf("processing holds %v", got)
	}
}

// TestUncommittedArchiveRequeued: an archive kept in archives/ that no
// state names (a transaction failed between keeping it and committing) is
// processed again by the next pass, not stranded.
func TestUncommittedArchiveRequeued(t *testing.T) {
	e := newEnv(t)
	p := e.open(t)
	spec{id: "pack-b", version: "1.0.0", lifts: 1}.zip(t, filepath.Join(e.state, store.ArchivesDir, "pack-b-1.0.0-0123456789ab.zip"))
	sum, err := p.SyncDrop(t.Context())
	if err != nil || results(sum)["pack-b-1.0.0-0123456789ab.zip"] != ResultInstalled {
		t.Fatalf("Sync = %+v, %v; want the stranded archive installed", sum, err)
	}
}

// TestStoredManifestNumbers checks SPEC §6's number rule in the stored
// manifest and in installed.json alike: no exponent where encoding/json
// would write one.
func TestStoredManifestNumbers(t *testing.T) {
	e := newEnv(t)
	p := e.open(t)
	e.dropPack(t, "tiny.zip", spec{id: "tiny-hold", version: "1.0.0", doors: 1, hold: "1e-7"})
	mustSync(t, p, map[string]Result{"tiny.zip": ResultInstalled})
	stored := listFiles(t, filepath.Join(e.state, store.ManifestsDir))
	if len(stored) != 1 {
		t.Fatalf("stored manifests = %v; want one", stored)
	}
	data, err := os.ReadFile(filepath.Join(e.state, store.ManifestsDir, stored[0]))
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"stored manifest": string(data), "installed.json": e.inv("installed.json")} {
		if !strings.Contains(text, `"hold_open_s": 0.0000001`) || regexp.MustCompile(`[0-9][eE][-+]?[0-9]`).MatchString(text) {
			t.Errorf("%s writes the hold time otherwise than 0.0000001:\n%s", name, text)
		}
	}
}

// TestStartWithAHeldInventoryFile: an inventory file held without sharing
// (share mode 0) when the daemon starts and must republish is no reason
// not to start (it was: packs, sync and daemon all exited 2). Start-up
// reports it, and a later pass publishes.
func TestStartWithAHeldInventoryFile(t *testing.T) {
	e := newEnv(t)
	p := e.open(t)
	e.dropPack(t, "a.zip", spec{id: "pack-a", version: "1.0.0", doors: 1})
	if _, err := p.SyncDrop(t.Context()); err != nil {
		t.Fatal(err)
	}
	p.Close()
	// A game update rewrote the inventory; the game now holds it.
	held := filepath.Join(e.mods, "MJOLNIRForgePacks", "installed.txt")
	if err := os.WriteFile(held, []byte("forge-installed 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	holding := true
	opts := e.options()
	opts.Renamer = atomicfile.Renamer{
		OpenRead: func(n string) (*os.File, error) {
			if holding && n == held {
				return nil, &os.PathError{Op: "open", Path: n, Err: syscall.EBUSY}
			}
			return os.Open(n)
		},
		Rename: func(o, n string) error {
			if holding && n == held {
				return syscall.EBUSY
			}
			return os.Rename(o, n)
		},
		Busy:    func(err error) bool { return errors.Is(err, syscall.EBUSY) },
		MaxWait: time.Millisecond,
		Sleep:   func(time.Duration) {},
	}
	p, rec, err := Open(t.Context(), opts)
	if err != nil {
		t.Fatalf("Open with installed.txt held = %v; want a start with a warning", err)
	}
	defer p.Close()
	if !slices.ContainsFunc(rec.Pending, func(r rejection.Reason) bool { return strings.HasSuffix(r.File, "installed.txt") }) {
		t.Fatalf("start-up pending = %q; want the publication, naming installed.txt", rec.Pending)
	}
	holding = false
	sum, err := p.SyncDrop(t.Context())
	if err != nil || !slices.Contains(sum.Published, "installed.txt") || !strings.Contains(e.inv("installed.txt"), "pack-a") {
		t.Fatalf("Sync after release = %+v, %v; want installed.txt republished with pack-a", sum, err)
	}
}

// TestMacFilesNoted: an archive made on a Mac installs, and the summary
// says which files a Mac added were left out, as scan does.
func TestMacFilesNoted(t *testing.T) {
	e := newEnv(t)
	p := e.open(t)
	e.dropPack(t, "mac.zip", spec{id: "mac-pack", version: "1.0.0", content: map[string]string{"a.pak": "a"},
		extra: map[string]string{"__MACOSX/._forgepack.json": "resource fork", ".DS_Store": "finder"}})
	sum := mustSync(t, p, map[string]Result{"mac.zip": ResultInstalled})
	want := "mac.zip: ignored 2 files a Mac or Windows adds: .DS_Store, __MACOSX/…"
	if !slices.Contains(sum.Warnings, want) {
		t.Fatalf("summary warnings = %q; want %q", sum.Warnings, want)
	}
	if got := listFiles(t, e.paks); !slices.Equal(got, []string{"MJOLNIRForge/mac-pack/a.pak"}) {
		t.Errorf("paks = %v; want the pack's content alone", got)
	}
}
