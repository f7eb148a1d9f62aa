//go:build unix

package iostore

import (
	"errors"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
)

// TestReadFileFIFO: `forgesync tools toc` on a FIFO waited for ever for a
// writer; it is refused at once.
func TestReadFileFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.utoc")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := ReadFile(p); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, atomicfile.ErrNotRegular) {
			t.Fatalf("ReadFile(FIFO) = %v; want %v", err, atomicfile.ErrNotRegular)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ReadFile(FIFO) still waiting after 10s")
	}
}
