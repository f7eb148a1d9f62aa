package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
)

// TestLoadBoundsConfig: a config past MaxConfigBytes is refused naming the
// bound, before it is parsed, by Load and by CheckServiceAgrees.
func TestLoadBoundsConfig(t *testing.T) {
	p := filepath.Join(t.TempDir(), "forgesync.toml")
	big := "# " + strings.Repeat("x", 2<<20) + "\n"
	if err := os.WriteFile(p, []byte(big), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, load := range map[string]func() error{
		"Load":               func() error { _, err := Load(p); return err },
		"CheckServiceAgrees": func() error { return checkServiceAgrees(p, Process(false), Process(false)) },
	} {
		err := load()
		if !errors.Is(err, atomicfile.ErrTooLarge) || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "1048576 bytes") {
			t.Fatalf("%s(%d-byte config) = %v; want %v naming the file and the bound of 1048576 bytes", name, len(big), err, atomicfile.ErrTooLarge)
		}
	}
}
