//go:build unix

package fetch

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
	"github.com/mjolnir-forge/forgesync/sets/lock"
	"github.com/mjolnir-forge/forgesync/sets/settest"
)

// TestFIFOLockAndKey: a FIFO given as a local lock, as the signature beside
// one, or as a secret key made the command wait for ever for a writer; each
// is refused at once.
func TestFIFOLockAndKey(t *testing.T) {
	for _, which := range []string{"lock", "signature", "key"} {
		t.Run(which, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, lock.LockName)
			if err := os.WriteFile(path, []byte(settest.GoodLock), 0o644); err != nil {
				t.Fatal(err)
			}
			fifo := map[string]string{"lock": path, "signature": filepath.Join(dir, lock.SignatureName), "key": filepath.Join(dir, "forgesync.key")}[which]
			os.Remove(fifo)
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Fatal(err)
			}
			f, _ := newFetcher(t)
			done := make(chan error, 1)
			go func() {
				if which == "key" {
					_, err := lock.ReadSecretKey(fifo, "")
					done <- err
					return
				}
				src, _ := LockSource(dir)
				_, err := f.FetchLock(t.Context(), src, Validators{})
				done <- err
			}()
			select {
			case err := <-done:
				if !errors.Is(err, atomicfile.ErrNotRegular) {
					t.Fatalf("reading a FIFO as the %s = %v; want %v", which, err, atomicfile.ErrNotRegular)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("reading a FIFO as the %s: still waiting after 10s", which)
			}
		})
	}
}
