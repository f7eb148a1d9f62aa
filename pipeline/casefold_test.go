package pipeline

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/installer/place"
	"github.com/mjolnir-forge/forgesync/internal/toolcheck"
)

// renameCases are pairs of versions of one pack whose content differs in
// the spelling of its names: each case is upgraded from old to new and
// rolled back, on a case-insensitive volume (where the old and the new
// name are one file) and on this machine's own.
var renameCases = []struct {
	name     string
	old, new map[string]string
}{
	{"case only", map[string]string{"Map.pak": "map 1", "keep.pak": "keep 1"}, map[string]string{"MAP.pak": "map 2", "keep.pak": "keep 2"}},
	{"case only, same bytes", map[string]string{"Map.pak": "same"}, map[string]string{"map.PAK": "same"}},
	{"case of a folder", map[string]string{"Maps/a.pak": "a 1", "Maps/b.pak": "b 1"}, map[string]string{"MAPS/a.pak": "a 2", "MAPS/b.pak": "b 2"}},
	{"case of a folder, a file gone", map[string]string{"Maps/a.pak": "a 1", "Maps/b.pak": "b 1"}, map[string]string{"maps/A.pak": "a 2"}},
	{"a file becomes a folder of another case", map[string]string{"Foo.pak": "foo 1", "z.pak": "z 1"}, map[string]string{"FOO.PAK/x.pak": "x 2", "z.pak": "z 2"}},
	{"a file becomes a folder of the same name", map[string]string{"foo.pak": "foo 1"}, map[string]string{"foo.pak/x.pak": "x 2"}},
	{"two names swap case", map[string]string{"a.pak": "a 1", "B.pak": "b 1"}, map[string]string{"A.pak": "a 2", "b.pak": "b 2"}},
}

// TestCaseInsensitiveUpgrades is the differential test of upgrades and
// rollbacks whose names change case: on a case-insensitive volume an
// upgrade from content/Map.pak to content/MAP.pak used to place the new
// file and then delete it as old content (the same file); now every pair
// installs exactly the new version's bytes and rolls back to exactly the
// old, on either kind of volume, with nothing left pending.
func TestCaseInsensitiveUpgrades(t *testing.T) {
	skipUnderRace(t)
	for _, fold := range []bool{false, true} {
		name := "this volume"
		if fold {
			name = "case-insensitive volume"
		}
		t.Run(name, func(t *testing.T) {
			for _, c := range renameCases {
				t.Run(c.name, func(t *testing.T) {
					root := t.TempDir()
					if fold {
						root = toolcheck.CaseInsensitiveDir(t)
					}
					e := envAt(root)
					p := e.open(t)
					e.dropPack(t, "v1.zip", spec{id: "pack-a", version: "1.0.0", content: c.old})
					mustSync(t, p, map[string]Result{"v1.zip": ResultInstalled})
					e.checkContent(t, p, c.old, fold)
					e.dropPack(t, "v2.zip", spec{id: "pack-a", version: "2.0.0", content: c.new})
					mustSync(t, p, map[string]Result{"v2.zip": ResultUpgraded})
					e.checkContent(t, p, c.new, fold)
					if _, err := p.Rollback(t.Context(), 0); err != nil {
						t.Fatalf("Rollback = %v", err)
					}
					e.checkContent(t, p, c.old, fold)
					// And forward again, by a rollback of the rollback.
					if _, err := p.Rollback(t.Context(), 0); err != nil {
						t.Fatalf("Rollback of the rollback = %v", err)
					}
					e.checkContent(t, p, c.new, fold)
				})
			}
		})
	}
}

// checkContent checks that pack-a's folder holds exactly want (content/
// names → bytes; names compared without case on a case-insensitive
// volume, where a folder keeps the case it was made with), that the state
// names each of those files, and that nothing waits to be removed.
func (e *env) checkContent(t *testing.T, p *Pipeline, want map[string]string, fold bool) {
	t.Helper()
	dir := filepath.Join(e.paks, place.ContentRoot, "pack-a")
	key := func(s string) string {
		if fold {
			return strings.ToLower(s)
		}
		return s
	}
	got := map[string]string{}
	for _, f := range listFiles(t, dir) {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f)))
		if err != nil {
			t.Fatal(err)
		}
		got[key(f)] = string(data)
	}
	wantKeyed := map[string]string{}
	for n, d := range want {
		wantKeyed[key(n)] = d
	}
	if !maps.Equal(got, wantKeyed) {
		t.Fatalf("pack folder holds %q; want exactly %q", got, wantKeyed)
	}
	st, err := p.state()
	if err != nil {
		t.Fatal(err)
	}
	rec := st.Find("pack-a")
	for _, c := range rec.Content {
		rel := strings.TrimPrefix(c, place.ContentRoot+"/pack-a/")
		if _, ok := got[key(rel)]; !ok {
			t.Errorf("the state names %s, which is not in the pack folder %q", c, got)
		}
	}
	if len(rec.Content) != len(want) {
		t.Errorf("the state names %q; want %d files", rec.Content, len(want))
	}
	if len(st.PendingRemovals) > 0 {
		t.Errorf("pending removals %q after a committed change; want none", st.PendingRemovals)
	}
}
