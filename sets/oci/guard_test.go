package oci_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/sets/fetch"
	"github.com/mjolnir-forge/forgesync/sets/oci"
)

// TestGuardRefusesNonPublicAddress: a registry that is not on loopback and
// not listed as insecure is reached only at public addresses when the
// Registry has a guard (as machine gives it unless [sets]
// allow_private_mirrors): a name that leads to the machine's own network
// is refused at the dial, naming the address and the setting, before any
// byte is sent. The same guard covers the registry's token realm and its
// blob redirects, which are dialled through the same client.
func TestGuardRefusesNonPublicAddress(t *testing.T) {
	r := oci.New(oci.Options{Guard: fetch.GuardClient})
	for _, host := range []string{"10.255.255.1:5000", "169.254.169.254", "[fd00::1]:443"} {
		ref, err := oci.ParseReference("oci://" + host + "/forge/set:live")
		if err != nil {
			t.Fatal(err)
		}
		_, err = r.Pull(t.Context(), ref, "", 1<<20, 1<<20)
		if !errors.Is(err, fetch.ErrPrivateAddress) || !strings.Contains(err.Error(), "allow_private_mirrors") {
			t.Errorf("pull from %s: %v; want the non-public address refused, naming [sets] allow_private_mirrors", host, err)
		}
	}
}
