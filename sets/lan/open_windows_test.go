package lan

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestServedFileRenames: a file being served to a peer does not hold it:
// the cache may remove it and the store rename it meanwhile, as on any
// other system, while os.Open's handle would refuse both (a sharing
// violation). It makes its own folder: wine cannot run t.TempDir's cleanup
// (see scripts/wine-e2e.sh).
func TestServedFileRenames(t *testing.T) {
	dir, err := os.MkdirTemp("", "lan-open-")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { os.Remove(filepath.Join(dir, "b")); os.Remove(filepath.Join(dir, "a")); os.Remove(dir) }()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	if err := os.WriteFile(a, []byte("archive bytes"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := openShared(a)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(a, b); err != nil {
		t.Errorf("rename of a file being served: %v", err)
	}
	data, err := io.ReadAll(f)
	if err != nil || string(data) != "archive bytes" {
		t.Errorf("the served file reads %q, %v after its rename", data, err)
	}
	if err := os.Remove(b); err != nil {
		t.Errorf("removal of a file being served: %v", err)
	}
	f.Close()
}
