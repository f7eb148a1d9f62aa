package daemon

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/config"
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
		{"no ACLs", fmt.Errorf("secure state folder /fat/state: %w: %w", errNoACL, errors.New("not supported")), nil},
		{"shared folder", fmt.Errorf("state folder /fat/state: %w", errSharedFolder), errSharedFolder},
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
			err := secureFolders(cfg, "", slog.New(slog.NewTextHandler(&logs, nil)))
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

// TestServeRefusesSharedStateFolder: a daemon whose state folder is shared
// by every user (world-writable here, as /tmp is) does not start, and says
// why and what to do; the folder keeps its mode.
func TestServeRefusesSharedStateFolder(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Unix modes; daemon/acl_windows_test.go covers Windows")
	}
	opts := game(t)
	shared := filepath.Join(filepath.Dir(opts.Config.File), "shared")
	if err := os.Mkdir(shared, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(shared, 0o777); err != nil {
		t.Fatal(err)
	}
	opts.Config.Paths.State = shared
	m := New(opts)
	defer m.Close()
	// A daemon that starts all the same is stopped at once, and fails the test.
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	err := m.Serve(ctx, ServeOptions{Started: cancel})
	if !errors.Is(err, errSharedFolder) || !strings.Contains(err.Error(), "writable by every user") || !strings.Contains(err.Error(), "a folder of its own") {
		t.Fatalf("Serve with a world-writable state folder = %v; want ErrSharedFolder with the reason and the fix", err)
	}
	if fi, err := os.Stat(shared); err != nil || fi.Mode().Perm() != 0o777 {
		t.Errorf("state folder mode = %v (%v); want it left at 0777", fi.Mode().Perm(), err)
	}
}
