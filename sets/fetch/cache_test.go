package fetch

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/sets/lock"
)

func TestCacheEvictLRU(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	c, err := NewCache(filepath.Join(t.TempDir(), "cache"), 3000, clock)
	if err != nil {
		t.Fatal(err)
	}
	var shas []string
	for i := range 5 { // five archives of 1,000 bytes, used a minute apart
		sha := fmt.Sprintf("%064x", i+1)
		src := filepath.Join(t.TempDir(), "a.zip")
		os.WriteFile(src, make([]byte, 1000), 0o644)
		if err := c.Put(sha, src); err != nil {
			t.Fatal(err)
		}
		shas = append(shas, sha)
		now = now.Add(time.Minute)
	}
	// Using the oldest makes it the newest.
	if err := c.Touch(shas[0]); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(c.Dir(), "notes.txt"), []byte("not an archive"), 0o644)
	os.WriteFile(filepath.Join(c.Dir(), ".forgesync-tmp-"+shas[4]+"-abc"), []byte("partial"), 0o644)

	pinned := func(sha string) bool { return sha == shas[1] }
	removed, err := c.Evict(pinned)
	if err != nil {
		t.Fatal(err)
	}
	// Order by use: 1 (pinned), 2, 3, 4, 0. Over by 2,000: 2 and 3 go.
	if want := []string{shas[2], shas[3]}; !slices.Equal(removed, want) {
		t.Errorf("Evict removed %v; want %v", removed, want)
	}
	for i, want := range []bool{true, true, false, false, true} {
		if got := c.Has(shas[i], 1000); got != want {
			t.Errorf("Has(archive %d) = %v; want %v", i, got, want)
		}
	}
	if _, err := os.Stat(filepath.Join(c.Dir(), "notes.txt")); err != nil {
		t.Errorf("Evict removed a file it does not own: %v", err)
	}
	if _, err := os.Stat(filepath.Join(c.Dir(), ".forgesync-tmp-"+shas[4]+"-abc")); !os.IsNotExist(err) {
		t.Errorf("Evict left a partial download: %v", err)
	}
	if c.Has(shas[0], 999) {
		t.Errorf("Has with the wrong size = true")
	}

	// Everything pinned: the cache stays over its bound.
	c2, _ := NewCache(c.Dir(), 1, clock)
	if removed, err := c2.Evict(func(string) bool { return true }); err != nil || len(removed) != 0 {
		t.Errorf("Evict(all pinned) = %v, %v", removed, err)
	}
	// No bound: nothing goes.
	c3, _ := NewCache(c.Dir(), 0, clock)
	if removed, _ := c3.Evict(nil); len(removed) != 0 {
		t.Errorf("Evict(no bound) = %v", removed)
	}
}

// TestCacheWithFetcher fetches into the cache, and a second fetch needs no
// request.
func TestCacheWithFetcher(t *testing.T) {
	m := newMirror(t)
	data, p := archive("cached-pack", 4000)
	m.files["/c.zip"] = data
	p.URLs = []string{m.url("/c.zip")}
	c, err := NewCache(filepath.Join(t.TempDir(), "cache"), 1<<20, nil)
	if err != nil {
		t.Fatal(err)
	}
	f := &Fetcher{Dir: c.Dir()}
	if _, err := f.Fetch(t.Context(), Source{}, []lock.Pack{p}); err != nil {
		t.Fatal(err)
	}
	if !c.Has(p.SHA256, p.Size) {
		t.Fatalf("the fetched archive is not in the cache")
	}
	if _, err := f.Fetch(t.Context(), Source{}, []lock.Pack{p}); err != nil || len(m.requests()) != 1 {
		t.Errorf("second Fetch = %v with %d requests; want 1 request in all", err, len(m.requests()))
	}
	es, _ := c.Entries()
	if len(es) != 1 || es[0].SHA256 != p.SHA256 || es[0].Size != 4000 {
		t.Errorf("Entries = %+v", es)
	}
}
