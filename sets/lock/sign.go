package lock

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"aead.dev/minisign"

	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
)

// Errors of signature checks and signing keys, wrapped with the details.
var (
	// errUnsigned is returned when trusted keys are set and a lock comes
	// without a signature.
	errUnsigned = errors.New("the lock is not signed")
	// ErrUntrustedKey is returned when trusted keys are set and the lock is
	// signed by a key that is not one of them.
	ErrUntrustedKey = errors.New("the lock is signed by a key that is not trusted")
	// errBadSignature is returned when a signature is malformed or does not
	// match the lock (edited after signing, or the signature of another
	// file).
	errBadSignature = errors.New("the lock's signature is not valid")
	// ErrKeyEncrypted is returned when a secret key file is protected by a
	// password and none was given.
	ErrKeyEncrypted = errors.New("the secret key is password-protected")
)

// SignatureState is what a signature check found.
type SignatureState string

// The states of a signature check.
const (
	// unsigned: there is no signature.
	unsigned SignatureState = "unsigned"
	// Verified: the signature is valid and by a trusted key.
	Verified SignatureState = "verified"
	// Unverified: a well-formed signature that could not be checked,
	// because no trusted keys are set (a minisign signature needs the
	// public key); KeyID is the key it claims.
	Unverified SignatureState = "unverified"
	// Invalid: the signature is malformed, by an untrusted key, or does
	// not match the lock.
	Invalid SignatureState = "invalid"
)

// Verification is the result of checking a lock's signature.
type Verification struct {
	State SignatureState `json:"state"`
	// KeyID is the signing key's id as minisign prints it (16 uppercase
	// hex digits): the signed_by of SPEC §10.3. Trust it only when State
	// is Verified.
	KeyID string `json:"key_id,omitempty"`
	// TrustedComment is the signed comment of a verified signature.
	TrustedComment string `json:"trusted_comment,omitempty"`
	// Reason says why a signature is Invalid.
	Reason string `json:"reason,omitempty"`
}

// SignedBy returns the key id of a verified signature, or "".
func (v Verification) SignedBy() string {
	if v.State == Verified {
		return v.KeyID
	}
	return ""
}

// KeyID formats a minisign key id as the minisign tool prints it.
func KeyID(id uint64) string { return fmt.Sprintf("%016X", id) }

// ParsePublicKey reads a minisign public key: the base64 line ("RWQ…") that
// [sets] trusted_keys lists, or the whole text of a minisign.pub file.
func ParsePublicKey(s string) (minisign.PublicKey, error) {
	var k minisign.PublicKey
	text := strings.TrimSpace(strings.ReplaceAll(s, "\r\n", "\n"))
	if err := k.UnmarshalText([]byte(text)); err != nil {
		return k, fmt.Errorf("minisign public key %q: %w", shorten(s), err)
	}
	return k, nil
}

// ParsePublicKeys reads every key of a trusted_keys list.
func ParsePublicKeys(list []string) ([]minisign.PublicKey, error) {
	keys := make([]minisign.PublicKey, 0, len(list))
	var errs []error
	for _, s := range list {
		k, err := ParsePublicKey(s)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		keys = append(keys, k)
	}
	return keys, errors.Join(errs...)
}

// Verify checks a lock's signature (sig is nil when there is none) against
// the trusted keys (SPEC §10.1). With trusted keys, a lock that is unsigned,
// signed by another key, or whose signature does not match is refused: the
// error wraps ErrUnsigned, ErrUntrustedKey or ErrBadSignature. Without
// trusted keys nothing is refused: a present signature is read and reported
// (Unverified with its key id, or Invalid when malformed).
func Verify(lock, sig []byte, trusted []minisign.PublicKey) (Verification, error) {
	if sig == nil {
		if len(trusted) > 0 {
			return Verification{State: unsigned}, fmt.Errorf("%w, and [sets] trusted_keys requires a signature by %s (%s beside the lock)", errUnsigned, keyList(trusted), SignatureName)
		}
		return Verification{State: unsigned}, nil
	}
	var s minisign.Signature
	if err := s.UnmarshalText(bytes.ReplaceAll(sig, []byte("\r\n"), []byte("\n"))); err != nil {
		v := Verification{State: Invalid, Reason: "malformed signature: " + err.Error()}
		if len(trusted) > 0 {
			return v, fmt.Errorf("%w: %s", errBadSignature, v.Reason)
		}
		return v, nil
	}
	v := Verification{State: Unverified, KeyID: KeyID(s.KeyID)}
	if len(trusted) == 0 {
		return v, nil
	}
	for _, k := range trusted {
		if k.ID() != s.KeyID {
			continue
		}
		if !minisign.Verify(k, lock, sig) {
			v.State, v.Reason = Invalid, "the signature by key "+v.KeyID+" does not match the lock: it was edited after signing, or the signature is another file's"
			return v, fmt.Errorf("%w: %s", errBadSignature, v.Reason)
		}
		v.State, v.TrustedComment = Verified, s.TrustedComment
		return v, nil
	}
	v.State, v.Reason = Invalid, "signed by key "+v.KeyID+", which is not one of the trusted keys ("+keyList(trusted)+")"
	return v, fmt.Errorf("%w: %s", ErrUntrustedKey, v.Reason)
}

// maxKeyBytes bounds a minisign key file: a few lines of base64.
const maxKeyBytes = 64 << 10

// ReadSecretKey reads a minisign secret key file for signing a lock. A
// password-protected key (what `minisign -G` makes by default) needs its
// password; without one the error wraps ErrKeyEncrypted. Decrypting such a
// key costs what minisign's scrypt parameters ask: about a gigabyte of
// memory and a few seconds, once per command.
func ReadSecretKey(path, password string) (minisign.PrivateKey, error) {
	data, err := atomicfile.ReadFile(path, maxKeyBytes)
	if err != nil {
		return minisign.PrivateKey{}, fmt.Errorf("read secret key: %w", err)
	}
	data = bytes.ReplaceAll(bytes.TrimSpace(data), []byte("\r\n"), []byte("\n"))
	if minisign.IsEncrypted(data) {
		if password == "" {
			return minisign.PrivateKey{}, fmt.Errorf("secret key %s: %w and no password was given", path, ErrKeyEncrypted)
		}
		k, err := minisign.DecryptKey(password, data)
		if err != nil {
			return minisign.PrivateKey{}, fmt.Errorf("secret key %s: wrong password or damaged key: %w", path, err)
		}
		return k, nil
	}
	var k minisign.PrivateKey
	if err := k.UnmarshalText(data); err != nil {
		return minisign.PrivateKey{}, fmt.Errorf("secret key %s: %w", path, err)
	}
	return k, nil
}

// Sign returns the minisign signature of a lock's bytes (the prehashed
// Ed25519 signature that `minisign -S` makes), with trustedComment signed
// into it; an empty comment means "file:forgepacks.lock". The same key,
// bytes and comment always give the same signature.
func Sign(key minisign.PrivateKey, lock []byte, trustedComment string) []byte {
	if trustedComment == "" {
		trustedComment = "file:" + LockName
	}
	r := minisign.NewReader(bytes.NewReader(lock))
	buf := make([]byte, 32<<10)
	for {
		if _, err := r.Read(buf); err != nil {
			break
		}
	}
	return r.SignWithComments(key, trustedComment, "signature from forgesync secret key "+KeyID(key.ID()))
}

func keyList(keys []minisign.PublicKey) string {
	ids := make([]string, len(keys))
	for i, k := range keys {
		ids[i] = KeyID(k.ID())
	}
	return strings.Join(ids, ", ")
}

func shorten(s string) string {
	if len(s) > 24 {
		return s[:24] + "…"
	}
	return s
}
