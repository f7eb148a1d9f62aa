//go:build windows

package daemon

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/windows"
)

// folderSDDL grants full control to SYSTEM, Administrators and one user,
// inherited by everything created inside, with the parent's permissions
// removed (P: protected).
const folderSDDL = "D:P(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)(A;OICI;FA;;;%s)"

// SecureFolder creates dir and sets its ACL to SYSTEM, Administrators and
// owner (a SID string such as "S-1-5-21-…"; the current user when empty),
// removing inherited permissions, so that the status socket and the API key
// inside are reachable by those accounts only (SPEC §8). Windows applies
// the new ACL to what the folder already holds.
func SecureFolder(dir, owner string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("secure folder %s: %w", dir, err)
	}
	if owner == "" {
		sid, err := CurrentUserSID()
		if err != nil {
			return fmt.Errorf("secure folder %s: %w", dir, err)
		}
		owner = sid
	}
	if _, err := windows.StringToSid(owner); err != nil {
		return fmt.Errorf("secure folder %s: owner %q is not a SID: %w", dir, owner, err)
	}
	sd, err := windows.SecurityDescriptorFromString(fmt.Sprintf(folderSDDL, owner))
	if err != nil {
		return fmt.Errorf("secure folder %s: %w", dir, err)
	}
	dacl, _, err := sd.DACL()
	if err != nil {
		return fmt.Errorf("secure folder %s: %w", dir, err)
	}
	err = windows.SetNamedSecurityInfo(dir, windows.SE_FILE_OBJECT,
		windows.DACL_SECURITY_INFORMATION|windows.PROTECTED_DACL_SECURITY_INFORMATION, nil, nil, dacl, nil)
	if err != nil {
		return fmt.Errorf("secure folder %s: set its ACL: %w", dir, err)
	}
	return nil
}

// CurrentUserSID returns the SID of the user the process runs as.
func CurrentUserSID() (string, error) {
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
