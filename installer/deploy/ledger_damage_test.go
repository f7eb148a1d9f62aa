package deploy

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLedgerDamaged: deployed.json holding null, {}, [], garbage, a
// truncated copy of a real one, or a folder in its place is refused with
// ErrLedger naming the file and the step (move it aside), and nothing
// panics.
func TestLedgerDamaged(t *testing.T) {
	real := `{"format":"` + ledgerFormat + `","version":1,"files":[]}`
	for _, tc := range []struct {
		name string
		make func(p string) error
	}{
		{"null", writeString("null")},
		{"empty object", writeString("{}")},
		{"empty array", writeString("[]")},
		{"garbage", writeString("\x00\xffgarbage")},
		{"truncated", writeString(real[:len(real)/2])},
		{"folder", func(p string) error { return os.Mkdir(p, 0o700) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), ledgerName)
			if err := tc.make(p); err != nil {
				t.Fatal(err)
			}
			_, err := readLedger(p)
			if !errors.Is(err, errLedger) || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "move the file aside") {
				t.Fatalf("readLedger(%s) = %v; want %v naming the file and the step", tc.name, err, errLedger)
			}
		})
	}
}

func writeString(s string) func(string) error {
	return func(p string) error { return os.WriteFile(p, []byte(s), 0o600) }
}
