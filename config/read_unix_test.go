//go:build unix

package config

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
)

// TestLoadRefusesDevicesAndFIFOs: `--config /dev/zero` read without end
// and a FIFO as config hung; both are refused at once.
func TestLoadRefusesDevicesAndFIFOs(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "forgesync.toml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/dev/zero", fifo} {
		done := make(chan error, 1)
		go func() {
			_, err := Load(path)
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, atomicfile.ErrNotRegular) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "config") {
				t.Fatalf("Load(%q) = %v; want %v naming the config file", path, err, atomicfile.ErrNotRegular)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("Load(%q) still reading after 10s; want a refusal at once", path)
		}
	}
}
