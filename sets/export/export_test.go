package export

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"aead.dev/minisign"

	"github.com/mjolnir-forge/forgesync/sets/lock"
	"github.com/mjolnir-forge/forgesync/sets/settest"
)

// Export is ExportWith with the default options and the given name,
// template and key, as the tests written before ExportWith call it.
func Export(ctx context.Context, dir, name string, packs []Kept, template string, key *minisign.PrivateKey) (*lock.Lock, error) {
	return ExportWith(ctx, dir, packs, ExportOptions{Name: name, Template: template, Key: key})
}

// keptPacks writes archives into a folder as a machine keeps them.
func keptPacks(t *testing.T) ([]Kept, map[string][]byte) {
	t.Helper()
	dir := t.TempDir()
	var kept []Kept
	want := map[string][]byte{}
	for i, name := range []string{"foundry-wide.zip", "gate-pack.TAR.ZST"} {
		id := strings.Split(name, ".")[0]
		data := settest.ArchiveBytes(id, 20000+i)
		sum := sha256.Sum256(data)
		sha := hex.EncodeToString(sum[:])
		path := filepath.Join(dir, name)
		os.WriteFile(path, data, 0o644)
		kept = append(kept, Kept{ID: id, Version: "1.0.0", SHA256: sha, Path: path, Ext: ArchiveExt(name)})
		want[sha] = data
	}
	return kept, want
}

// keptFile writes data as the kept archive of id version.
func keptFile(t *testing.T, dir, id, version string, data []byte) Kept {
	t.Helper()
	sum := sha256.Sum256(data)
	path := filepath.Join(dir, id+"-"+version+".zip")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return Kept{ID: id, Version: version, SHA256: hex.EncodeToString(sum[:]), Path: path, Ext: ".zip"}
}

func TestExportRefusesDamagedArchive(t *testing.T) {
	kept, _ := keptPacks(t)
	data, _ := os.ReadFile(kept[0].Path)
	data[10] ^= 0xff
	os.WriteFile(kept[0].Path, data, 0o644)
	out := t.TempDir()
	if _, err := Export(t.Context(), out, "", kept, "", nil); !errors.Is(err, lock.ErrWrongBytes) {
		t.Fatalf("Export(damaged) = %v; want ErrWrongBytes", err)
	}
	if _, err := os.Stat(filepath.Join(out, lock.LockName)); !os.IsNotExist(err) {
		t.Errorf("a lock was written for an incomplete folder")
	}
	if names := settest.DirNames(t, filepath.Join(out, "packs")); len(names) != 0 {
		t.Errorf("packs/ holds %v; want nothing (the damaged copy is refused)", names)
	}
}
