package lock

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
)

// ErrWrongBytes is returned for bytes of another size or SHA-256 than the
// lock pins: a mirror's, a file's, a rebuilt archive's.
var ErrWrongBytes = errors.New("wrong bytes")

// VerifyFile checks that the file at path is a regular file of size bytes
// whose SHA-256 is sha. A file of other bytes gives an error wrapping
// ErrWrongBytes; one that is missing, fs.ErrNotExist.
func VerifyFile(path string, size int64, sha string) error {
	in, err := os.Open(path)
	if err != nil {
		return err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s: %w: not a regular file", path, ErrWrongBytes)
	}
	if st.Size() != size {
		return fmt.Errorf("%s: %w: %d bytes, the lock pins %d", path, ErrWrongBytes, st.Size(), size)
	}
	h := sha256.New()
	if _, err := io.Copy(h, in); err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != sha {
		return fmt.Errorf("%s: %w: SHA-256 %s, the lock pins %s", path, ErrWrongBytes, got, sha)
	}
	return nil
}
