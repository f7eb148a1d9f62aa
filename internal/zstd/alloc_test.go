package zstd

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"runtime"
	"testing"
)

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// claiming returns a frame whose header claims a window of 64 MiB and a
// content size of size bytes, holding one RLE block of 100 bytes.
func claiming(size uint64) []byte {
	z := []byte{0x28, 0xb5, 0x2f, 0xfd, 0xc0, 16 << 3}
	z = binary.LittleEndian.AppendUint64(z, size)
	const bh = 100<<3 | 1<<1 | 1 // last, RLE, 100 bytes
	return append(z, bh&0xff, bh>>8, 0, 'a')
}

func TestAllocBounds(t *testing.T) {
	z := claiming(1 << 40)
	var err error
	n := allocated(func() { _, err = DecodeAll(nil, z, 1<<27, 1<<41) })
	if !errors.Is(err, ErrCorrupt) || n > 4<<20 {
		t.Errorf("DecodeAll(a frame claiming 1 TiB) = %v, %d bytes allocated; want ErrCorrupt and at most 4 MiB", err, n)
	}
	n = allocated(func() { _, err = io.ReadAll(NewReader(bytes.NewReader(z), 1<<27)) })
	if !errors.Is(err, ErrCorrupt) || n > 4<<20 {
		t.Errorf("Reader(a frame claiming 1 TiB in a 64 MiB window) = %v, %d bytes allocated; want ErrCorrupt and at most 4 MiB", err, n)
	}
	// A frame that claims a 64 MiB window: refused at the header under a
	// 8 MiB limit, before anything is allocated for it.
	n = allocated(func() { _, err = DecodeAll(nil, z, 8<<20, 1<<30) })
	if !errors.Is(err, ErrWindow) || n > 1<<20 {
		t.Errorf("DecodeAll(a 64 MiB window, limit 8 MiB) = %v, %d bytes allocated; want ErrWindow", err, n)
	}
}

// TestReaderMemory holds a Reader's buffer to the window and two blocks
// (with their slop) however much it decodes.
func TestReaderMemory(t *testing.T) {
	needCLI(t)
	data := pakLike(8<<20, 31)
	z := cli(t, data, "-3", "--zstd=wlog=20")
	r := NewReader(bytes.NewReader(z), 1<<20)
	got, err := io.ReadAll(r)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("Reader = %d bytes, %v; want %d bytes", len(got), err, len(data))
	}
	if want := 1<<20 + 2*(maxBlock+slop); cap(r.out) > want {
		t.Errorf("Reader's buffer = %d bytes after a 1 MiB window; want at most %d", cap(r.out), want)
	}
}

// TestReaderStartsOver decodes frames of small windows, whose Reader
// starts its buffer over many times (every few blocks), so that matches
// reach back into the earlier history and run on from the buffer's front,
// from every kind of source, and compares them with the data.
func TestReaderStartsOver(t *testing.T) {
	needCLI(t)
	for _, wlog := range []int{10, 14, 17} {
		for name, data := range map[string][]byte{"text": textLike(2<<20, 41), "pak": pakLike(2<<20, 42)} {
			z := cli(t, data, "-19", fmt.Sprintf("--zstd=wlog=%d", wlog))
			for how, src := range readers(z) {
				r := NewReader(src, 1<<20)
				got, err := io.ReadAll(r)
				if err != nil || !bytes.Equal(got, data) {
					t.Fatalf("wlog %d, %s, %s: Reader = %d bytes, %v; want %d bytes", wlog, name, how, len(got), err, len(data))
				}
				if r.d.earlier == nil {
					t.Errorf("wlog %d, %s, %s: the buffer never started over", wlog, name, how)
				}
			}
		}
	}
}
