package follow

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/installer/store"
	"github.com/mjolnir-forge/forgesync/sets/casync"
	"github.com/mjolnir-forge/forgesync/sets/fetch"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// TestSeeds: a pack's seed is the archive of its installed version, found
// under archives/ by its kept name or in the cache by its SHA-256; its
// index is kept in the cache. Indexes of archives neither cached nor
// installed are pruned after a sync.
func TestSeeds(t *testing.T) {
	state := t.TempDir()
	shaA, shaB, shaC := strings.Repeat("a", 64), strings.Repeat("b", 64), strings.Repeat("c", 64)
	w := &fakeWriter{installed: []lock.Installed{
		{ID: "alpha-pack", Version: "1.0.0", SHA256: shaA, Enabled: true},
		{ID: "beta-pack", Version: "1.0.0", SHA256: shaB},
	}}
	s, err := New(w, Options{State: state})
	if err != nil {
		t.Fatal(err)
	}
	kept := filepath.Join(state, store.ArchivesDir, store.KeptKey("alpha-pack", "1.0.0", shaA)+".zip")
	os.MkdirAll(filepath.Dir(kept), 0o700)
	os.WriteFile(kept, []byte("alpha"), 0o644)
	os.WriteFile(s.cache.Path(shaB), []byte("beta"), 0o444)
	seeds, err := s.seeds()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		pack lock.Pack
		want []fetch.Seed
	}{
		{lock.Pack{ID: "alpha-pack", Version: "2.0.0", SHA256: shaC}, []fetch.Seed{{Path: kept, Index: s.cache.Path(shaA) + casync.IndexExt}}},
		{lock.Pack{ID: "beta-pack", Version: "2.0.0", SHA256: shaC}, []fetch.Seed{{Path: s.cache.Path(shaB), Index: s.cache.Path(shaB) + casync.IndexExt}}},
		{lock.Pack{ID: "alpha-pack", Version: "1.0.0", SHA256: shaA}, nil}, // the same archive seeds nothing
		{lock.Pack{ID: "gamma-pack", Version: "1.0.0", SHA256: shaC}, nil},
	} {
		if got := seeds(tc.pack); !slices.Equal(got, tc.want) {
			t.Errorf("seeds(%s %s) = %+v; want %+v", tc.pack.ID, tc.pack.Version, got, tc.want)
		}
	}

	// Indexes: alpha's (installed, kept elsewhere) and beta's (cached)
	// stay; one of an archive gone from both goes.
	for _, sha := range []string{shaA, shaB, shaC} {
		os.WriteFile(s.cache.Path(sha)+casync.IndexExt, []byte("x"), 0o644)
	}
	w.installed = w.installed[:1]
	s.pruneIndexes()
	for sha, want := range map[string]bool{shaA: true, shaB: true, shaC: false} {
		if _, err := os.Stat(s.cache.Path(sha) + casync.IndexExt); (err == nil) != want {
			t.Errorf("index of %s…: kept %v; want %v", sha[:4], err == nil, want)
		}
	}
}
