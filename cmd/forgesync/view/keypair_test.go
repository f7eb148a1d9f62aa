package view

import (
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// TestKeygenCommandsPerOS: keygen's advice is what the OS's shells read:
// a path with a space quoted, the program as a Windows player runs it
// (.\forgesync.exe), the password's variable in cmd's and PowerShell's
// syntax; one line for both Windows shells when one serves, else one for
// each (a $ in the path: PowerShell expands it in double quotes).
func TestKeygenCommandsPerOS(t *testing.T) {
	tests := []struct {
		goos, key string
		encrypted bool
		want      string
	}{
		{"linux", "/home/me/my keys/forgesync.key", true,
			"Sign a set with: forgesync export DIR --sign '/home/me/my keys/forgesync.key'\n" +
				"with the key's password in $FORGESYNC_SIGN_PASSWORD\n"},
		{"linux", "/home/me/it's/forgesync.key", false,
			"Sign a set with: forgesync export DIR --sign '/home/me/it'\\''s/forgesync.key'\n"},
		{"windows", `C:\Users\me\my keys\forgesync.key`, true,
			`Sign a set with: .\forgesync.exe export DIR --sign "C:\Users\me\my keys\forgesync.key"` + "\n" +
				"with the key's password in the environment variable FORGESYNC_SIGN_PASSWORD (PowerShell: $env:FORGESYNC_SIGN_PASSWORD = '…'; cmd: set FORGESYNC_SIGN_PASSWORD=…)\n"},
		{"windows", `C:\keys\forgesync.key`, false,
			`Sign a set with: .\forgesync.exe export DIR --sign C:\keys\forgesync.key` + "\n"},
		{"windows", `D:\Bob's $keys (old)\forgesync.key`, false,
			`Sign a set with, in PowerShell: .\forgesync.exe export DIR --sign 'D:\Bob''s $keys (old)\forgesync.key'` + "\n" +
				`Sign a set with, in cmd: .\forgesync.exe export DIR --sign "D:\Bob's $keys (old)\forgesync.key"` + "\n"},
	}
	for _, tt := range tests {
		var b strings.Builder
		WriteKeyPair(&b, lock.KeyPair{SecretKey: tt.key, PublicKey: "k.pub", KeyID: "ID", Public: "RW", Encrypted: tt.encrypted}, tt.goos, "FORGESYNC_SIGN_PASSWORD")
		_, got, _ := strings.Cut(b.String(), "\n\n    trusted_keys = [\"RW\"]\n\n")
		if got != tt.want {
			t.Errorf("%s %s: printed\n%s\nwant\n%s", tt.goos, tt.key, got, tt.want)
		}
	}
}
