//go:build windows

package daemon

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/windows"

	"github.com/mjolnir-forge/forgesync/internal/longpath"
)

// folderSDDL grants full control to SYSTEM, Administrators and one user,
// inherited by everything created inside, with the parent's permissions
// removed (P: protected).
const folderSDDL = "D:P(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)(A;OICI;FA;;;%s)"

// osSecureFolder creates dir, which holds forgesync's what ("state" or
// "status socket"), and sets its ACL to SYSTEM, Administrators and owner
// (a SID string such as "S-1-5-21-…"; the current user when empty),
// removing inherited permissions, so that the status socket and the API
// key inside are reachable by those accounts only (SPEC §8). Windows
// applies the new ACL to what the folder already holds, so it is set only
// on a folder forgesync owns ([decideFolder]): one it created, an empty
// one, or one that already has this ACL. A folder holding other files
// keeps its own ACL, and a drive root, a system or a profile folder is
// refused with [errSharedFolder]. On a file system without ACLs (FAT,
// exFAT) the error matches [errNoACL]: a caller warns and goes on.
func osSecureFolder(what, dir, owner string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("secure %s folder %s: %w", what, dir, err)
	}
	_, err = os.Stat(abs)
	created := errors.Is(err, fs.ErrNotExist)
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return fmt.Errorf("secure %s folder %s: %w", what, abs, err)
	}
	if owner == "" {
		sid, err := currentUserSID()
		if err != nil {
			return fmt.Errorf("secure %s folder %s: %w", what, abs, err)
		}
		owner = sid
	}
	if _, err := windows.StringToSid(owner); err != nil {
		return fmt.Errorf("secure %s folder %s: owner %q is not a SID: %w", what, abs, owner, err)
	}
	sd, err := windows.SecurityDescriptorFromString(fmt.Sprintf(folderSDDL, owner))
	if err != nil {
		return fmt.Errorf("secure %s folder %s: %w", what, abs, err)
	}
	dacl, _, err := sd.DACL()
	if err != nil {
		return fmt.Errorf("secure %s folder %s: %w", what, abs, err)
	}
	empty, err := isEmptyDir(abs)
	if err != nil {
		return fmt.Errorf("secure %s folder %s: %w", what, abs, err)
	}
	f := folderFacts{Path: abs, GOOS: "windows", Created: created, Empty: empty, Shared: sharedHere(), Private: hasFolderACL(abs, owner)}
	tighten, err := decideFolder(what, f)
	if err != nil || !tighten {
		return err
	}
	err = setNamedSecurityInfo(longpath.Extend(abs), windows.SE_FILE_OBJECT,
		windows.DACL_SECURITY_INFORMATION|windows.PROTECTED_DACL_SECURITY_INFORMATION, nil, nil, dacl, nil)
	if err != nil {
		return aclError(what, abs, err)
	}
	return nil
}

// setNamedSecurityInfo is windows.SetNamedSecurityInfo; tests make it fail
// as FAT does.
var setNamedSecurityInfo = windows.SetNamedSecurityInfo

// aclError wraps the error of setting a folder's ACL; a file system that
// keeps no ACLs (FAT and exFAT answer ERROR_NOT_SUPPORTED or
// ERROR_INVALID_FUNCTION) gives one matching [errNoACL].
func aclError(what, dir string, err error) error {
	if errors.Is(err, windows.ERROR_NOT_SUPPORTED) || errors.Is(err, windows.ERROR_INVALID_FUNCTION) {
		return fmt.Errorf("secure %s folder %s: %w: %w", what, dir, errNoACL, err)
	}
	return fmt.Errorf("secure %s folder %s: set its ACL: %w", what, dir, err)
}

// hasFolderACL reports whether dir already has the protected ACL that
// [secureFolder] sets for owner, so that setting it again changes nothing.
func hasFolderACL(dir, owner string) bool {
	sd, err := windows.GetNamedSecurityInfo(longpath.Extend(dir), windows.SE_FILE_OBJECT, windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		return false
	}
	ctrl, _, err := sd.Control()
	if err != nil || ctrl&windows.SE_DACL_PROTECTED == 0 {
		return false
	}
	sddl := sd.String()
	if strings.Count(sddl, "(A;") != 3 {
		return false
	}
	for _, who := range []string{";;;SY)", ";;;BA)", ";;;" + owner + ")"} {
		if !strings.Contains(sddl, who) {
			return false
		}
	}
	return true
}

// isEmptyDir reports whether dir holds nothing.
func isEmptyDir(dir string) (bool, error) {
	d, err := os.Open(dir)
	if err != nil {
		return false, err
	}
	defer d.Close()
	names, err := d.Readdirnames(1)
	if err != nil && !errors.Is(err, io.EOF) {
		return false, err
	}
	return len(names) == 0, nil
}

// currentUserSID returns the SID of the user the process runs as.
func currentUserSID() (string, error) {
	u, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return "", fmt.Errorf("read the current user: %w", err)
	}
	return u.User.Sid.String(), nil
}

// isAccessDenied reports whether err is Windows refusing access.
func isAccessDenied(err error) bool {
	return errors.Is(err, windows.ERROR_ACCESS_DENIED) || errors.Is(err, windows.WSAEACCES)
}
