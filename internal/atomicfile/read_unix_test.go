//go:build unix

package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReadFileRefusesDevicesAndFIFOs: /dev/zero (which reads without end)
// and a FIFO no one writes to (whose open would wait for ever) are refused
// at once, before a byte is read.
func TestReadFileRefusesDevicesAndFIFOs(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "config.toml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, says string }{
		{"/dev/zero", "a character device"},
		{fifo, "a named pipe (FIFO)"},
	} {
		done := make(chan error, 1)
		go func() {
			_, err := ReadFile(tc.path, 1<<20)
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), tc.path) || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("ReadFile(%q) = %v; want %v naming the path and saying %q", tc.path, err, ErrNotRegular, tc.says)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("ReadFile(%q) still reading after 10s; want a refusal at once", tc.path)
		}
	}
}

// TestOpenNoWaitFIFO: should a FIFO replace the checked path before the
// open, the open does not wait for a writer and the second check refuses
// it.
func TestOpenNoWaitFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "packs.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		f, err := openNoWait(fifo)
		if err == nil {
			err = checkRegular(fifo, func(string) (fs.FileInfo, error) { return f.Stat() })
			f.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrNotRegular) {
			t.Fatalf("openNoWait then check of a FIFO = %v; want %v", err, ErrNotRegular)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("openNoWait of a FIFO still waiting after 10s")
	}
}

// TestOpenRegularRefuses: OpenRegular refuses a device and a FIFO at
// once, and opens a regular file.
func TestOpenRegularRefuses(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "forgepack.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/dev/zero", fifo, dir} {
		done := make(chan error, 1)
		go func() {
			f, err := OpenRegular(p)
			if err == nil {
				f.Close()
			}
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), p) {
				t.Fatalf("OpenRegular(%q) = %v; want %v naming it", p, err, ErrNotRegular)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("OpenRegular(%q) still waiting after 10s", p)
		}
	}
	reg := filepath.Join(dir, "ok.json")
	if err := os.WriteFile(reg, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := OpenRegular(reg)
	if err != nil {
		t.Fatalf("OpenRegular(%q) = %v", reg, err)
	}
	f.Close()
}
