package daemon

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestRefusedNamesTheFolder: a client the socket folder's ACL (or the
// socket's mode) refuses hears which folder refused it and what to do.
func TestRefusedNamesTheFolder(t *testing.T) {
	sock := filepath.Join("srv", "forgesync", "forgesync.sock")
	err := refused(sock, &os.SyscallError{Syscall: "connect", Err: syscall.EACCES})
	if !errors.Is(err, errDeniedByFolder) || !errors.Is(err, fs.ErrPermission) || !strings.Contains(err.Error(), filepath.Dir(sock)) || !strings.Contains(err.Error(), "administrator") {
		t.Fatalf("refused(permission) = %v; want ErrDeniedByFolder naming %s", err, filepath.Dir(sock))
	}
	other := errors.New("connection refused")
	if got := refused(sock, other); got != other {
		t.Fatalf("refused(other) = %v; want the error unchanged", got)
	}
}

func TestSecureFolderCreates(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state", "run")
	if err := osSecureFolder("state", dir, ""); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Fatalf("SecureFolder made no folder: %v", err)
	}
}
