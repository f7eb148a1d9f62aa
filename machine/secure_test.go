package machine

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/config"
	"github.com/mjolnir-forge/forgesync/daemon"
)

// TestSecureFoldersNoACL: state on FAT or exFAT, where no ACL can be set,
// does not stop the daemon or the install: SecureFolders warns and goes
// on. Any other failure, a shared folder above all, still stops them.
func TestSecureFoldersNoACL(t *testing.T) {
	cfg := config.Default()
	cfg.Paths.State, cfg.Paths.Socket = "/fat/state", "/fat/run/forgesync.sock"
	for _, tc := range []struct {
		name string
		err  error
		want error // nil: no error, and a warning
	}{
		{"no ACLs", fmt.Errorf("secure state folder /fat/state: %w: %w", daemon.ErrNoACL, errors.New("not supported")), nil},
		{"shared folder", fmt.Errorf("state folder /fat/state: %w", daemon.ErrSharedFolder), daemon.ErrSharedFolder},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var calls []string
			saved := secureFolder
			secureFolder = func(what, dir, owner string) error {
				calls = append(calls, what+" "+dir)
				return tc.err
			}
			t.Cleanup(func() { secureFolder = saved })
			var logs bytes.Buffer
			err := SecureFolders(cfg, "", slog.New(slog.NewTextHandler(&logs, nil)))
			if tc.want != nil {
				if !errors.Is(err, tc.want) {
					t.Fatalf("SecureFolders = %v; want %v", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatalf("SecureFolders on FAT = %v; want a warning and nil", err)
			}
			if len(calls) != 2 || calls[0] != "state /fat/state" || calls[1] != "status socket /fat/run" {
				t.Errorf("SecureFolders secured %q; want the state and the socket's folder", calls)
			}
			if n := strings.Count(logs.String(), "level=WARN"); n != 2 || !strings.Contains(logs.String(), "NTFS") {
				t.Errorf("log = %q; want two warnings saying to use NTFS", logs.String())
			}
		})
	}
}
