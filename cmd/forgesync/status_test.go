package main

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/cmd/forgesync/cli"
	"github.com/mjolnir-forge/forgesync/internal/filelock"
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

// treeSnapshot returns every file, folder and link under root with its
// mode, and each file's bytes (as a SHA-256) and each link's target: two
// snapshots are equal when nothing under root changed.
func treeSnapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	snap := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		what := info.Mode().String()
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			what += " -> " + target
		case info.Mode().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			what += fmt.Sprintf(" %x", sha256.Sum256(data))
		}
		snap[filepath.ToSlash(rel)] = what
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// diffSnapshots lists what differs between two snapshots, one line each.
func diffSnapshots(before, after map[string]string) []string {
	var diffs []string
	for p, b := range before {
		if a, ok := after[p]; !ok {
			diffs = append(diffs, "gone: "+p+" ("+b+")")
		} else if a != b {
			diffs = append(diffs, "changed: "+p+" ("+b+" → "+a+")")
		}
	}
	for p, a := range after {
		if _, ok := before[p]; !ok {
			diffs = append(diffs, "new: "+p+" ("+a+")")
		}
	}
	slices.Sort(diffs)
	return diffs
}

// TestStatusWithoutDaemonReadsTheStateOnDisk: with no daemon, status says
// so and shows the state on disk (the installed pack, the rejected archive
// with its reason, the gates, door automation), exits 1 as documented,
// and changes nothing under the game or the state; --json carries the
// same. A writer holding the state makes it wait, then fail by name.
func TestStatusWithoutDaemonReadsTheStateOnDisk(t *testing.T) {
	g := newGame(t)
	if err := os.WriteFile(filepath.Join(g.drop, "good.zip"), packZip(t, "good-pack", "1.0.0", 0), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(g.drop, "bad.zip"), []byte("not a zip"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := runCLI(t, "sync", "--config", g.config); code != cli.ExitInvalid {
		t.Fatalf("sync = %d\n%s%s", code, out, errs)
	}
	before := treeSnapshot(t, g.root)
	code, out, errs := runCLI(t, "status", "--config", g.config)
	for _, want := range []string{
		"no forgesync daemon is answering on " + g.sock + "\n",
		"no daemon running: this is the state on disk (" + g.state + "), as the last command left it\n",
		"packs: 1 installed, 1 enabled;",
		"1 rejected archive\n",
		"MJOLNIRForge         -          missing (needs 0.4.0)\n",
		"door automation: off ([deploy] native = false: this machine deploys no door module (set it true to animate doors)); pack lifts: off;",
		"rejected archives (in drop/rejected/):\n  bad.zip",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("status without a daemon lacks %q:\n%s%s", want, out, errs)
		}
	}
	if code != cli.ExitInvalid || errs != "" {
		t.Errorf("status without a daemon = %d, stderr %q; want %d and none", code, errs, cli.ExitInvalid)
	}
	code, out, _ = runCLI(t, "status", "--json", "--config", g.config)
	var got struct {
		Running  bool   `json:"running"`
		StateDir string `json:"state_dir"`
		Status   struct {
			Counts struct {
				Packs, Rejected int
			} `json:"counts"`
			Folders struct {
				Drop string `json:"drop"`
			} `json:"folders"`
		} `json:"status"`
		Rejections []struct {
			Archive string `json:"archive"`
			Reasons []any  `json:"reasons"`
		} `json:"rejections"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || code != cli.ExitInvalid {
		t.Fatalf("status --json = %d, %v\n%s", code, err, out)
	}
	if got.Running || got.StateDir != g.state || got.Status.Counts.Packs != 1 || got.Status.Counts.Rejected != 1 || got.Status.Folders.Drop != g.drop ||
		len(got.Rejections) != 1 || got.Rejections[0].Archive != "bad.zip" || len(got.Rejections[0].Reasons) == 0 {
		t.Errorf("status --json without a daemon:\n%s", out)
	}
	if d := diffSnapshots(before, treeSnapshot(t, g.root)); len(d) > 0 {
		t.Errorf("status without a daemon changed the disk:\n%s", strings.Join(d, "\n"))
	}

	// A writer holds the state: status waits for it, then names it.
	held, err := filelock.Acquire(t.Context(), filepath.Join(g.state, "lock"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Unlock()
	code, _, errs = runCLI(t, "status", "--config", g.config)
	if code != cli.ExitFailure || !strings.Contains(errs, "forgesync status: no daemon, and the state on disk cannot be read: "+g.state+" (lock, held by pid") {
		t.Errorf("status beside a writer = %d\n%s", code, errs)
	}
}
