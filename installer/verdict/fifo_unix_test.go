//go:build unix

package verdict

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/installer/intake"
)

// TestDirFIFOManifest: a FIFO named forgepack.json in a folder checked
// made the check wait for ever for a writer; it is refused at once.
func TestDirFIFOManifest(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"content/x.pak": "pak"})
	if err := syscall.Mkfifo(filepath.Join(dir, "forgepack.json"), 0o600); err != nil {
		t.Fatal(err)
	}
	type result struct {
		rep *Report
		err error
	}
	done := make(chan result, 1)
	go func() {
		rep, err := checkDir(dir, intake.DefaultLimits())
		done <- result{rep, err}
	}()
	select {
	case r := <-done:
		if r.err == nil && (r.rep == nil || r.rep.Valid) {
			t.Fatalf("Dir with a FIFO as the manifest = %+v, %v; want it invalid or an error", r.rep, r.err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Dir with a FIFO as the manifest still waiting after 10s")
	}
}

// TestDirFIFOForgeignore: a FIFO named .forgeignore is refused at once,
// not waited on.
func TestDirFIFOForgeignore(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"content/x.pak": "pak"})
	if err := syscall.Mkfifo(filepath.Join(dir, ignoreName), 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := checkDir(dir, intake.DefaultLimits())
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), ignoreName) {
			t.Fatalf("Dir with a FIFO as .forgeignore = %v; want an error naming it", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Dir with a FIFO as .forgeignore still waiting after 10s")
	}
}
