package export

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/sets/casync"
	"github.com/mjolnir-forge/forgesync/sets/settest"
)

// TestPruneExport exports two packs, then one: prune removes the archive
// the new lock no longer pins, and nothing export did not write (other
// names, other extensions, folders, a half-written copy).
func TestPruneExport(t *testing.T) {
	kept, _ := keptPacks(t)
	out := t.TempDir()
	if _, err := Export(t.Context(), out, "", kept, "", nil); err != nil {
		t.Fatal(err)
	}
	pdir := filepath.Join(out, "packs")
	gone := kept[1].SHA256 + kept[1].Ext
	others := []string{
		"README.txt",
		strings.Repeat("a", 64) + ".exe",                 // not an archive extension
		strings.Repeat("A", 64) + ".zip",                 // not a lower-case SHA-256
		strings.Repeat("b", 63) + ".zip",                 // too short
		".forgesync-" + strings.Repeat("c", 64) + ".zip", // a temporary name
	}
	for _, n := range others {
		os.WriteFile(filepath.Join(pdir, n), []byte("x"), 0o644)
	}
	os.Mkdir(filepath.Join(pdir, strings.Repeat("d", 64)+".zip"), 0o755)
	l, err := Export(t.Context(), out, "", kept[:1], "", nil)
	if err != nil {
		t.Fatal(err)
	}
	removed, indexes, err := pruneExport(out, l)
	if err != nil || !slices.Equal(removed, []string{gone}) || len(indexes) != 1 || !strings.HasSuffix(indexes[0], casync.IndexExt) {
		t.Fatalf("pruneExport = %v, %v, %v; want [%s] and its chunk index", removed, indexes, err, gone)
	}
	names := settest.DirNames(t, pdir)
	want := append([]string{kept[0].SHA256 + kept[0].Ext, kept[0].SHA256 + casync.IndexExt, strings.Repeat("d", 64) + ".zip"}, others...)
	slices.Sort(names)
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("packs/ = %v\nwant %v", names, want)
	}
	// Nothing more to remove the second time.
	if removed, indexes, err := pruneExport(out, l); err != nil || len(removed)+len(indexes) != 0 {
		t.Errorf("pruneExport again = %v, %v, %v; want nothing", removed, indexes, err)
	}
}
