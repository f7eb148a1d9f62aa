package view

import (
	"fmt"
	"io"
	"strings"

	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// WriteKeyPair writes what `forgesync keygen` wrote and how to use it, as
// commands that work pasted into the shells of goos (cmd and PowerShell on
// Windows); passwordEnv names the variable that holds an encrypted key's
// password. The paths are the user's own flags, written as given.
func WriteKeyPair(w io.Writer, k lock.KeyPair, goos, passwordEnv string) error {
	var b strings.Builder
	how := "without a password: anyone who has the file can sign"
	if k.Encrypted {
		how = "password-protected"
	}
	fmt.Fprintf(&b, "wrote %s (the secret key, %s; keep it private)\n", k.SecretKey, how)
	fmt.Fprintf(&b, "wrote %s (the public key %s)\n", k.PublicKey, k.KeyID)
	fmt.Fprintf(&b, "Put this line in the [sets] section of each server's config:\n\n    %s\n\n", trustedKeysLine(k))
	b.WriteString(commandLine(goos, "export", "DIR", "--sign", k.SecretKey).text("Sign a set with"))
	if k.Encrypted {
		fmt.Fprintf(&b, "with the key's password in %s\n", EnvVar(goos, passwordEnv))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// trustedKeysLine is the config line that trusts the key.
func trustedKeysLine(k lock.KeyPair) string { return `trusted_keys = ["` + k.Public + `"]` }
