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
			path := filepath.Join(state, apiKeyName)
			if err := tc.make(path); err != nil {
				t.Fatal(err)
			}
			reads := map[string]func(string) (string, error){"APIKey": apiKey}
			if tc.want != nil {
				reads["ReadAPIKey"] = readAPIKey
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

// TestAPIKeyNotHex: an api-key file of 64 characters that are not all hex
// digits is refused by APIKey and ReadAPIKey alike, naming the file and
// the step and never its bytes; a truncated key is refused by ReadAPIKey
// too, and a real one (upper or lower case) is read as it is.
func TestAPIKeyNotHex(t *testing.T) {
	for _, tc := range []struct {
		name, text, says string
	}{
		{"not hex", strings.Repeat("z", 64) + "\n", "found a character that is not one at byte 1"},
		{"one not hex", strings.Repeat("0123456789abcdef", 3) + "0123456789abcdeg\n", "at byte 64"},
		{"truncated", strings.Repeat("0123456789abcdef", 2) + "\n", "found 32 characters"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			state := t.TempDir()
			path := filepath.Join(state, apiKeyName)
			if err := os.WriteFile(path, []byte(tc.text), 0o600); err != nil {
				t.Fatal(err)
			}
			for name, read := range map[string]func(string) (string, error){"APIKey": apiKey, "ReadAPIKey": readAPIKey} {
				key, err := read(state)
				if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.says) ||
					!strings.Contains(err.Error(), "delete the file to make a new key") || strings.Contains(err.Error(), strings.TrimSpace(tc.text)) {
					t.Errorf("%s of %q = %q, %v; want an error naming %s, saying %q and not the bytes", name, tc.text, key, err, path, tc.says)
				}
			}
		})
	}
	state := t.TempDir()
	real := strings.Repeat("0123456789ABCDEF", 4)
	if err := os.WriteFile(filepath.Join(state, apiKeyName), []byte(real+"\r\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, read := range map[string]func(string) (string, error){"APIKey": apiKey, "ReadAPIKey": readAPIKey} {
		if key, err := read(state); err != nil || key != real {
			t.Errorf("%s of a real key = %q, %v", name, key, err)
		}
	}
}
