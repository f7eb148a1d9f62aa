package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/installer/store"
	"github.com/mjolnir-forge/forgesync/internal/errkind"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// archiveSet is a folder of pack archives served by SHA-256, as a fetcher
// would hand them to ApplySet.
type archiveSet struct {
	dir     string
	bySHA   map[string]string
	asked   []string // the ids the pipeline asked for
	broken  bool     // serve another pack's archive than asked for
	damaged bool     // serve bytes that are no archive at all
}

func newArchiveSet(t testing.TB) *archiveSet {
	return &archiveSet{dir: t.TempDir(), bySHA: map[string]string{}}
}

// add writes s as an archive and returns its pin.
func (a *archiveSet) add(t testing.TB, s spec) lock.Entry {
	t.Helper()
	path := filepath.Join(a.dir, fmt.Sprintf("%s-%s-%d.zip", s.id, s.version, len(a.bySHA)))
	s.zip(t, path)
	sha := fileSHA(t, path)
	a.bySHA[sha] = path
	return lock.Entry{ID: s.id, Version: s.version, SHA256: sha}
}

func (a *archiveSet) source(_ context.Context, pin lock.Entry) (string, error) {
	a.asked = append(a.asked, pin.ID)
	if a.damaged {
		p := filepath.Join(a.dir, "damaged-"+pin.ID)
		return p, os.WriteFile(p, []byte("PK\x03\x04 not the pinned bytes"), 0o644)
	}
	if a.broken {
		for _, p := range a.bySHA {
			if !strings.Contains(p, pin.ID) {
				return p, nil
			}
		}
	}
	p, ok := a.bySHA[pin.SHA256]
	if !ok {
		return "", errors.New("not in the test set")
	}
	return p, nil
}

func fileSHA(t testing.TB, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// machine is everything a user sees of an installed set: the four
// inventory files and every file of the paks tree with its bytes.
func (e *env) machine(t testing.TB) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, f := range inventoryNames {
		out["inventory/"+f] = e.inv(f)
	}
	for _, f := range listFiles(t, e.paks) {
		data, err := os.ReadFile(filepath.Join(e.paks, filepath.FromSlash(f)))
		if err != nil {
			t.Fatal(err)
		}
		out["paks/"+f] = string(data)
	}
	return out
}

func diffMachines(got, want map[string]string) string {
	var out []string
	for k, v := range want {
		if g, ok := got[k]; !ok {
			out = append(out, "missing "+k)
		} else if g != v {
			out = append(out, "differs "+k+":\n"+g+"\nwant\n"+v)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			out = append(out, "extra "+k)
		}
	}
	slices.Sort(out)
	return strings.Join(out, "\n")
}

func TestApplySet(t *testing.T) {
	e := newEnv(t)
	p := e.open(t)
	e.dropPack(t, "gates-0.4.zip", spec{id: "lockout-gates", version: "0.4.0", doors: 2, content: map[string]string{"g.pak": "gates 0.4", "new.pak": "only in 0.4"}})
	e.dropPack(t, "glass.zip", spec{id: "glass-works", version: "1.0.0", lifts: 1, content: map[string]string{"glass.pak": "glass"}})
	mustSync(t, p, map[string]Result{"gates-0.4.zip": ResultInstalled, "glass.zip": ResultInstalled})

	set := newArchiveSet(t)
	gates := set.add(t, spec{id: "lockout-gates", version: "0.3.1", doors: 2, content: map[string]string{"g.pak": "gates 0.3.1"}})
	wide := set.add(t, spec{id: "foundry-wide", version: "1.4.0", lifts: 2, content: map[string]string{"wide.pak": "wide"}})
	pins := []lock.Entry{wide, gates}

	sum, err := p.ApplySet(t.Context(), pins, SetOptions{Source: set.source})
	if err != nil {
		t.Fatalf("ApplySet = %v", err)
	}
	r := sum.Set
	if want := []SetChange{{ID: "foundry-wide", Version: "1.4.0"}}; !slices.Equal(r.Installed, want) {
		t.Errorf("Installed = %v; want %v", r.Installed, want)
	}
	if want := []SetChange{{ID: "lockout-gates", Version: "0.3.1", Previous: "0.4.0"}}; !slices.Equal(r.Downgraded, want) {
		t.Errorf("Downgraded = %v; want %v (a pinned set is authoritative)", r.Downgraded, want)
	}
	if !slices.Equal(r.Disabled, []string{"glass-works"}) || len(r.Removed) != 0 || len(r.Upgraded) != 0 {
		t.Errorf("Disabled = %v, Removed = %v, Upgraded = %v; want glass-works disabled only", r.Disabled, r.Removed, r.Upgraded)
	}
	if want := lock.Fingerprint(pins); r.Fingerprint != want || sum.Generation == 0 || r.Generation != sum.Generation {
		t.Errorf("Fingerprint = %s, generation %d/%d; want %s and a generation", r.Fingerprint, r.Generation, sum.Generation, want)
	}
	m := e.machine(t)
	if m["paks/MJOLNIRForge/lockout-gates/g.pak"] != "gates 0.3.1" || m["paks/MJOLNIRForge/lockout-gates/new.pak"] != "" {
		t.Errorf("gates content after the downgrade: %v", m)
	}
	if strings.Contains(m["inventory/installed.txt"], "glass-works") || !strings.Contains(m["inventory/installed.json"], `"id": "glass-works"`) {
		t.Errorf("glass-works should be installed and disabled:\n%s", m["inventory/installed.txt"])
	}

	// The same set again: nothing to do, nothing published, nothing fetched.
	set.asked = nil
	sum, err = p.ApplySet(t.Context(), pins, SetOptions{Source: set.source})
	if err != nil || len(sum.Published) != 0 || sum.Generation != 0 || sum.Set.Changed() || len(set.asked) != 0 {
		t.Fatalf("second ApplySet = %+v, %v (asked %v); want nothing done", sum, err, set.asked)
	}
	if got := e.machine(t); diffMachines(got, m) != "" {
		t.Fatalf("an idle apply changed the machine: %s", diffMachines(got, m))
	}

	// --prune removes what the set does not pin.
	sum, err = p.ApplySet(t.Context(), pins, SetOptions{Prune: true})
	if err != nil || !slices.Equal(sum.Set.Removed, []string{"glass-works"}) {
		t.Fatalf("ApplySet(prune) = %+v, %v; want glass-works removed", sum, err)
	}
	if _, err := os.Stat(filepath.Join(e.paks, "MJOLNIRForge", "glass-works")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("glass-works content still there: %v", err)
	}
	if strings.Contains(e.inv("installed.json"), "glass-works") {
		t.Errorf("installed.json still names glass-works")
	}
	e.storedManifestsNamed(t)
}

// storedManifestsNamed checks that the stored manifests are exactly those
// the state names: replaced and removed packs' went with the transaction
// that dropped them.
func (e *env) storedManifestsNamed(t *testing.T) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(e.state, "packs.json"))
	if err != nil {
		t.Fatal(err)
	}
	var st store.State
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatal(err)
	}
	var named []string
	for _, r := range st.Packs {
		named = append(named, r.Manifest)
	}
	slices.Sort(named)
	if got := listFiles(t, filepath.Join(e.state, store.ManifestsDir)); !slices.Equal(got, named) {
		t.Errorf("stored manifests = %v; want those the state names, %v", got, named)
	}
}

func TestApplySetRefusedWhole(t *testing.T) {
	skipUnderRace(t)
	e := newEnv(t)
	p := e.open(t)
	e.dropPack(t, "base.zip", spec{id: "base-pack", version: "1.0.0", doors: 1, content: map[string]string{"b.pak": "b"}})
	mustSync(t, p, map[string]Result{"base.zip": ResultInstalled})
	before := e.machine(t)
	keptBefore := listFiles(t, filepath.Join(e.state, store.ArchivesDir))
	stateBefore, _ := os.ReadFile(filepath.Join(e.state, store.StateFileName))

	set := newArchiveSet(t)
	big := []lock.Entry{
		set.add(t, spec{id: "doors-one", version: "1.0.0", doors: 100}),
		set.add(t, spec{id: "doors-two", version: "1.0.0", doors: 100}),
		set.add(t, spec{id: "doors-three", version: "1.0.0", doors: 100}),
	}
	tests := []struct {
		name            string
		pins            []lock.Entry
		broken, damaged bool
		want            error
		words           []string
	}{
		{"over 256 doors", big, false, false, errkind.Refused, []string{"doors-one (100)", "doors-three (100)", "doors-two (100)", "300"}},
		{"wrong bytes", big[:1], true, false, errArchiveMismatch, []string{"doors-one", "want " + big[0].SHA256}},
		// Bytes that do not unpack are named for what they are, not an
		// invalid pack.
		{"damaged bytes", big[:1], false, true, errArchiveMismatch, []string{"doors-one", "want " + big[0].SHA256}},
		{"not kept, no source", []lock.Entry{{ID: "gone-pack", Version: "1.0.0", SHA256: strings.Repeat("ab", 32)}}, false, false, ErrNoArchive, []string{"gone-pack"}},
		{"version not the archive's", []lock.Entry{{ID: "doors-one", Version: "2.0.0", SHA256: big[0].SHA256}}, false, false, errkind.Refused, []string{"doors-one 2.0.0 is pinned to an archive holding doors-one 1.0.0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set.broken, set.damaged = tt.broken, tt.damaged
			src := set.source
			if tt.want == ErrNoArchive {
				src = nil
			}
			_, err := p.ApplySet(t.Context(), tt.pins, SetOptions{Source: src, Prune: true})
			if !errors.Is(err, tt.want) {
				t.Fatalf("ApplySet = %v; want %v", err, tt.want)
			}
			for _, w := range tt.words {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if got := e.machine(t); diffMachines(got, before) != "" {
				t.Errorf("a refused set changed the machine: %s", diffMachines(got, before))
			}
			if got := listFiles(t, filepath.Join(e.state, store.ArchivesDir)); !slices.Equal(got, keptBefore) {
				t.Errorf("kept archives = %v; want %v", got, keptBefore)
			}
			for _, d := range []string{store.IncomingDir, store.StagingDir} {
				if left := listFiles(t, filepath.Join(e.state, d)); len(left) != 0 {
					t.Errorf("%s holds %v", d, left)
				}
			}
			if st, _ := os.ReadFile(filepath.Join(e.state, store.StateFileName)); string(st) != string(stateBefore) {
				t.Errorf("the state file changed")
			}
		})
	}
}

// TestApplySetRetakesDamagedLeftover: a copy in incoming/ whose bytes are
// not the pin's (damaged since an interrupted apply left it) is removed
// and taken from the source again; with no source the apply fails naming
// it, and the next apply does not meet it again.
func TestApplySetRetakesDamagedLeftover(t *testing.T) {
	e := newEnv(t)
	p := e.open(t)
	set := newArchiveSet(t)
	pin := set.add(t, spec{id: "glass-works", version: "1.0.0", lifts: 1, content: map[string]string{"glass.pak": "glass"}})
	leftover := filepath.Join(e.state, store.IncomingDir, pin.SHA256)
	damage := func() {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(leftover), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(leftover, []byte("PK\x03\x04 damaged"), 0o600); err != nil {
			t.Fatal(err)
		}
	}

	damage()
	_, err := p.ApplySet(t.Context(), []lock.Entry{pin}, SetOptions{})
	if !errors.Is(err, errArchiveMismatch) || !strings.Contains(err.Error(), leftover) {
		t.Fatalf("ApplySet without a source = %v; want ErrArchiveMismatch naming %s", err, leftover)
	}
	if _, err := os.Stat(leftover); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the damaged copy is still in incoming/ (%v)", err)
	}

	damage()
	if _, err := p.ApplySet(t.Context(), []lock.Entry{pin}, SetOptions{Source: set.source}); err != nil {
		t.Fatalf("ApplySet = %v; want the archive taken again from the source", err)
	}
	if !slices.Equal(set.asked, []string{"glass-works"}) {
		t.Errorf("asked the source for %v; want glass-works once", set.asked)
	}
	if got := e.machine(t)["paks/MJOLNIRForge/glass-works/glass.pak"]; got != "glass" {
		t.Errorf("glass.pak = %q; want the pinned pack installed", got)
	}
}
