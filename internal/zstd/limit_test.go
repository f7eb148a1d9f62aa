package zstd

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestReaderLimitFrames holds a Reader to LimitFrames: a frame whose
// header claims more than the limit is refused at its header, before a
// byte is read; one that claims nothing (the CLI reading a pipe) is
// refused at the block that goes over, whose bytes are never read; a
// frame of exactly the limit, and every frame of a stream of several
// under it, decode whole; Reset keeps the limit.
func TestReaderLimitFrames(t *testing.T) {
	needCLI(t)
	data := pakLike(1<<20, 51)
	piped := cli(t, data, "-3")
	sized := cliFile(t, data, "-3")
	if _, err := DecodeAll(nil, sized, testWindow, 1<<30); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		z       []byte
		limit   uint64
		wantErr bool
		maxRead int
	}{
		{"content size over", sized, 1<<20 - 1, true, 0},
		{"no content size, over", piped, 300 << 10, true, 300 << 10},
		{"exactly the limit", sized, 1 << 20, false, 1 << 20},
		{"no content size, exactly", piped, 1 << 20, false, 1 << 20},
		{"two frames under", append(bytes.Clone(piped), sized...), 1 << 20, false, 2 << 20},
	} {
		z := NewReader(nil, testWindow)
		z.LimitFrames(c.limit)
		z.Reset(bytes.NewReader(c.z))
		got, err := io.ReadAll(z)
		var ze *Error
		switch {
		case c.wantErr && (!errors.Is(err, ErrSize) || !errors.As(err, &ze) || ze.Frame != 0):
			t.Errorf("%s: Read = %v; want ErrSize in frame 0", c.name, err)
		case !c.wantErr && err != nil:
			t.Errorf("%s: Read = %v; want no error", c.name, err)
		case len(got) > c.maxRead || !bytes.Equal(got, bytes.Repeat(data, 2)[:len(got)]):
			t.Errorf("%s: read %d bytes (equal to the data's start: %v); want at most %d", c.name, len(got), bytes.Equal(got, bytes.Repeat(data, 2)[:len(got)]), c.maxRead)
		}
		if err != nil {
			t.Logf("%s: %v", c.name, err)
		}
	}
}

// cliFile compresses in with the zstd CLI from a file, so that the frame
// header holds the content size (from a pipe it does not).
func cliFile(t *testing.T, in []byte, args ...string) []byte {
	t.Helper()
	p := filepath.Join(t.TempDir(), "in")
	if err := os.WriteFile(p, in, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("zstd", append(append([]string{"-q", "-c"}, args...), p)...).Output()
	if err != nil {
		t.Fatalf("zstd %v: %v", args, err)
	}
	return out
}
