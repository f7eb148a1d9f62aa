package lock

import (
	"os"
	"path/filepath"
	"testing"

	"aead.dev/minisign"
)

// TestGenerateKeyPair: a key pair without a password signs what its public
// key verifies; a second pair at the same paths is refused and leaves the
// first as it was.
func TestGenerateKeyPair(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "keys")
	sec, pub := filepath.Join(dir, SecretKeyName), filepath.Join(dir, PublicKeyName)
	k, err := GenerateKeyPair(sec, pub, "")
	if err != nil {
		t.Fatalf("GenerateKeyPair = %v", err)
	}
	if k.SecretKey != sec || k.PublicKey != pub || k.Encrypted || len(k.KeyID) != 16 {
		t.Errorf("GenerateKeyPair = %+v", k)
	}
	sk, err := ReadSecretKey(sec, "")
	if err != nil {
		t.Fatal(err)
	}
	pk, err := ParsePublicKey(k.Public)
	if err != nil || KeyID(pk.ID()) != k.KeyID {
		t.Fatalf("ParsePublicKey(%q) = %X, %v; want %s", k.Public, pk.ID(), err, k.KeyID)
	}
	if !minisign.Verify(pk, []byte("x"), Sign(sk, []byte("x"), "")) {
		t.Errorf("the secret key does not match the public key")
	}
	before, _ := os.ReadFile(sec)
	if _, err := GenerateKeyPair(sec, pub, ""); err == nil {
		t.Errorf("GenerateKeyPair over an existing pair = nil; want an error")
	}
	if after, _ := os.ReadFile(sec); string(after) != string(before) {
		t.Errorf("GenerateKeyPair over an existing pair replaced the secret key")
	}
}
