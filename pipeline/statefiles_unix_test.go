//go:build unix

package pipeline

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/installer/store"
)

// TestStateFileFIFO: a FIFO in place of a file the pipeline reads whole
// made Open or a sync wait for ever for a writer. Each is now handled at
// once by its file's rule: packs.json and a stored manifest are refused
// with the safe step, attempts.json is set aside, rejections.json starts
// over (and the list says it is damaged), an inventory file is refused by
// the publish rule for special files, and ReadHistory fails.
func TestStateFileFIFO(t *testing.T) {
	skipUnderRace(t)
	for _, tc := range []struct {
		name string
		path func(e *env) string
		// check looks at what Open and a sync returned.
		check func(t *testing.T, e *env, path string, err error)
	}{
		{"packs.json", func(e *env) string { return filepath.Join(e.state, store.StateFileName) }, refusedWithStep},
		{"manifest", func(e *env) string {
			return filepath.Join(e.state, store.ManifestsDir, listFiles(t, filepath.Join(e.state, store.ManifestsDir))[0])
		}, refusedWithStep},
		{"attempts.json", func(e *env) string { return filepath.Join(e.state, attemptsFile) }, func(t *testing.T, e *env, path string, err error) {
			if err != nil {
				t.Fatalf("Open and Sync = %v; want them to work", err)
			}
			if info, err := os.Stat(path + ".bad-20261203T070000Z"); err != nil || info.Mode()&os.ModeNamedPipe == 0 {
				t.Fatalf("the FIFO set aside: %v; want it there", err)
			}
		}},
		{"rejections.json", func(e *env) string { return filepath.Join(e.state, rejectionsFile) }, func(t *testing.T, e *env, path string, err error) {
			if err != nil {
				t.Fatalf("Open and Sync = %v; want them to work", err)
			}
			if _, err := Rejections(e.drop, e.state); err == nil || !strings.Contains(err.Error(), path) {
				t.Fatalf("Rejections with a FIFO as %s = %v; want an error naming it", path, err)
			}
		}},
		{"installed.txt", func(e *env) string { return filepath.Join(InventoryDir(e.mods), "installed.txt") }, func(t *testing.T, e *env, path string, err error) {
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "move it away") {
				t.Fatalf("Open and Sync with a FIFO as %s = %v; want the publish refusal naming it", path, err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			now := time.Date(2026, 12, 3, 7, 0, 0, 0, time.UTC)
			opts := e.options()
			opts.Now = func() time.Time { return now }
			p, _, err := Open(t.Context(), opts)
			if err != nil {
				t.Fatal(err)
			}
			e.dropPack(t, "good.zip", spec{id: "good-pack", version: "1.0.0", doors: 1})
			e.dropPack(t, "bad.zip", spec{id: "bad-pack", version: "1.0.0", doors: 1, bad: true})
			mustSync(t, p, map[string]Result{"good.zip": ResultInstalled, "bad.zip": ResultRejected})
			if err := p.saveAttempts(attempts{"late.zip": {Count: 2}}); err != nil {
				t.Fatal(err)
			}
			p.Close()
			path := tc.path(e)
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mkfifo(path, 0o600); err != nil {
				t.Fatal(err)
			}
			e.dropPack(t, "next.zip", spec{id: "next-pack", version: "1.0.0", doors: 1})
			done := make(chan error, 1)
			go func() {
				p, _, err := Open(t.Context(), opts)
				if err == nil {
					_, err = p.SyncDrop(t.Context())
					p.Close()
				}
				done <- err
			}()
			select {
			case err := <-done:
				tc.check(t, e, path, err)
			case <-time.After(20 * time.Second):
				t.Fatalf("Open and Sync with a FIFO as %s still waiting after 20s", tc.name)
			}
			if tc.name == "packs.json" {
				hdone := make(chan error, 1)
				go func() { _, err := ReadHistory(e.state); hdone <- err }()
				select {
				case err := <-hdone:
					if err == nil || !strings.Contains(err.Error(), path) {
						t.Fatalf("ReadHistory with a FIFO as packs.json = %v; want an error naming it", err)
					}
				case <-time.After(20 * time.Second):
					t.Fatal("ReadHistory with a FIFO as packs.json still waiting after 20s")
				}
			}
		})
	}
}

func refusedWithStep(t *testing.T, e *env, path string, err error) {
	t.Helper()
	if !errors.Is(err, store.ErrStateRefused) || !strings.Contains(err.Error(), path) ||
		!strings.Contains(err.Error(), "to packs.json.damaged and start forgesync again") {
		t.Fatalf("Open with a FIFO as %s = %v; want a refusal naming it and the safe step", path, err)
	}
}
