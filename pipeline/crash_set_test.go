package pipeline

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/installer/store"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// childOp is what the crash test's child does after Open: "" syncs the
// drop folder, "open" only recovers, "set" applies root/set.json with the
// archives of root/setsrc/, "rollback:N" rolls back to generation N,
// "profile:NAME" switches to profile NAME.
func childOp(t *testing.T, p *Pipeline, root, op string) error {
	switch {
	case op == "":
		_, err := p.SyncDrop(t.Context())
		return err
	case op == "open":
		return nil
	case op == "set":
		data, err := os.ReadFile(filepath.Join(root, "set.json"))
		if err != nil {
			return err
		}
		var req childSet
		if err := json.Unmarshal(data, &req); err != nil {
			return err
		}
		src := &archiveSet{dir: filepath.Join(root, "setsrc"), bySHA: map[string]string{}}
		entries, _ := os.ReadDir(src.dir)
		for _, e := range entries {
			path := filepath.Join(src.dir, e.Name())
			src.bySHA[fileSHA(t, path)] = path
		}
		_, err = p.ApplySet(t.Context(), req.Pins, SetOptions{Prune: req.Prune, Source: src.source})
		return err
	case strings.HasPrefix(op, "profile:"):
		_, err := p.SwitchProfile(t.Context(), strings.TrimPrefix(op, "profile:"))
		return err
	case strings.HasPrefix(op, "rollback:"):
		n, _ := strconv.Atoi(strings.TrimPrefix(op, "rollback:"))
		_, err := p.Rollback(t.Context(), n)
		return err
	}
	return fmt.Errorf("unknown child op %q", op)
}

// childSet is the set a "set" child applies.
type childSet struct {
	Pins  []lock.Entry
	Prune bool
}

// crashWalk runs op over a copy of base to the end (the reference), then
// once for every step boundary with a death there followed by a recovery
// (an Open), and checks that each time the machine holds the old set or
// the new set, whole; that it holds the new one whenever the death came at
// or after the step named commit ("" when a recovery always finishes the
// job); and that every archive a kept generation needs is kept.
func crashWalk(t *testing.T, base, op string, keep int, commit string) {
	crashWalkCheck(t, base, op, keep, commit, nil)
}

// crashWalkCheck is crashWalk, with check (when not nil) called on every
// recovered machine, told whether it holds the new set.
func crashWalkCheck(t *testing.T, base, op string, keep int, commit string, check func(t *testing.T, e *env, isNew bool)) {
	old := envAt(base).machine(t)
	ref := t.TempDir()
	copyTree(t, base, ref)
	stepsFile := filepath.Join(t.TempDir(), "steps")
	runChildOp(t, ref, 0, stepsFile, op, keep)
	steps := readSteps(t, stepsFile)
	want := envAt(ref).machine(t)
	if diffMachines(old, want) == "" {
		t.Fatalf("%s changes nothing", op)
	}
	at := len(steps) + 1
	if commit != "" {
		if at = slices.Index(steps, commit) + 1; at == 0 {
			t.Fatalf("no step %q among %v", commit, steps)
		}
	}
	for k := 1; k <= len(steps); k++ {
		t.Run(fmt.Sprintf("%02d-%s", k, steps[k-1]), func(t *testing.T) {
			root := t.TempDir()
			copyTree(t, base, root)
			if code := runChildOp(t, root, k, filepath.Join(root, "steps.log"), op, keep); code != 3 {
				t.Fatalf("child did not die at step %d", k)
			}
			for _, f := range inventoryNames {
				data, _ := os.ReadFile(filepath.Join(root, "at-death-"+f))
				if string(data) != old["inventory/"+f] && string(data) != want["inventory/"+f] {
					t.Fatalf("%s at death is neither the old nor the new file:\n%s", f, data)
				}
			}
			runChildOp(t, root, 0, filepath.Join(root, "steps2.log"), "open", keep)
			e := envAt(root)
			got := e.machine(t)
			switch {
			case diffMachines(got, want) == "":
			case k >= at:
				t.Fatalf("death at step %d (at or after %s): the machine is not the new set:\n%s", k, commit, diffMachines(got, want))
			case diffMachines(got, old) != "":
				t.Fatalf("death at step %d: the machine is neither the old set nor the new one:\nagainst the old:\n%s\nagainst the new:\n%s",
					k, diffMachines(got, old), diffMachines(got, want))
			}
			checkKept(t, e)
			if check != nil {
				check(t, e, diffMachines(got, want) == "")
			}
			for _, d := range []string{store.ProcessingDir, store.StagingDir, store.IncomingDir} {
				if left := listFiles(t, filepath.Join(e.state, d)); len(left) != 0 {
					t.Errorf("%s holds %v after recovery", d, left)
				}
			}
		})
	}
}

// checkKept checks that every archive the installed packs and the kept
// generations need is in the store, and nothing else is.
func checkKept(t *testing.T, e *env) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(e.state, store.StateFileName))
	if err != nil {
		t.Fatal(err)
	}
	var st store.State
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatal(err)
	}
	if st.PendingSet != nil || len(st.PendingArchives) > 0 {
		t.Errorf("after recovery the state still has work pending: set %v, archives %v", st.PendingSet, st.PendingArchives)
	}
	need := neededKeys(&st)
	have := map[string]bool{}
	for _, f := range listFiles(t, filepath.Join(e.state, store.ArchivesDir)) {
		k := store.KeyOfKept(f)
		have[k] = true
		if !need[k] {
			t.Errorf("kept archive %s is needed by no pack and no kept generation", f)
		}
	}
	for k := range need {
		if !have[k] {
			t.Errorf("the archive %s a kept generation needs is gone", k)
		}
	}
}

func TestCrashAtEveryStepOfSetApply(t *testing.T) {
	skipUnderRace(t)
	if testing.Short() {
		t.Skip("spawns one child process per step")
	}
	base := t.TempDir()
	e := envAt(base)
	e.dropPack(t, "gates.zip", spec{id: "lockout-gates", version: "0.4.0", doors: 2, content: map[string]string{"g.pak": "gates 0.4", "new.pak": "only in 0.4"}})
	e.dropPack(t, "glass.zip", spec{id: "glass-works", version: "1.0.0", lifts: 1, content: map[string]string{"glass.pak": "glass"}})
	e.dropPack(t, "keep.zip", spec{id: "keep-pack", version: "1.0.0", lifts: 1})
	p := e.open(t)
	mustSync(t, p, map[string]Result{"gates.zip": ResultInstalled, "glass.zip": ResultInstalled, "keep.zip": ResultInstalled})
	p.Close()
	set := &archiveSet{dir: filepath.Join(base, "setsrc"), bySHA: map[string]string{}}
	st, _ := os.ReadFile(filepath.Join(e.state, store.StateFileName))
	var state store.State
	json.Unmarshal(st, &state)
	keepPin := lock.Entry{ID: "keep-pack", Version: "1.0.0", SHA256: state.Find("keep-pack").ArchiveSHA256}
	req := childSet{Prune: true, Pins: []lock.Entry{
		set.add(t, spec{id: "lockout-gates", version: "0.3.1", doors: 2, content: map[string]string{"g.pak": "gates 0.3.1"}}),
		set.add(t, spec{id: "foundry-wide", version: "1.4.0", lifts: 2, content: map[string]string{"w1.pak": "wide", "w2.pak": "wider"}}),
		keepPin,
	}}
	data, _ := json.Marshal(req)
	if err := os.WriteFile(filepath.Join(base, "set.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	crashWalk(t, base, "set", 0, "journal")
}

func TestCrashAtEveryStepOfRollback(t *testing.T) {
	skipUnderRace(t)
	if testing.Short() {
		t.Skip("spawns one child process per step")
	}
	base := t.TempDir()
	e := envAt(base)
	p := e.open(t)
	e.dropPack(t, "gates-1.zip", spec{id: "lockout-gates", version: "0.3.1", doors: 2, content: map[string]string{"g.pak": "gates 0.3.1", "old.pak": "old"}})
	mustSync(t, p, map[string]Result{"gates-1.zip": ResultInstalled})
	e.dropPack(t, "gates-2.zip", spec{id: "lockout-gates", version: "0.4.0", doors: 3, content: map[string]string{"g.pak": "gates 0.4.0"}})
	e.dropPack(t, "wide.zip", spec{id: "foundry-wide", version: "1.4.0", lifts: 2, content: map[string]string{"w.pak": "wide"}})
	mustSync(t, p, map[string]Result{"gates-2.zip": ResultUpgraded, "wide.zip": ResultInstalled})
	p.Close()
	crashWalk(t, base, "rollback:1", 0, "journal")
}

func TestCrashAtEveryStepOfGenerationPruning(t *testing.T) {
	skipUnderRace(t)
	if testing.Short() {
		t.Skip("spawns one child process per step")
	}
	base := t.TempDir()
	e := envAt(base)
	e.keep = 2
	p := e.open(t)
	for i := range 3 {
		e.dropPack(t, fmt.Sprintf("v%d.zip", i), spec{id: "lift-pack", version: fmt.Sprintf("1.%d.0", i), lifts: 1, content: map[string]string{"l.pak": strconv.Itoa(i)}})
		want := ResultUpgraded
		if i == 0 {
			want = ResultInstalled
		}
		mustSync(t, p, map[string]Result{fmt.Sprintf("v%d.zip", i): want})
	}
	p.Close()
	e.dropPack(t, "v3.zip", spec{id: "lift-pack", version: "1.3.0", lifts: 1, content: map[string]string{"l.pak": "3"}})
	// The drop is claimed by the child's sync; once claimed, a recovery
	// finishes it, so the first boundary is the commit.
	crashWalk(t, base, "", 2, "claim:v3.zip")
}
