package daemon

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/installer/intake/intaketest"
	"github.com/mjolnir-forge/forgesync/installer/store"
)

// unpackChildren returns the pids of this process's children that run
// as the test extractor's unpacker.
func unpackChildren(t *testing.T) []string {
	t.Helper()
	var out []string
	tasks, _ := filepath.Glob("/proc/self/task/*/children")
	for _, f := range tasks {
		data, _ := os.ReadFile(f)
		for _, pid := range strings.Fields(string(data)) {
			env, _ := os.ReadFile(filepath.Join("/proc", pid, "environ"))
			if strings.Contains(string(env), "FORGESYNC_TEST_UNPACK_CHILD") {
				out = append(out, pid)
			}
		}
	}
	return out
}

// TestSyncDropWarmsAhead: a local sync with an archive in drop starts its
// unpacker while it opens the state, and no unpacker outlives the
// machine: the one the archive took ended with it, and one started for a
// sync that then failed (the state locked by another machine) is ended by
// Close.
func TestSyncDropWarmsAhead(t *testing.T) {
	opts := game(t)
	// An Extractor of its own: a daemon test's Serve closes the shared
	// one, and WarmOnce would then start nothing.
	opts.Extractor = intaketest.Extractor()
	t.Cleanup(func() { opts.Extractor.Close() })
	ctx := t.Context()
	m := New(opts)
	t.Cleanup(func() { m.Close() })
	dropPack(t, opts, "a.zip", "1.0.0")
	sum, err := m.SyncDrop(ctx)
	if err != nil || len(sum.Outcomes) != 1 || sum.Outcomes[0].Result != api.ResultInstalled {
		t.Fatalf("SyncDrop = %+v, %v; want a.zip installed", sum, err)
	}
	if !m.warmed {
		t.Error("the sync started no unpacker ahead")
	}
	if kids := unpackChildren(t); len(kids) != 0 {
		t.Errorf("unpackers %v run after the sync; want none", kids)
	}
	// m holds the state's lock: other's sync fails after its unpacker
	// was started ahead.
	dropPack(t, opts, "b.zip", "1.1.0")
	other := New(Options{Config: opts.Config, Log: opts.Log, LockWait: 10 * time.Millisecond, Extractor: opts.Extractor})
	if _, err := other.SyncDrop(ctx); !errors.Is(err, store.ErrLocked) {
		t.Fatalf("SyncDrop beside a machine holding the lock = %v; want ErrLocked", err)
	}
	if !other.warmed {
		t.Fatal("the failed sync started no unpacker ahead; the test tests nothing")
	}
	other.Close()
	if kids := unpackChildren(t); len(kids) != 0 {
		t.Errorf("unpackers %v run after Close; want none", kids)
	}
}
