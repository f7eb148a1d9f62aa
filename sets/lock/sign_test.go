package lock

import (
	"encoding/base64"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"aead.dev/minisign"

	"github.com/mjolnir-forge/forgesync/internal/toolcheck"
	"github.com/mjolnir-forge/forgesync/sets/settest"
)

// cliKey makes a key pair with the minisign tool (no password) and returns
// the paths of the public and the secret key.
func cliKey(t *testing.T, tool, dir, name string) (pub, sec string) {
	t.Helper()
	pub, sec = filepath.Join(dir, name+".pub"), filepath.Join(dir, name+".key")
	if out, err := exec.Command(tool, "-G", "-W", "-f", "-p", pub, "-s", sec).CombinedOutput(); err != nil {
		t.Fatalf("minisign -G: %v\n%s", err, out)
	}
	return pub, sec
}

func readPub(t *testing.T, path string) minisign.PublicKey {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	k, err := ParsePublicKey(string(data))
	if err != nil {
		t.Fatalf("ParsePublicKey(%s) = %v", path, err)
	}
	return k
}

// TestVerifyMinisignCLI checks locks signed by the real minisign tool: one
// signed by a trusted key verifies; one signed by another key, or edited
// after signing, or unsigned, is refused.
func TestVerifyMinisignCLI(t *testing.T) {
	tool := toolcheck.Need(t, "minisign")[0]
	dir := t.TempDir()
	pubPath, secPath := cliKey(t, tool, dir, "host")
	_, otherSec := cliKey(t, tool, dir, "other")
	lockPath := filepath.Join(dir, LockName)
	if err := os.WriteFile(lockPath, []byte(settest.GoodLock), 0o644); err != nil {
		t.Fatal(err)
	}
	sign := func(sec string) []byte {
		t.Helper()
		sigPath := lockPath + ".minisig"
		if out, err := exec.Command(tool, "-S", "-s", sec, "-m", lockPath, "-t", "season 3").CombinedOutput(); err != nil {
			t.Fatalf("minisign -S: %v\n%s", err, out)
		}
		sig, err := os.ReadFile(sigPath)
		if err != nil {
			t.Fatal(err)
		}
		return sig
	}
	trusted := []minisign.PublicKey{readPub(t, pubPath)}
	// The base64 line alone, as trusted_keys holds it, is the same key.
	line := strings.Split(strings.TrimSpace(mustRead(t, pubPath)), "\n")[1]
	if k, err := ParsePublicKey(line); err != nil || !k.Equal(trusted[0]) {
		t.Fatalf("ParsePublicKey(line) = %v, %v", k, err)
	}
	hostID := KeyID(trusted[0].ID())

	sig := sign(secPath)
	v, err := Verify([]byte(settest.GoodLock), sig, trusted)
	if err != nil || v.State != Verified || v.SignedBy() != hostID || v.TrustedComment != "season 3" {
		t.Errorf("Verify(signed by the CLI) = %+v, %v; want verified by %s", v, err, hostID)
	}
	// Without trusted keys the signature is reported, not verified.
	v, err = Verify([]byte(settest.GoodLock), sig, nil)
	if err != nil || v.State != Unverified || v.KeyID != hostID || v.SignedBy() != "" {
		t.Errorf("Verify(no trusted keys) = %+v, %v; want unverified %s", v, err, hostID)
	}
	// Edited after signing.
	edited := strings.Replace(settest.GoodLock, "size = 42", "size = 43", 1)
	if v, err := Verify([]byte(edited), sig, trusted); !errors.Is(err, errBadSignature) || v.State != Invalid {
		t.Errorf("Verify(edited) = %+v, %v; want ErrBadSignature", v, err)
	}
	// Signed by another key.
	other := sign(otherSec)
	if v, err := Verify([]byte(settest.GoodLock), other, trusted); !errors.Is(err, ErrUntrustedKey) || !strings.Contains(err.Error(), hostID) {
		t.Errorf("Verify(other key) = %+v, %v; want ErrUntrustedKey naming %s", v, err, hostID)
	}
	// Unsigned.
	if _, err := Verify([]byte(settest.GoodLock), nil, trusted); !errors.Is(err, errUnsigned) {
		t.Errorf("Verify(unsigned) = %v; want ErrUnsigned", err)
	}
	if v, err := Verify([]byte(settest.GoodLock), nil, nil); err != nil || v.State != unsigned {
		t.Errorf("Verify(unsigned, no keys) = %+v, %v", v, err)
	}
	// Garbage.
	if _, err := Verify([]byte(settest.GoodLock), []byte("untrusted comment: x\nnot base64\n"), trusted); !errors.Is(err, errBadSignature) {
		t.Errorf("Verify(garbage) = %v; want ErrBadSignature", err)
	}
	if v, err := Verify([]byte(settest.GoodLock), []byte("junk"), nil); err != nil || v.State != Invalid {
		t.Errorf("Verify(garbage, no keys) = %+v, %v; want Invalid, nil", v, err)
	}
}

// TestSignMinisignCLI signs a lock with a secret key file made by the
// minisign tool, and has the tool verify the signature.
func TestSignMinisignCLI(t *testing.T) {
	tool := toolcheck.Need(t, "minisign")[0]
	dir := t.TempDir()
	pubPath, secPath := cliKey(t, tool, dir, "host")
	key, err := ReadSecretKey(secPath, "")
	if err != nil {
		t.Fatalf("ReadSecretKey = %v", err)
	}
	sig := Sign(key, []byte(settest.GoodLock), "forgepacks-lock "+settest.FpAB)
	if again := Sign(key, []byte(settest.GoodLock), "forgepacks-lock "+settest.FpAB); string(again) != string(sig) {
		t.Errorf("Sign is not deterministic")
	}
	lockPath := filepath.Join(dir, LockName)
	os.WriteFile(lockPath, []byte(settest.GoodLock), 0o644)
	os.WriteFile(lockPath+".minisig", sig, 0o644)
	out, err := exec.Command(tool, "-V", "-p", pubPath, "-m", lockPath).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "forgepacks-lock "+settest.FpAB) {
		t.Errorf("minisign -V of our signature: %v\n%s", err, out)
	}
	// The tool refuses it for an edited lock: the check is real.
	os.WriteFile(lockPath, []byte(settest.GoodLock+"\n"), 0o644)
	if out, err := exec.Command(tool, "-V", "-p", pubPath, "-m", lockPath).CombinedOutput(); err == nil {
		t.Errorf("minisign -V accepted an edited lock:\n%s", out)
	}
	// And Verify agrees.
	if v, err := Verify([]byte(settest.GoodLock), sig, []minisign.PublicKey{readPub(t, pubPath)}); err != nil || v.State != Verified {
		t.Errorf("Verify(our signature) = %+v, %v", v, err)
	}
}

// TestReadSecretKeyEncrypted checks that a password-protected key without
// a password is refused with ErrKeyEncrypted. (Decrypting one costs
// minisign's scrypt: a gigabyte of memory, too much for a unit test.)
func TestReadSecretKeyEncrypted(t *testing.T) {
	_, priv, err := minisign.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	text, _ := priv.MarshalText()
	lines := strings.SplitN(string(text), "\n", 2)
	raw, err := base64.StdEncoding.DecodeString(lines[1])
	if err != nil {
		t.Fatal(err)
	}
	raw[2], raw[3] = 0x53, 0x63 // the KDF field says scrypt ("Sc")
	path := filepath.Join(t.TempDir(), "enc.key")
	os.WriteFile(path, []byte(lines[0]+"\n"+base64.StdEncoding.EncodeToString(raw)+"\n"), 0o600)
	if _, err := ReadSecretKey(path, ""); !errors.Is(err, ErrKeyEncrypted) {
		t.Errorf("ReadSecretKey(encrypted, no password) = %v; want ErrKeyEncrypted", err)
	}
	plain := filepath.Join(t.TempDir(), "plain.key")
	os.WriteFile(plain, text, 0o600)
	k, err := ReadSecretKey(plain, "")
	if err != nil || k.ID() != priv.ID() {
		t.Errorf("ReadSecretKey(plain) = %v", err)
	}
	if _, err := ReadSecretKey(filepath.Join(t.TempDir(), "none.key"), ""); err == nil {
		t.Errorf("ReadSecretKey(missing file) = nil")
	}
}

func TestParsePublicKeys(t *testing.T) {
	if _, err := ParsePublicKeys([]string{"RWQnot-a-key"}); err == nil {
		t.Errorf("ParsePublicKeys(bad) = nil; want an error")
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
