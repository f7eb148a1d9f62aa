package zstd

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// TestErrorsSayWhere checks that a failure names its frame, block and
// byte offset, and wraps the sentinel a caller tests with errors.Is.
func TestErrorsSayWhere(t *testing.T) {
	needCLI(t)
	first := cli(t, textLike(1000, 51), "-3")
	second := cli(t, textLike(300<<10, 52), "-3")
	badSum := bytes.Clone(second)
	badSum[len(badSum)-1] ^= 1
	reserved := bytes.Clone(second)
	reserved[4] |= 0x08
	for _, tc := range []struct {
		name                 string
		z                    []byte
		err                  error
		frame, block         int
		offsetFrom, offsetTo int
	}{
		{"bad magic", append(bytes.Clone(first), 1, 2, 3, 4), ErrCorrupt, 1, -1, len(first), len(first)},
		{"cut magic", append(bytes.Clone(first), 0x28), ErrCorrupt, 1, -1, len(first), len(first)},
		{"reserved bit", append(bytes.Clone(first), reserved...), ErrCorrupt, 1, -1, len(first), len(first)},
		{"checksum", append(bytes.Clone(first), badSum...), ErrChecksum, 1, -1, len(first), len(first) + len(second)},
		{"cut block", append(bytes.Clone(first), second[:len(second)/2]...), ErrCorrupt, 1, 1, len(first), len(first) + len(second)},
	} {
		_, err := DecodeAll(nil, tc.z, testWindow, 1<<30)
		errs := map[string]error{"DecodeAll": err}
		for how, r := range readers(tc.z) {
			_, errs["Reader ("+how+")"] = io.ReadAll(NewReader(r, testWindow))
		}
		for api, err := range errs {
			var e *Error
			if !errors.Is(err, tc.err) || !errors.As(err, &e) {
				t.Errorf("%s: %s = %v; want %v in an *Error", tc.name, api, err, tc.err)
				continue
			}
			if e.Frame != tc.frame || (tc.block >= 0 && e.Block < tc.block) || (tc.block < 0 && e.Block != -1) ||
				e.Offset < int64(tc.offsetFrom) || e.Offset > int64(tc.offsetTo) {
				t.Errorf("%s: %s = %v (frame %d, block %d, byte %d); want frame %d, block %d, byte in [%d, %d]",
					tc.name, api, err, e.Frame, e.Block, e.Offset, tc.frame, tc.block, tc.offsetFrom, tc.offsetTo)
			}
		}
	}
}
