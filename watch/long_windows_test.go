//go:build windows

package watch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestWatcherLongDropPath: a drop folder whose path is longer than
// MAX_PATH is watched (fsnotify gets its \\?\ form) and a file dropped into
// it is reported by its plain name. It makes its own folder rather than
// t.TempDir, whose cleanup wine cannot run.
func TestWatcherLongDropPath(t *testing.T) {
	base, err := os.MkdirTemp("", "forgesync-long-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(base)
	drop := base
	for len(drop) < 300 {
		drop = filepath.Join(drop, strings.Repeat("d", 40))
	}
	drop = filepath.Join(drop, "drop")
	got, batches := realWatcherAt(t, drop, 20*time.Millisecond, time.Millisecond)
	if got != drop {
		t.Fatalf("drop = %s; want %s", got, drop)
	}
	writeFile(t, filepath.Join(drop, "long.zip"), 100)
	select {
	case names := <-batches:
		if len(names) != 1 || names[0] != "long.zip" {
			t.Fatalf("batch = %q; want [long.zip]", names)
		}
	case <-time.After(testWait):
		t.Fatalf("no batch from a drop folder of %d characters", len(drop))
	}
}
