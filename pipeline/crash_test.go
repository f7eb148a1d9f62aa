package pipeline

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/installer/store"
)

// The crash test runs a sync in a child process (this test binary, re-run
// with TestChildSync) that dies with os.Exit — no deferred cleanup, no
// flushing — at one step boundary of the transaction, for every boundary in
// turn; then it runs a recovery in another child and checks that nothing
// was lost and the result equals an uninterrupted run.

const (
	envChild   = "FORGESYNC_TEST_CHILD"    // the env root for the child
	envCrashAt = "FORGESYNC_TEST_CRASH_AT" // die at this step number (1-based); 0 runs to the end
	envSteps   = "FORGESYNC_TEST_STEPS"    // append each step name to this file
	envOp      = "FORGESYNC_TEST_OP"       // what the child does after Open; see childOp
	envKeep    = "FORGESYNC_TEST_KEEP"     // KeepGenerations of the child
	// envKeepProfiles is KeepProfiles of the child, when set (a test sets
	// it in its own environment, which the child inherits).
	envKeepProfiles = "FORGESYNC_TEST_KEEP_PROFILES"
)

var inventoryNames = []string{"installed.json", "lifts.txt", "doors.txt", "installed.txt"}

func TestChildSync(t *testing.T) {
	root := os.Getenv(envChild)
	if root == "" {
		t.Skip("runs only as the crash test's child process")
	}
	crashAt, _ := strconv.Atoi(os.Getenv(envCrashAt))
	log, err := os.OpenFile(os.Getenv(envSteps), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	e := envAt(root)
	e.keep, _ = strconv.Atoi(os.Getenv(envKeep))
	n := 0
	opts := e.options()
	opts.KeepProfiles, _ = strconv.Atoi(os.Getenv(envKeepProfiles))
	opts.Step = func(name string) {
		n++
		fmt.Fprintf(log, "%d %s\n", n, name)
		if n == crashAt {
			// Snapshot the inventory at the moment of death for the parent.
			for _, f := range inventoryNames {
				data, _ := os.ReadFile(filepath.Join(InventoryDir(e.mods), f))
				os.WriteFile(filepath.Join(root, "at-death-"+f), data, 0o644)
			}
			os.Exit(3)
		}
	}
	p, _, err := Open(t.Context(), opts)
	if err != nil {
		t.Fatalf("Open = %v", err)
	}
	if err := childOp(t, p, root, os.Getenv(envOp)); err != nil {
		t.Fatalf("%s = %v", os.Getenv(envOp), err)
	}
	p.Close()
}

// runChild runs one child sync over root; crashAt 0 runs to the end.
func runChild(t *testing.T, root string, crashAt int, steps string) int {
	return runChildOp(t, root, crashAt, steps, "", 0)
}

// runChildOp runs one child over root doing op (see childOp) with keep
// generations kept; crashAt 0 runs to the end.
func runChildOp(t *testing.T, root string, crashAt int, steps, op string, keep int) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestChildSync$", "-test.count=1")
	cmd.Env = append(os.Environ(), envChild+"="+root, envCrashAt+"="+strconv.Itoa(crashAt), envSteps+"="+steps,
		envOp+"="+op, envKeep+"="+strconv.Itoa(keep))
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		if ee.ExitCode() != 3 {
			t.Fatalf("child (crash at %d) failed with %d:\n%s", crashAt, ee.ExitCode(), out)
		}
		return 3
	default:
		t.Fatalf("child: %v", err)
	}
	return -1
}

// crashScenario builds the installed base and the batch that the crash
// test interrupts: an upgrade that drops a content file (placed file by
// file), a new pack with doors and content in folders (its folder placed
// in one move), an invalid pack, a stray file that is no archive
// (the two rejections are recorded in one write, then moved one by one:
// the test dies between them too), and a duplicate of an installed one.
func crashScenario(t *testing.T) (root string, old map[string]string) {
	root = t.TempDir()
	e := envAt(root)
	liftsV1 := spec{id: "lift-pack", version: "1.0.0", lifts: 2, content: map[string]string{"a.pak": "a1", "gone.pak": "g"}}
	doors := spec{id: "door-pack", version: "1.0.0", doors: 3}
	e.dropPack(t, "lifts-1.0.zip", liftsV1)
	e.dropPack(t, "doors.zip", doors)
	p, _, err := Open(t.Context(), e.options())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.SyncDrop(t.Context()); err != nil {
		t.Fatal(err)
	}
	p.Close()
	old = map[string]string{}
	for _, f := range inventoryNames {
		old[f] = e.inv(f)
	}
	e.dropPack(t, "lifts-1.1.zip", spec{id: "lift-pack", version: "1.1.0", lifts: 3, content: map[string]string{"a.pak": "a2"}})
	e.dropPack(t, "gates.zip", spec{id: "gate-pack", version: "2.0.0", doors: 2, lifts: 1, content: map[string]string{"g.utoc": "t", "g.ucas": "c", "maps/deep/m.pak": "m"}})
	e.dropPack(t, "broken.zip", spec{id: "broken-pack", version: "1.0.0", doors: 1, bad: true})
	e.dropPack(t, "doors-again.zip", doors)
	if err := os.WriteFile(filepath.Join(e.drop, "readme.txt"), []byte("not a pack\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return root, old
}

// copyTree copies a folder tree (regular files and folders only).
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.Create(target)
		if err != nil {
			return err
		}
		defer out.Close()
		_, err = io.Copy(out, in)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func readSteps(t *testing.T, path string) []string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		_, name, _ := strings.Cut(sc.Text(), " ")
		out = append(out, name)
	}
	return out
}

func TestCrashAtEveryStep(t *testing.T) {
	skipUnderRace(t)
	if testing.Short() {
		t.Skip("spawns one child process per step")
	}
	base, old := crashScenario(t)

	// The reference: an uninterrupted run, recording every step.
	ref := t.TempDir()
	copyTree(t, base, ref)
	stepsFile := filepath.Join(t.TempDir(), "steps")
	runChild(t, ref, 0, stepsFile)
	steps := readSteps(t, stepsFile)
	if len(steps) < 12 {
		t.Fatalf("only %d steps recorded: %v", len(steps), steps)
	}
	// Both ways of placing are interrupted: the upgrade file by file, the
	// new pack's folder in one move.
	if !slices.Contains(steps, "place:MJOLNIRForge/lift-pack/a.pak") || !slices.Contains(steps, "place:MJOLNIRForge/gate-pack") ||
		slices.ContainsFunc(steps, func(s string) bool { return strings.HasPrefix(s, "place:MJOLNIRForge/gate-pack/") }) {
		t.Fatalf("steps %q; want lift-pack's upgrade placed file by file and gate-pack's folder in one move", steps)
	}
	re := envAt(ref)
	want := map[string]string{}
	for _, f := range inventoryNames {
		want[f] = re.inv(f)
	}
	wantPaks := listFiles(t, re.paks)
	wantFolders := listFolders(t, re.paks)
	if !slices.Contains(wantFolders, "MJOLNIRForge/gate-pack/maps/deep drwxr-xr-x") ||
		slices.ContainsFunc(wantFolders, func(f string) bool { return !strings.HasSuffix(f, " drwxr-xr-x") }) {
		t.Fatalf("reference run: folders of paks %v; want each 0755, gate-pack's maps/deep among them", wantFolders)
	}
	wantRejected := listFiles(t, filepath.Join(re.drop, rejectedDir))
	wantKept := listFiles(t, filepath.Join(re.state, store.ArchivesDir))
	if len(wantRejected) != 4 || len(wantKept) != 4 {
		t.Fatalf("reference run: rejected %v, kept %v", wantRejected, wantKept)
	}

	for k := 1; k <= len(steps); k++ {
		t.Run(fmt.Sprintf("%02d-%s", k, steps[k-1]), func(t *testing.T) {
			root := t.TempDir()
			copyTree(t, base, root)
			if code := runChild(t, root, k, filepath.Join(root, "steps.log")); code != 3 {
				t.Fatalf("child did not die at step %d", k)
			}
			e := envAt(root)
			// At the moment of death each file was wholly old or wholly new,
			// and bindings were never newer than the companions.
			gen := map[string]string{}
			for _, f := range inventoryNames {
				data, _ := os.ReadFile(filepath.Join(root, "at-death-"+f))
				switch string(data) {
				case old[f]:
					gen[f] = "old"
				case want[f]:
					gen[f] = "new"
				default:
					t.Fatalf("%s at death is neither the old nor the new file:\n%s", f, data)
				}
			}
			if gen["installed.txt"] == "new" && old["installed.txt"] != want["installed.txt"] {
				for _, f := range []string{"lifts.txt", "doors.txt"} {
					if gen[f] != "new" && old[f] != want[f] {
						t.Fatalf("installed.txt published before %s", f)
					}
				}
			}
			// Recovery converges to the uninterrupted result.
			runChild(t, root, 0, filepath.Join(root, "steps2.log"))
			for _, f := range inventoryNames {
				if got := e.inv(f); got != want[f] {
					t.Errorf("after recovery %s differs from a clean run:\n%s\nwant\n%s", f, got, want[f])
				}
			}
			if got := listFiles(t, e.paks); !slices.Equal(got, wantPaks) {
				t.Errorf("paks after recovery = %v; want %v", got, wantPaks)
			}
			if got := listFolders(t, e.paks); !slices.Equal(got, wantFolders) {
				t.Errorf("folders of paks after recovery = %v; want %v", got, wantFolders)
			}
			// Every archive accounted for exactly once.
			if got := listFiles(t, filepath.Join(e.drop, rejectedDir)); !slices.Equal(got, wantRejected) {
				t.Errorf("rejected after recovery = %v; want %v", got, wantRejected)
			}
			// Each rejected archive recorded once, with its reasons.
			recs, err := Rejections(e.drop, e.state)
			var names []string
			for _, r := range recs {
				if len(r.Reasons) == 0 {
					t.Errorf("rejection of %s recorded without its reasons", r.Archive)
				}
				names = append(names, r.Archive)
			}
			if slices.Sort(names); err != nil || !slices.Equal(names, []string{"broken.zip", "readme.txt"}) {
				t.Errorf("rejections after recovery = %v, %v; want broken.zip and readme.txt, once each", names, err)
			}
			if stored, _ := loadRejections(e.state); len(stored) != 2 {
				t.Errorf("%s holds %d records after recovery; want 2", rejectionsFile, len(stored))
			}
			if got := listFiles(t, filepath.Join(e.state, store.ArchivesDir)); !slices.Equal(got, wantKept) {
				t.Errorf("kept archives after recovery = %v; want %v", got, wantKept)
			}
			for _, d := range []string{filepath.Join(e.state, store.ProcessingDir), filepath.Join(e.state, store.StagingDir)} {
				if left := listFiles(t, d); len(left) != 0 {
					t.Errorf("%s holds %v after recovery", d, left)
				}
			}
			if left, _ := readyArchives(e.drop); len(left) != 0 {
				t.Errorf("drop still holds %v", left)
			}
		})
	}
}

// listFolders returns the folders under dir, each as its slash path and
// its mode ("MJOLNIRForge/x drwxr-xr-x"), sorted.
func listFolders(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() || p == dir {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out = append(out, filepath.ToSlash(rel)+" "+fi.Mode().String())
		return nil
	})
	if err != nil {
		t.Fatalf("list folders of %s: %v", dir, err)
	}
	return out
}
