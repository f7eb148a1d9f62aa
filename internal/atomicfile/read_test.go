package atomicfile

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestReadFileBounds: a file is read whole up to its bound; one past it,
// a folder and a missing file are refused, each with an error that says
// which.
func TestReadFileBounds(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, n int) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, bytes.Repeat([]byte("x"), n), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	exact := write("exact", 1024)
	over := write("over", 1025)
	for _, tc := range []struct {
		name    string
		path    string
		want    int
		wantErr error
		says    string
	}{
		{"at the bound", exact, 1024, nil, ""},
		{"past the bound", over, 0, ErrTooLarge, "1025 bytes, the bound for this file is 1024 bytes"},
		{"a folder", dir, 0, ErrNotRegular, "it is a folder"},
		{"missing", filepath.Join(dir, "none"), 0, fs.ErrNotExist, "none"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, err := ReadFile(tc.path, 1024)
			if !errors.Is(err, tc.wantErr) || (err == nil) != (tc.wantErr == nil) {
				t.Fatalf("ReadFile(%q, 1024) = %v; want %v", tc.path, err, tc.wantErr)
			}
			if err != nil && (!strings.Contains(err.Error(), tc.path) || !strings.Contains(err.Error(), tc.says)) {
				t.Fatalf("ReadFile(%q, 1024) = %v; want it to name the path and say %q", tc.path, err, tc.says)
			}
			if len(data) != tc.want {
				t.Fatalf("ReadFile(%q, 1024) read %d bytes; want %d", tc.path, len(data), tc.want)
			}
		})
	}
}

// TestRenamerReadFileRetriesBusy: the bounded read still waits out a file
// held for a moment.
func TestRenamerReadFileRetriesBusy(t *testing.T) {
	p := filepath.Join(t.TempDir(), "packs.json")
	if err := os.WriteFile(p, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	busy := errors.New("held")
	tries := 0
	r := Renamer{
		OpenRead: func(path string) (*os.File, error) {
			if tries++; tries < 3 {
				return nil, busy
			}
			return os.Open(path)
		},
		Busy:  func(err error) bool { return errors.Is(err, busy) },
		Sleep: func(time.Duration) {},
	}
	data, err := r.ReadLimited(p, 10)
	if err != nil || string(data) != "{}" || tries != 3 {
		t.Fatalf("ReadLimited = %q, %v after %d tries; want {} after 3", data, err, tries)
	}
}
