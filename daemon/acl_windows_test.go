//go:build windows

package daemon

import (
	"errors"
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/windows"
)

// TestSecureFolder sets the socket folder's ACL and reads it back: SYSTEM,
// Administrators and the installing user, nobody else, inheritance from the
// parent removed. It makes its own folder rather than t.TempDir, whose
// cleanup wine cannot run.
func TestSecureFolder(t *testing.T) {
	dir, err := os.MkdirTemp("", "forgesync-acl-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(dir)
	owner := "S-1-5-21-1004336348-1177238915-682003330-1001"
	if err := osSecureFolder("state", dir, owner); err != nil {
		t.Fatalf("SecureFolder = %v", err)
	}
	sd, err := windows.GetNamedSecurityInfo(dir, windows.SE_FILE_OBJECT, windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		t.Fatal(err)
	}
	sddl := sd.String()
	ctrl, _, err := sd.Control()
	if err != nil || ctrl&windows.SE_DACL_PROTECTED == 0 {
		t.Errorf("ACL %s is not protected from inheritance (control %#x, %v)", sddl, ctrl, err)
	}
	for _, who := range []string{";;;SY)", ";;;BA)", ";;;" + owner + ")"} {
		if !strings.Contains(sddl, who) {
			t.Errorf("ACL %s lacks %s", sddl, who)
		}
	}
	if n := strings.Count(sddl, "(A;"); n != 3 {
		t.Errorf("ACL %s has %d allow entries; want 3", sddl, n)
	}
	if err := osSecureFolder("state", dir, "not a sid"); err == nil {
		t.Error("SecureFolder accepted an owner that is not a SID")
	}
}

// TestSecureFolderNoACL: on FAT or exFAT, which keep no ACLs, setting one
// fails with ERROR_NOT_SUPPORTED or ERROR_INVALID_FUNCTION; SecureFolder
// says so with ErrNoACL, which the daemon warns about and goes on.
func TestSecureFolderNoACL(t *testing.T) {
	for _, code := range []windows.Errno{windows.ERROR_NOT_SUPPORTED, windows.ERROR_INVALID_FUNCTION} {
		saved := setNamedSecurityInfo
		setNamedSecurityInfo = func(string, windows.SE_OBJECT_TYPE, windows.SECURITY_INFORMATION, *windows.SID, *windows.SID, *windows.ACL, *windows.ACL) error {
			return code
		}
		dir, err := os.MkdirTemp("", "forgesync-fat-")
		if err != nil {
			t.Fatal(err)
		}
		err = osSecureFolder("state", dir, "")
		setNamedSecurityInfo = saved
		os.Remove(dir)
		if !errors.Is(err, errNoACL) || !errors.Is(err, code) {
			t.Errorf("SecureFolder on a file system answering %v = %v; want ErrNoACL", code, err)
		}
	}
}

// TestSecureFolderLeavesOthers: a drive root is refused before anything
// is set, and a folder that holds other files keeps its ACL.
func TestSecureFolderLeavesOthers(t *testing.T) {
	calls := 0
	saved := setNamedSecurityInfo
	setNamedSecurityInfo = func(string, windows.SE_OBJECT_TYPE, windows.SECURITY_INFORMATION, *windows.SID, *windows.SID, *windows.ACL, *windows.ACL) error {
		calls++
		return nil
	}
	defer func() { setNamedSecurityInfo = saved }()
	root := os.Getenv("SystemDrive") + `\`
	if err := osSecureFolder("status socket", root, ""); !errors.Is(err, errSharedFolder) || !strings.Contains(err.Error(), "root of a drive") {
		t.Errorf("SecureFolder(%s) = %v; want ErrSharedFolder", root, err)
	}
	dir, err := os.MkdirTemp("", "forgesync-full-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(dir+`\notes.txt`, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := osSecureFolder("state", dir, ""); err != nil {
		t.Errorf("SecureFolder(folder with files) = %v", err)
	}
	if calls != 0 {
		t.Errorf("SetNamedSecurityInfo called %d times; want the ACLs left alone", calls)
	}
}
