package daemon

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
)

// TestAPIKeyDamaged: an api-key file that is not 64 hex digits (null, {},
// [], garbage, a truncated copy) is refused by APIKey naming the file and
// the step (delete it for a new key); a folder or a FIFO in its place is
// refused at once by APIKey and ReadAPIKey: a FIFO no one writes to made
// the daemon's start wait for ever.
func TestAPIKeyDamaged(t *testing.T) {
	real := strings.Repeat("0123456789abcdef", 4) + "\n"
	write := func(s string) func(string) error {
		return func(p string) error { return os.WriteFile(p, []byte(s), 0o600) }
	}
	for _, tc := range []struct {
		name string
		make func(path string) error
		want error // nil: any error, of APIKey only
		says string
	}{
		{"null", write("null"), nil, "delete the file to make a new key"},
		{"empty object", write("{}"), nil, "delete the file to make a new key"},
		{"empty array", write("[]"), nil, "delete the file to make a new key"},
		{"garbage", write("\x00\xffgarbage"), nil, "delete the file to make a new key"},
		{"truncated", write(real[:32]), nil, "delete the file to make a new key"},
		{"folder", func(p string) error { return os.Mkdir(p, 0o700) }, atomicfile.ErrNotRegular, "it is a folder"},
		{"fifo", func(p string) error {
			if runtime.GOOS == "windows" {
				t.Skip("no FIFOs in the file system")
			}
			return mkfifo(p)
		}, atomicfile.ErrNotRegular, "FIFO"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			state := t.TempDir()
			path := filepath.Join(state, APIKeyName)
			if err := tc.make(path); err != nil {
				t.Fatal(err)
			}
			reads := map[string]func(string) (string, error){"APIKey": APIKey}
			if tc.want != nil {
				reads["ReadAPIKey"] = ReadAPIKey
			}
			for name, read := range reads {
				done := make(chan error, 1)
				go func() {
					_, err := read(state)
					done <- err
				}()
				select {
				case err := <-done:
					if err == nil || tc.want != nil && !errors.Is(err, tc.want) ||
						!strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.says) {
						t.Fatalf("%s with api-key %s = %v; want an error naming %s and saying %q", name, tc.name, err, path, tc.says)
					}
				case <-time.After(10 * time.Second):
					t.Fatalf("%s with api-key %s: still reading after 10s", name, tc.name)
				}
			}
		})
	}
}
