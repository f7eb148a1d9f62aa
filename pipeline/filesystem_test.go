package pipeline

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/installer/deploy"
	"github.com/mjolnir-forge/forgesync/installer/place"
	"github.com/mjolnir-forge/forgesync/installer/store"
	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
)

// TestClaimAcrossDrives: drop and state on two drives (the defaults put
// drop under the game and state under the profile) made every claim fail
// EXDEV. A rename that crosses devices now falls back to copy, sync, then
// delete, for claiming and for rejecting alike.
func TestClaimAcrossDrives(t *testing.T) {
	e := newEnv(t)
	opts := e.options()
	crossings := 0
	opts.Renamer = atomicfile.Renamer{Rename: func(o, n string) error {
		inDrop := strings.HasPrefix(o, e.drop) || strings.HasPrefix(n, e.drop)
		inState := strings.HasPrefix(o, e.state) || strings.HasPrefix(n, e.state)
		if inDrop && inState {
			crossings++
			return &os.LinkError{Op: "rename", Old: o, New: n, Err: syscall.EXDEV}
		}
		return os.Rename(o, n)
	}}
	p, _, err := Open(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	e.dropPack(t, "good.zip", spec{id: "pack-a", version: "1.0.0", doors: 1})
	if err := os.WriteFile(filepath.Join(e.drop, "notes.zip"), []byte("not an archive"), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := p.SyncDrop(t.Context())
	if err != nil {
		t.Fatalf("Sync across drives = %v", err)
	}
	if r := results(sum); r["good.zip"] != ResultInstalled || r["notes.zip"] != ResultRejected {
		t.Fatalf("results = %v; want good.zip installed, notes.zip rejected", r)
	}
	if crossings < 3 {
		t.Fatalf("%d renames crossed drives; want the two claims and the rejection", crossings)
	}
	if got := listFiles(t, e.drop); strings.Join(got, ",") != "rejected/notes.zip,rejected/notes.zip.txt" {
		t.Fatalf("drop holds %v; want only the rejection", got)
	}
	if !strings.Contains(e.inv("installed.txt"), "pack-a") {
		t.Fatal("installed.txt lacks pack-a")
	}
}

// TestRejectedLinkIsRefused: drop/rejected made a link to another folder
// must not receive attacker-named files there.
func TestRejectedLinkIsRefused(t *testing.T) {
	e := newEnv(t)
	p := e.open(t)
	elsewhere := filepath.Join(e.root, "elsewhere")
	if err := os.Mkdir(elsewhere, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(e.drop, rejectedDir)
	if err := os.Symlink(elsewhere, link); err != nil {
		t.Skip(err)
	}
	if err := os.WriteFile(filepath.Join(e.drop, "evil.zip"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := p.SyncDrop(t.Context())
	if !errors.Is(err, atomicfile.ErrLink) || !strings.Contains(err.Error(), link) {
		t.Fatalf("Sync with drop/rejected a link = %v; want ErrLink naming %s", err, link)
	}
	if got := listFiles(t, elsewhere); len(got) != 0 {
		t.Fatalf("files written through the link: %v", got)
	}
	// Nothing is lost: the archive waits in drop, and the error says so.
	if got, _ := readyArchives(e.drop); len(got) != 1 || !strings.Contains(err.Error(), "put back in drop") {
		t.Fatalf("drop holds %v after the failed pass (%v); want the archive back there, and named", got, err)
	}
}

// TestContentLinkIsRefused: <paks>/MJOLNIRForge/<id> made a link must not
// get content written through it, nor deleted through it.
func TestContentLinkIsRefused(t *testing.T) {
	e := newEnv(t)
	p := e.open(t)
	elsewhere := filepath.Join(e.root, "elsewhere")
	if err := os.Mkdir(elsewhere, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(e.paks, place.ContentRoot), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(e.paks, place.ContentRoot, "pack-a")
	if err := os.Symlink(elsewhere, link); err != nil {
		t.Skip(err)
	}
	e.dropPack(t, "a.zip", spec{id: "pack-a", version: "1.0.0", doors: 1, content: map[string]string{"Paks/a.pak": "pak"}})
	_, err := p.SyncDrop(t.Context())
	if !errors.Is(err, atomicfile.ErrLink) || !strings.Contains(err.Error(), link) {
		t.Fatalf("Sync with a content folder a link = %v; want ErrLink naming %s", err, link)
	}
	if got := listFiles(t, elsewhere); len(got) != 0 {
		t.Fatalf("content written through the link: %v", got)
	}
	// Removal does not delete through a link either.
	if err := os.WriteFile(filepath.Join(elsewhere, "a.pak"), []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	left, err := place.RemoveContentLeftover(atomicfile.Renamer{}, e.paks, []string{place.ContentRoot + "/pack-a/a.pak"}, nil)
	if !errors.Is(err, atomicfile.ErrLink) || len(left) != 1 {
		t.Fatalf("RemoveContentLeftover through a link = %v, %v; want ErrLink and the path left", left, err)
	}
	if _, err := os.Stat(filepath.Join(elsewhere, "a.pak")); err != nil {
		t.Fatalf("a file behind the link was deleted: %v", err)
	}
}

// TestDropInsideStateIsRefused: a drop folder inside state (or paks), or
// the reverse, is refused at start naming both; sync "rejected" its own
// packs.json and lock file before.
func TestDropInsideStateIsRefused(t *testing.T) {
	root := t.TempDir()
	state := filepath.Join(root, "state")
	paks := filepath.Join(root, "paks")
	for _, c := range []struct{ drop, state, paks string }{
		{state, state, paks},
		{filepath.Join(state, "drop"), state, paks},
		{filepath.Join(paks, "drop"), state, paks},
		{filepath.Join(root, "drop"), filepath.Join(root, "drop", "state"), paks},
		{filepath.Join(root, "drop"), state, filepath.Join(root, "drop", "x", "..", "paks")},
	} {
		opts := Options{Drop: c.drop, Mods: filepath.Join(root, "mods"), Paks: c.paks, State: c.state}
		p, _, err := Open(t.Context(), opts)
		if err == nil {
			p.Close()
		}
		if !errors.Is(err, errPlaces) || !strings.Contains(err.Error(), c.drop) {
			t.Errorf("Open(drop %s, state %s, paks %s) = %v; want ErrPlaces naming both", c.drop, c.state, c.paks, err)
		}
	}
}

// TestInstalledContentIsReadable: content renamed from the private staging
// folder was 0600; a game running as another user could not read it.
func TestInstalledContentIsReadable(t *testing.T) {
	if os.Getenv("GOOS") == "windows" {
		t.Skip("modes are a Unix notion")
	}
	e := newEnv(t)
	p := e.open(t)
	e.dropPack(t, "a.zip", spec{id: "pack-a", version: "1.0.0", doors: 1, content: map[string]string{"Paks/a.pak": "pak"}})
	if _, err := p.SyncDrop(t.Context()); err != nil {
		t.Fatal(err)
	}
	n := 0
	filepath.Walk(filepath.Join(e.paks, place.ContentRoot), func(path string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		want := os.FileMode(0o644)
		if fi.IsDir() {
			want = 0o755
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s mode %v; want %v", path, fi.Mode().Perm(), want)
		}
		n++
		return nil
	})
	if n < 3 {
		t.Fatalf("walked %d entries; want the content root, the pack folder and a file", n)
	}
}

// TestStagingLeftoverRetriedNextPass: a staging file a scanner holds past
// the retry does not fail the start; it is logged and removed by the next
// pass once it is let go (it was ignored, and leaked).
func TestStagingLeftoverRetriedNextPass(t *testing.T) {
	e := newEnv(t)
	p := e.open(t)
	p.Close()
	leftover := filepath.Join(e.state, store.StagingDir, "x1", "content", "a.pak")
	if err := os.MkdirAll(filepath.Dir(leftover), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(leftover, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	held := true
	opts := e.options()
	opts.Renamer = atomicfile.Renamer{
		RemoveFile: func(n string) error {
			if held && n == leftover {
				return &os.PathError{Op: "remove", Path: n, Err: syscall.EBUSY}
			}
			return os.Remove(n)
		},
		Busy:    func(err error) bool { return errors.Is(err, syscall.EBUSY) },
		MaxWait: time.Millisecond,
		Sleep:   func(time.Duration) {},
	}
	p, _, err := Open(t.Context(), opts)
	if err != nil {
		t.Fatalf("Open with a held staging file = %v", err)
	}
	defer p.Close()
	if _, err := os.Stat(leftover); err != nil {
		t.Fatalf("held leftover: %v; want it still there", err)
	}
	held = false
	if _, err := p.SyncDrop(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := listFiles(t, filepath.Join(e.state, store.StagingDir)); len(got) != 0 {
		t.Fatalf("staging after the next pass holds %v; want it empty", got)
	}
}

func TestDeployWarningsOncePerProblem(t *testing.T) {
	err := errors.New("deploy native forge_doors.dll to D:/x: busy")
	reps := []deploy.FileReport{
		{Component: "native", Name: "forge_doors.dll", Path: "D:/x", Status: deploy.DeployFailed, Reason: err.Error()},
		{Component: "lua", Name: "lifts.lua", Path: "D:/y", Status: deploy.Unchanged},
	}
	w, failed := DeployWarnings(reps, err)
	if len(w) != 1 || !failed {
		t.Fatalf("DeployWarnings = %q, %v; want one warning and failed", w, failed)
	}
	w, failed = DeployWarnings([]deploy.FileReport{{Component: "native", Name: "forge_doors.dll", Status: deploy.DeployFailed, Reason: "native door module missing"}}, nil)
	if len(w) != 1 || failed {
		t.Fatalf("DeployWarnings(missing module) = %q, %v; want a warning, not a failure", w, failed)
	}
	w, failed = DeployWarnings([]deploy.FileReport{{Component: "native", Name: "forge_doors.dll", Path: "D:/x", Status: deploy.StagedLocked, Reason: "held"}}, nil)
	if len(w) != 1 || failed {
		t.Fatalf("DeployWarnings(staged) = %q, %v; want a warning, not a failure", w, failed)
	}
}

// TestInventoryLinkIsRefused: <mods>/MJOLNIRForgePacks made a link must
// not have the inventory (nor the default drop folder) written through it.
func TestInventoryLinkIsRefused(t *testing.T) {
	e := newEnv(t)
	elsewhere := filepath.Join(e.root, "elsewhere")
	if err := os.MkdirAll(elsewhere, 0o755); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(e.mods, 0o755)
	link := InventoryDir(e.mods)
	if err := os.Symlink(elsewhere, link); err != nil {
		t.Skip(err)
	}
	p, _, err := Open(t.Context(), e.options())
	if err == nil {
		p.Close()
	}
	if !errors.Is(err, atomicfile.ErrLink) || !strings.Contains(err.Error(), link) {
		t.Fatalf("Open with the inventory folder a link = %v; want ErrLink naming %s", err, link)
	}
	if got := listFiles(t, elsewhere); len(got) != 0 {
		t.Fatalf("written through the link: %v", got)
	}
}
