package lock

import (
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"

	"aead.dev/minisign"
)

// The files of a key pair in its folder, as `forgesync keygen` writes them.
const (
	SecretKeyName = "forgesync.key"
	PublicKeyName = "forgesync.pub"
)

// KeyPair is a key pair [GenerateKeyPair] wrote.
type KeyPair struct {
	SecretKey string `json:"secret_key"`
	PublicKey string `json:"public_key"`
	KeyID     string `json:"key_id"`
	// Public is the public key's base64 line, what [sets] trusted_keys
	// lists.
	Public    string `json:"public"`
	Encrypted bool   `json:"encrypted"`
}

// GenerateKeyPair generates a minisign key pair and writes it: the secret
// key to sec (mode 0600, encrypted when password is not empty) and the
// public key to pub. Neither file may exist; when the second cannot be
// written, the first is removed.
func GenerateKeyPair(sec, pub, password string) (KeyPair, error) {
	pk, sk, err := minisign.GenerateKey(rand.Reader)
	if err != nil {
		return KeyPair{}, fmt.Errorf("generate key: %w", err)
	}
	var secText []byte
	if password != "" {
		secText, err = minisign.EncryptKey(password, sk)
	} else {
		secText, err = sk.MarshalText()
	}
	if err != nil {
		return KeyPair{}, fmt.Errorf("encode secret key: %w", err)
	}
	pubText, _ := pk.MarshalText()
	if err := os.MkdirAll(filepath.Dir(sec), 0o700); err != nil {
		return KeyPair{}, fmt.Errorf("key folder: %w", err)
	}
	if err := writeNew(sec, append(secText, '\n'), 0o600); err != nil {
		return KeyPair{}, err
	}
	if err := writeNew(pub, append(pubText, '\n'), 0o644); err != nil {
		os.Remove(sec)
		return KeyPair{}, err
	}
	return KeyPair{SecretKey: sec, PublicKey: pub, KeyID: KeyID(pk.ID()), Public: pk.String(), Encrypted: password != ""}, nil
}

// writeNew writes a file that must not exist yet, removing it again when
// it cannot be written whole.
func writeNew(path string, data []byte, perm os.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
