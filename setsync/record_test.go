package setsync

import (
	"bytes"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
)

// TestDamagedSetRecord: set.json is advisory (what the set was, to show
// and to compare): null, {}, [], garbage or a truncated copy is forgotten
// with a warning naming it, and New goes on (the next check reads the set
// again). A folder or a FIFO in its place, which no new record could
// replace, is refused at once naming the file and the step; a FIFO no one
// writes to made New wait for ever.
func TestDamagedSetRecord(t *testing.T) {
	real := `{"format":"` + recordFormat + `","source":"https://example.invalid/set.lock"}`
	for _, tc := range []struct {
		name    string
		make    func(path string) error
		refused bool
	}{
		{"null", func(p string) error { return os.WriteFile(p, []byte("null"), 0o600) }, false},
		{"empty object", func(p string) error { return os.WriteFile(p, []byte("{}"), 0o600) }, false},
		{"empty array", func(p string) error { return os.WriteFile(p, []byte("[]"), 0o600) }, false},
		{"garbage", func(p string) error { return os.WriteFile(p, []byte("\x00\xffgarbage"), 0o600) }, false},
		{"truncated", func(p string) error { return os.WriteFile(p, []byte(real[:len(real)/2]), 0o600) }, false},
		{"folder", func(p string) error { return os.Mkdir(p, 0o700) }, true},
		{"fifo", func(p string) error {
			if runtime.GOOS == "windows" {
				t.Skip("no FIFOs in the file system")
			}
			return syscallMkfifo(p)
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			state := t.TempDir()
			path := filepath.Join(state, RecordName)
			if err := tc.make(path); err != nil {
				t.Fatal(err)
			}
			var logs bytes.Buffer
			done := make(chan error, 1)
			var s *Syncer
			go func() {
				var err error
				s, err = New(nil, Options{State: state, Log: slog.New(slog.NewTextHandler(&logs, nil))})
				done <- err
			}()
			select {
			case err := <-done:
				if tc.refused {
					if !errors.Is(err, atomicfile.ErrNotRegular) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "move it aside") {
						t.Fatalf("New with set.json %s = %v; want %v naming the file and the step", tc.name, err, atomicfile.ErrNotRegular)
					}
					return
				}
				if err != nil {
					t.Fatalf("New with set.json %s = %v; want it to go on", tc.name, err)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("New with set.json %s still reading after 10s", tc.name)
			}
			if rec := s.Record(); rec.Source != "" {
				t.Fatalf("Record() = %+v; want nothing remembered", rec)
			}
			if !strings.Contains(logs.String(), path) {
				t.Fatalf("log %q; want a warning naming %s", logs.String(), path)
			}
		})
	}
}
