//go:build windows

package daemon

import (
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
	if err := SecureFolder(dir, owner); err != nil {
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
	if err := SecureFolder(dir, "not a sid"); err == nil {
		t.Error("SecureFolder accepted an owner that is not a SID")
	}
}
