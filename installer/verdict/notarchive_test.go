package verdict

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/installer/intake"
)

// TestNotArchiveSameAsArchive: a file in no pack format gets from
// NotArchive, judged in this process from its first bytes, exactly the
// report Archive gives it through the isolated unpacker; a file that
// starts like an archive (even a damaged one) is left to Archive.
func TestNotArchiveSameAsArchive(t *testing.T) {
	dir := t.TempDir()
	stray := map[string][]byte{
		"notes.txt":  []byte("not a pack\n"),
		"empty":      nil,
		"old.bz2":    []byte("BZh91AY&SY not really"),
		"setup.cab":  []byte("MSCF\x00\x00\x00\x00"),
		"noise.bin":  []byte(strings.Repeat("\x01\x02 noise ", 100)),
		"short":      []byte("P"),
		"tar-ish.gz": []byte{0x1f}, // one byte of the gzip signature
	}
	for name, data := range stray {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		want, staged, err := Archive(t.Context(), testExtractor, path, t.TempDir(), intake.DefaultLimits(), nil)
		if err != nil || staged != nil {
			t.Fatalf("Archive(%s) = %v, %v", name, staged, err)
		}
		got := NotArchive(path)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("NotArchive(%s) = %+v; want what Archive says, %+v", name, got, want)
		}
		if got == nil || got.Valid || len(got.Problems) != 1 || got.Problems[0].Rule != intake.RuleNotArchive {
			t.Errorf("NotArchive(%s) = %+v; want one not-an-archive problem", name, got)
		}
	}
	for name, data := range map[string][]byte{
		"damaged.zip": []byte("PK\x03\x04 and nothing a zip holds"),
		"damaged.7z":  []byte{'7', 'z', 0xbc, 0xaf, 0x27, 0x1c, 0, 0},
		"damaged.tgz": []byte{0x1f, 0x8b, 8, 0},
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if got := NotArchive(path); got != nil {
			t.Errorf("NotArchive(%s) = %+v; want nil: it starts like an archive, the unpacker judges it", name, got)
		}
	}
	if got := NotArchive(filepath.Join(dir, "missing")); got != nil {
		t.Errorf("NotArchive(missing) = %+v; want nil: Archive reports the read failure", got)
	}
	if got := NotArchive(dir); got != nil {
		t.Errorf("NotArchive(a folder) = %+v; want nil: Archive refuses what is not a regular file", got)
	}
}
