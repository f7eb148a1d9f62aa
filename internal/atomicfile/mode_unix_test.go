//go:build unix

package atomicfile

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestModeIgnoresUmask: a service started with umask 077 wrote the
// inventory and the scripts 0600, which a game running as another user
// cannot read.
func TestModeIgnoresUmask(t *testing.T) {
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	p := filepath.Join(t.TempDir(), "installed.txt")
	if err := WriteFile(p, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	if err != nil || fi.Mode().Perm() != 0o644 {
		t.Fatalf("mode under umask 077 = %v, %v; want 0644", fi.Mode().Perm(), err)
	}
}
