package export

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// TestExportSerial: export writes a serial that grows when the set
// changes and stays when nothing does (the same bytes), and --expires
// writes an expiry; lock -o follows the file it replaces the same way.
func TestExportSerial(t *testing.T) {
	dir := t.TempDir()
	kept := []Kept{keptFile(t, t.TempDir(), "alpha-pack", "1.0.0", []byte("alpha archive bytes"))}
	t0 := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	export := func(now time.Time, lifetime time.Duration, name string) (*lock.Lock, []byte) {
		t.Helper()
		l, err := ExportWith(t.Context(), dir, kept, ExportOptions{Name: name, NoIndex: true, Now: now, Lifetime: lifetime})
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(dir, lock.LockName))
		if err != nil {
			t.Fatal(err)
		}
		return l, data
	}
	first, data1 := export(t0, 0, "")
	if first.Serial != t0.UnixMilli() || !strings.Contains(string(data1), fmt.Sprintf("serial = %d\n", t0.UnixMilli())) || strings.Contains(string(data1), "expires") {
		t.Fatalf("first export wrote\n%s; want serial %d and no expiry", data1, t0.UnixMilli())
	}
	// The same set an hour later: the same serial and bytes.
	if l, data := export(t0.Add(time.Hour), 0, ""); l.Serial != first.Serial || string(data) != string(data1) {
		t.Errorf("an unchanged export wrote serial %d\n%s; want %d and the same bytes", l.Serial, data, first.Serial)
	}
	// Another name within the same millisecond: the serial still grows.
	if l, _ := export(t0, 0, "renamed"); l.Serial != first.Serial+1 {
		t.Errorf("a changed export at the same time wrote serial %d; want %d", l.Serial, first.Serial+1)
	}
	l, data := export(t0.Add(time.Hour), 30*24*time.Hour, "renamed")
	if l.Serial != t0.Add(time.Hour).UnixMilli() || !strings.Contains(string(data), "expires = 2030-01-31T01:00:00Z\n") {
		t.Errorf("export --expires 30d wrote\n%s; want serial %d, expires 2030-01-31T01:00:00Z", data, t0.Add(time.Hour).UnixMilli())
	}
}
