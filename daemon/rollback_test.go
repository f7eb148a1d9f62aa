package daemon

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/mjolnir-forge/forgesync/installer/intake"
	"github.com/mjolnir-forge/forgesync/installer/store"
	"github.com/mjolnir-forge/forgesync/pipeline"
)

// dropPack writes a minimal valid pack of version v into the drop folder.
func dropPack(t *testing.T, opts Options, name, v string) {
	t.Helper()
	manifest := fmt.Sprintf(`{"schema":1,"id":"rb-pack","version":%q,"name":"Pack","authors":["Tester"],"pieces":[{"id":"deck","kind":"block","tag":"mjolnir\\forge\\rb-pack\\deck","class":"/Game/MJOLNIR/Forge/rb-pack/Blocks/BP_Deck.BP_Deck_C","dimensions_m":[2,2,0.5]}]}`, v)
	fsys := fstest.MapFS{"forgepack.json": {Data: []byte(manifest)}}
	var buf bytes.Buffer
	if err := intake.WritePackZip(&buf, fsys, []intake.File{{Path: "forgepack.json", Size: int64(len(manifest))}}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(opts.Config.Paths.Drop, name), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRollbackNotKeptIsRefused: a rollback to a generation whose archive
// the store no longer keeps is refused (exit 1, as the README says), not a
// failure (exit 2).
func TestRollbackNotKeptIsRefused(t *testing.T) {
	ctx := t.Context()
	opts := game(t)
	m := New(opts)
	defer m.Close()
	for _, v := range []string{"1.0.0", "1.1.0"} {
		dropPack(t, opts, "rb-"+v+".zip", v)
		if sum, err := m.SyncDrop(ctx); err != nil || len(sum.Outcomes) != 1 {
			t.Fatalf("Sync of %s = %+v, %v", v, sum, err)
		}
	}
	kept := filepath.Join(opts.Config.Paths.State, store.ArchivesDir)
	entries, err := os.ReadDir(kept)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.Contains(e.Name(), "1.0.0") {
			if err := os.Remove(filepath.Join(kept, e.Name())); err != nil {
				t.Fatal(err)
			}
		}
	}
	_, err = m.Rollback(ctx, 0)
	if !errors.Is(err, pipeline.ErrNoArchive) || !isRefused(err) {
		t.Fatalf("Rollback to a generation not kept = %v; want a refusal matching ErrNoArchive", err)
	}
}
