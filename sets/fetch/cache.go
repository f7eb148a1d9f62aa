package fetch

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
	"github.com/mjolnir-forge/forgesync/sets/casync"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// Cache is the folder of archives kept by content (state/cache/, SPEC
// §10.2): downloaded archives and superseded ones, so that applying a set
// again needs no network. Each file is named by its SHA-256; its
// modification time records when it was last used. The cache is bounded by
// a byte count: [Cache.Evict] removes the least recently used archives
// first, never one the caller pins. Fetch into it with a [Fetcher] whose
// Dir is the cache's.
//
// A Cache is safe for use by several goroutines of one process; two
// processes sharing a folder may evict each other's archives, which costs a
// download, never a wrong byte.
type Cache struct {
	dir string
	max int64
	now func() time.Time

	mu     sync.Mutex     // guards pinned
	pinned map[string]int // SHA-256 → how many Pin calls hold it
}

// CacheEntry is one archive in the cache.
type CacheEntry struct {
	SHA256 string
	Size   int64
	Used   time.Time
}

// NewCache returns the cache in dir, bounded by max bytes (0 or less: no
// bound), creating the folder when needed. now is the clock; nil means
// time.Now.
func NewCache(dir string, max int64, now func() time.Time) (*Cache, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	if now == nil {
		now = time.Now
	}
	return &Cache{dir: dir, max: max, now: now}, nil
}

// Dir returns the cache's folder.
func (c *Cache) Dir() string { return c.dir }

// Path returns where the archive with this SHA-256 is, or would be.
func (c *Cache) Path(sha string) string { return filepath.Join(c.dir, sha) }

// Has reports whether the cache holds the archive with this SHA-256 and,
// when size is positive, of this size. It does not read the bytes: use
// [lock.VerifyFile] (or fetch, which verifies) before using the archive.
func (c *Cache) Has(sha string, size int64) bool {
	if !lock.IsSHA256(sha) {
		return false
	}
	st, err := os.Stat(c.Path(sha))
	return err == nil && st.Mode().IsRegular() && (size <= 0 || st.Size() == size)
}

// Touch marks an archive as used now, so that eviction keeps it longest.
func (c *Cache) Touch(sha string) error {
	if !lock.IsSHA256(sha) {
		return fmt.Errorf("cache: %q is not a SHA-256", sha)
	}
	t := c.now()
	if err := os.Chtimes(c.Path(sha), t, t); err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	return nil
}

// Put moves the file at src, whose content the caller knows has this
// SHA-256 (an archive it checked, or one the store superseded), into the
// cache, read-only (0444) and marked used now. src must be on the same
// file system as the cache.
func (c *Cache) Put(sha, src string) error {
	if !lock.IsSHA256(sha) {
		return fmt.Errorf("cache: %q is not a SHA-256", sha)
	}
	if err := os.Chmod(src, 0o444); err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	// A read-only file cannot be replaced by a rename on Windows.
	if err := os.Remove(c.Path(sha)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("cache: %w", err)
	}
	if err := (atomicfile.Renamer{}).Replace(src, c.Path(sha)); err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	if err := atomicfile.SyncDir(c.dir); err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	return c.Touch(sha)
}

// Entries lists the archives in the cache, least recently used first (ties
// by name). Files that are not archives by content name are left out.
func (c *Cache) Entries() ([]CacheEntry, error) {
	es, err := os.ReadDir(c.dir)
	if err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	var out []CacheEntry
	for _, e := range es {
		if !e.Type().IsRegular() || !lock.IsSHA256(e.Name()) {
			continue
		}
		info, err := e.Info()
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("cache: %w", err)
		}
		out = append(out, CacheEntry{SHA256: e.Name(), Size: info.Size(), Used: info.ModTime()})
	}
	slices.SortFunc(out, func(a, b CacheEntry) int {
		return cmp.Or(a.Used.Compare(b.Used), cmp.Compare(a.SHA256, b.SHA256))
	})
	return out, nil
}

// Pin holds the archives with these SHA-256 out of [Cache.Evict] until the
// returned release is called (once; later calls do nothing): a set apply
// pins what it verified, so that no eviction takes it meanwhile. Pins
// nest.
func (c *Cache) Pin(shas ...string) (release func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pinned == nil {
		c.pinned = map[string]int{}
	}
	for _, sha := range shas {
		c.pinned[sha]++
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			for _, sha := range shas {
				if c.pinned[sha]--; c.pinned[sha] <= 0 {
					delete(c.pinned, sha)
				}
			}
		})
	}
}

// isPinned reports whether a Pin holds the archive with this SHA-256.
func (c *Cache) isPinned(sha string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.pinned[sha] > 0
}

// Evict removes the temp files of interrupted downloads, then the least
// recently used archives until the cache is within its bound, skipping the
// archives pinned reports as needed (a kept generation) and those a
// [Cache.Pin] holds (the set being applied). Pinned archives may keep the cache over its bound. It
// returns the SHA-256 of each archive it removed. Call it when no Fetch is
// writing into the folder: a download's temp file looks like a leftover.
func (c *Cache) Evict(pinned func(sha string) bool) ([]string, error) {
	if _, err := atomicfile.CleanTemps(c.dir); err != nil {
		return nil, err
	}
	entries, err := c.Entries()
	if err != nil {
		return nil, err
	}
	if c.max <= 0 {
		return nil, nil
	}
	var total int64
	for _, e := range entries {
		total += e.Size
	}
	var removed []string
	for _, e := range entries {
		if total <= c.max {
			break
		}
		if c.isPinned(e.SHA256) || pinned != nil && pinned(e.SHA256) {
			continue
		}
		if err := os.Remove(c.Path(e.SHA256)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return removed, fmt.Errorf("cache: %w", err)
		}
		total -= e.Size
		removed = append(removed, e.SHA256)
	}
	return removed, nil
}

// PruneIndexes removes the chunk indexes kept in the cache as
// <sha256>.caibx (SPEC §10.2a) whose archive is not in the cache and that
// keep does not name (an installed archive kept elsewhere), and returns
// how many it removed.
func (c *Cache) PruneIndexes(keep func(sha string) bool) (int, error) {
	es, err := os.ReadDir(c.dir)
	if err != nil {
		return 0, fmt.Errorf("cache: %w", err)
	}
	n := 0
	for _, e := range es {
		sha, ok := strings.CutSuffix(e.Name(), casync.IndexExt)
		if !ok || !lock.IsSHA256(sha) || !e.Type().IsRegular() || c.Has(sha, 0) || keep != nil && keep(sha) {
			continue
		}
		if err := os.Remove(filepath.Join(c.dir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return n, fmt.Errorf("cache: %w", err)
		}
		n++
	}
	return n, nil
}
